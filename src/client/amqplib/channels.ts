/**
 * Publishers and consumers on amqplib channels, shared by both amqplib adapters (the harness's
 * loop and amqplib's own recovery). Each is bound to a channel of the current connection and
 * re-bound by its owner after a reconnection; while unbound (the connection is down) publishing
 * fails at once with the connection's fault.
 */
import type { Channel, ChannelModel, ConfirmChannel, ConsumeMessage } from 'amqplib';
import { nowNs } from '../../measure/clock';
import type { ClientFault, ConsumeOptions, Consumer, Delivery, Publisher, PublishOptions } from '../api';
import { classifyFault } from '../faults';
import { bounded } from '../bounded';
import { ClientFaultError } from '../types';

/** How a publisher or consumer learns what its connection is doing. */
export interface ChannelOwner {
  /** The fault of the current outage, or undefined when up. */
  readonly currentFault: ClientFault | undefined;
  /** Publishers and consumers that exist until closed or cancelled. */
  forget(binding: ChannelBinding): void;
}

export interface ChannelBinding {
  /** Opens this binding's channel on `model` (a new connection). */
  attach(model: ChannelModel): Promise<void>;
  /** The connection went away: drop the channel (it is dead). */
  detach(): void;
}

/** A server-side exchange that always exists: a passive check of it is a cheap synchronous round trip. */
const ALWAYS_THERE = 'amq.direct';

function faultError(owner: ChannelOwner, fallback: string): ClientFaultError {
  const outage = owner.currentFault;
  return outage
    ? new ClientFaultError(`not connected: ${outage.message}`, outage.detectedNs, outage.kind)
    : new ClientFaultError(fallback, nowNs(), 'error');
}

export class AmqplibPublisher implements Publisher, ChannelBinding {
  private channel: Channel | ConfirmChannel | undefined;

  constructor(
    readonly confirms: boolean,
    private readonly owner: ChannelOwner,
  ) {}

  async attach(model: ChannelModel): Promise<void> {
    const channel = this.confirms ? await model.createConfirmChannel() : await model.createChannel();
    // A channel-level error would otherwise be an unhandled 'error' event; the connection's own events report faults.
    channel.on('error', () => undefined);
    this.channel = channel;
  }

  detach(): void {
    this.channel = undefined;
  }

  publish(exchange: string, routingKey: string, body: Buffer, options: PublishOptions = {}): Promise<void> {
    const channel = this.channel;
    if (!channel || this.owner.currentFault) return Promise.reject(faultError(this.owner, 'publisher has no channel'));
    const properties = { persistent: options.persistent ?? false };
    if (this.confirms) {
      return new Promise<void>((resolve, reject) => {
        try {
          (channel as ConfirmChannel).publish(exchange, routingKey, body, properties, (error) => {
            if (error)
              reject(
                this.owner.currentFault
                  ? faultError(this.owner, '')
                  : new ClientFaultError(`publish not confirmed: ${String(error)}`, nowNs(), 'error'),
              );
            else resolve();
          });
        } catch (error) {
          reject(this.owner.currentFault ? faultError(this.owner, '') : new ClientFaultError(String(error), nowNs(), classifyFault(error)));
        }
      });
    }
    let accepted: boolean;
    try {
      accepted = channel.publish(exchange, routingKey, body, properties);
    } catch (error) {
      return Promise.reject(
        this.owner.currentFault ? faultError(this.owner, '') : new ClientFaultError(String(error), nowNs(), classifyFault(error)),
      );
    }
    return accepted ? Promise.resolve() : this.whenDrained(channel);
  }

  async flush(boundMs: number): Promise<void> {
    const channel = this.channel;
    if (!channel) throw faultError(this.owner, 'publisher has no channel');
    const flushed = this.confirms
      ? (channel as ConfirmChannel).waitForConfirms()
      : channel.checkExchange(ALWAYS_THERE).then(() => undefined);
    await bounded(flushed, boundMs, `flush: the broker did not answer within ${boundMs} ms`);
  }

  async close(): Promise<void> {
    this.owner.forget(this);
    const channel = this.channel;
    this.channel = undefined;
    if (channel) await bounded(channel.close(), 1000, '').catch(() => undefined);
  }

  /** Backpressure: the channel buffer is full; resolve on 'drain', reject if the channel closes first. */
  private whenDrained(channel: Channel): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const done = (error?: Error) => {
        channel.off('drain', onDrain);
        channel.off('close', onClose);
        if (error) reject(error);
        else resolve();
      };
      const onDrain = () => done();
      const onClose = () => done(faultError(this.owner, 'channel closed while waiting for drain'));
      channel.on('drain', onDrain);
      channel.on('close', onClose);
    });
  }
}

/** The ack of an auto-ack delivery: one shared function, not a closure per delivery. */
const NO_ACK = (): void => undefined;

export class AmqplibConsumer implements Consumer, ChannelBinding {
  private channel: Channel | undefined;
  private cancelled = false;

  constructor(
    private readonly queue: string,
    private readonly options: ConsumeOptions,
    private readonly onDelivery: (delivery: Delivery) => void,
    private readonly owner: ChannelOwner,
  ) {}

  async attach(model: ChannelModel): Promise<void> {
    if (this.cancelled) return;
    const channel = await model.createChannel();
    channel.on('error', () => undefined);
    if (this.options.ack === 'manual' && this.options.prefetch) await channel.prefetch(this.options.prefetch);
    const noAck = this.options.ack === 'auto';
    // Bound before basic.consume: deliveries can arrive in the same socket read as consume-ok,
    // before the promise below continues, and their acks (same-channel check) would be dropped:
    // with a backlog of `prefetch` messages the consumer then stalls, its connection still up.
    this.channel = channel;
    await channel
      .consume(
        this.queue,
        (message: ConsumeMessage | null) => {
          if (!message) return; // cancelled by the broker (queue deleted): the harness sees no more deliveries
          this.onDelivery({
            body: message.content,
            redelivered: message.fields.redelivered,
            ack: noAck
              ? NO_ACK
              : () => {
                  try {
                    if (this.channel === channel) channel.ack(message);
                  } catch {
                    // The channel died with its connection: the broker requeues and redelivers (flagged).
                  }
                },
          });
        },
        { noAck },
      )
      .catch((error: unknown) => {
        if (this.channel === channel) this.channel = undefined;
        throw error;
      });
  }

  detach(): void {
    this.channel = undefined;
  }

  async cancel(): Promise<void> {
    this.cancelled = true;
    this.owner.forget(this);
    const channel = this.channel;
    this.channel = undefined;
    if (channel) await bounded(channel.close(), 1000, '').catch(() => undefined);
  }
}
