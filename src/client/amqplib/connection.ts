/**
 * What both amqplib adapters' connections share: the current amqplib connection, the publishers
 * and consumers opened on it (re-opened by the subclass on every new connection), the socket's
 * local port, and killing the socket. A subclass adds how it connects and recovers.
 */
import type { ChannelModel } from 'amqplib';
import type { ConsumeOptions, Consumer, Delivery, Publisher } from '../api';
import { ConnectionBase } from '../connectionBase';
import { AmqplibConsumer, AmqplibPublisher, type ChannelBinding, type ChannelOwner } from './channels';
import { socketOf } from './common';

export abstract class AmqplibConnectionBase extends ConnectionBase implements ChannelOwner {
  protected model: ChannelModel | undefined;
  protected readonly bindings = new Set<ChannelBinding>();

  get localPort(): number | undefined {
    return socketOf(this.model)?.localPort;
  }

  forget(binding: ChannelBinding): void {
    this.bindings.delete(binding);
  }

  async publisher(options: { readonly confirms: boolean }): Promise<Publisher> {
    return this.track(new AmqplibPublisher(options.confirms, this));
  }

  async consume(queue: string, options: ConsumeOptions, onDelivery: (delivery: Delivery) => void): Promise<Consumer> {
    return this.track(new AmqplibConsumer(queue, options, onDelivery, this));
  }

  destroy(reason: string): void {
    const socket = socketOf(this.model);
    this.reportFault(new Error(`connection destroyed by the client: ${reason}`), 'deadline');
    // With an error, or amqplib never learns of a socket destroyed on this side.
    socket?.destroy(new Error(`connection destroyed by the client: ${reason}`));
  }

  /** Keeps `binding` for every later connection, and opens it now when connected. */
  private async track<T extends ChannelBinding>(binding: T): Promise<T> {
    this.bindings.add(binding);
    if (this.model && this.current === 'up') await binding.attach(this.model);
    return binding;
  }
}
