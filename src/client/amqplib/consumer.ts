/**
 * A consumer on its own amqplib channel, shared by both amqplib adapters: re-bound by its owner
 * after a reconnection (and, in the harness's loop only, after the broker closed its channel or
 * cancelled it). amqplib tells a broker's basic.cancel (queue deleted) by calling the consume
 * callback with `null`; the channel stays open but delivers nothing more.
 */
import type { Channel, ChannelModel, ConsumeMessage } from 'amqplib';
import type { ConsumeOptions, Consumer, Delivery } from '../api';
import { bounded } from '../bounded';
import type { ChannelBinding, ChannelLoss, ChannelOwner } from './binding';

/** The ack of an auto-ack delivery: one shared function, not a closure per delivery. */
const NO_ACK = (): void => undefined;

export class AmqplibConsumer implements Consumer, ChannelBinding {
  private channel: Channel | undefined;
  private cancelled = false;
  private lostWith: ChannelLoss | undefined;

  constructor(
    private readonly queue: string,
    private readonly options: ConsumeOptions,
    private readonly onDelivery: (delivery: Delivery) => void,
    private readonly owner: ChannelOwner,
  ) {}

  get label(): string {
    return `consumer of queue ${JSON.stringify(this.queue)}`;
  }

  get ready(): boolean {
    return this.cancelled || (this.channel !== undefined && this.lostWith === undefined);
  }

  get loss(): ChannelLoss | undefined {
    return this.lostWith;
  }

  /** Opens a new channel and consumes on it; a channel left from a cancelled consumer is closed. */
  async attach(model: ChannelModel): Promise<void> {
    if (this.cancelled) return;
    const old = this.channel;
    this.channel = undefined;
    // A cancelled consumer's channel is still open; one the broker closed must not be closed again (a frame on a closed channel is a connection error).
    if (old && this.lostWith?.kind === 'consumer_cancelled') void old.close().catch(() => undefined);
    const channel = await model.createChannel();
    /** Consume-ok seen: before it, a channel closed by the broker is a failed attach (the caller's error), not a signal. */
    let consuming = false;
    // Required, or amqplib re-throws it and takes the connection down (amqplib#649).
    channel.on('error', (error: Error) => {
      if (consuming && this.channel === channel) this.lostWith = this.owner.lost(this, 'channel_closed', error.message);
    });
    if (this.options.ack === 'manual' && this.options.prefetch) await channel.prefetch(this.options.prefetch);
    const noAck = this.options.ack === 'auto';
    // Bound before basic.consume: deliveries can arrive in the same socket read as consume-ok,
    // before the promise below continues, and their acks (same-channel check) would be dropped:
    // with a backlog of `prefetch` messages the consumer then stalls, its connection still up.
    this.channel = channel;
    let consumerTag = '';
    try {
      ({ consumerTag } = await channel.consume(
        this.queue,
        (message: ConsumeMessage | null) => {
          if (message) this.deliver(channel, message, noAck);
          // basic.cancel from the broker (its queue was deleted): amqplib's only word for it.
          else if (this.channel === channel)
            this.lostWith = this.owner.lost(
              this,
              'consumer_cancelled',
              `the broker cancelled the ${this.label} (basic.cancel, consumer tag ${consumerTag || 'unknown'})`,
            );
        },
        { noAck },
      ));
      consuming = true;
      this.lostWith = undefined;
    } catch (error) {
      if (this.channel === channel) this.channel = undefined;
      throw error;
    }
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

  private deliver(channel: Channel, message: ConsumeMessage, noAck: boolean): void {
    this.onDelivery({
      body: message.content,
      redelivered: message.fields.redelivered,
      ack: noAck ? NO_ACK : () => this.settle(channel, () => channel.ack(message)),
      ackUpTo: noAck ? NO_ACK : () => this.settle(channel, () => channel.ack(message, true)),
      nack: noAck ? NO_ACK : (requeue) => this.settle(channel, () => channel.nack(message, false, requeue)),
    });
  }

  /** Acks or nacks on the channel the delivery came on, while it is still this consumer's. */
  private settle(channel: Channel, settle: () => void): void {
    try {
      if (this.channel === channel) settle();
    } catch {
      // The channel died with its connection: the broker requeues and redelivers (flagged).
    }
  }
}
