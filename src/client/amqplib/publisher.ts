/**
 * A publisher on an amqplib channel, shared by both amqplib adapters. It is bound to a channel
 * of the current connection and re-bound by its owner after a reconnection (and, in the
 * harness's loop only, after the broker closed its channel); while unbound, or while its
 * channel is one the broker closed, publishing fails at once with what happened.
 */
import type { Channel, ChannelModel, ConfirmChannel } from 'amqplib';
import type { Publisher, PublishOptions } from '../api';
import { bounded } from '../bounded';
import { lossError, outageError, publishError, type ChannelBinding, type ChannelLoss, type ChannelOwner } from './binding';

/** A server-side exchange that always exists: a passive check of it is a cheap synchronous round trip. */
const ALWAYS_THERE = 'amq.direct';

export class AmqplibPublisher implements Publisher, ChannelBinding {
  private channel: Channel | ConfirmChannel | undefined;
  private lostWith: ChannelLoss | undefined;
  /** The channel whose last publish returned false, until its 'drain' (amqplib's back-pressure signal). */
  private heldOn: Channel | undefined;

  constructor(
    readonly confirms: boolean,
    private readonly owner: ChannelOwner,
  ) {}

  get label(): string {
    return this.confirms ? 'publisher (confirms)' : 'publisher';
  }

  get ready(): boolean {
    return this.channel !== undefined && this.lostWith === undefined;
  }

  get loss(): ChannelLoss | undefined {
    return this.lostWith;
  }

  async attach(model: ChannelModel): Promise<void> {
    const channel = this.confirms ? await model.createConfirmChannel() : await model.createChannel();
    // A listener is required: amqplib re-throws an unheard channel 'error', which takes the
    // whole connection down (amqplib#649). It is the library's only word that the broker
    // closed this channel (404 to a missing exchange, ...), and it comes before the channel's
    // 'close' rejects the unconfirmed publishes, so they learn why.
    channel.on('error', (error: Error) => {
      if (this.channel === channel) this.lostWith = this.owner.lost(this, 'channel_closed', error.message);
    });
    // The channel it replaces, if any, is one the broker closed: nothing to close.
    this.channel = channel;
    this.lostWith = undefined;
  }

  detach(): void {
    this.channel = undefined;
  }

  publish(exchange: string, routingKey: string, body: Buffer, options: PublishOptions = {}): Promise<void> {
    const channel = this.channel;
    if (this.owner.currentFault || !channel) return Promise.reject(outageError(this.owner, 'publisher has no channel'));
    if (this.lostWith) return Promise.reject(lossError(this.lostWith));
    const properties = { persistent: options.persistent ?? false };
    if (this.confirms) {
      return new Promise<void>((resolve, reject) => {
        try {
          const accepted = (channel as ConfirmChannel).publish(exchange, routingKey, body, properties, (error) => {
            if (!error) resolve();
            // On a broker's connection.close (320) amqplib rejects the confirms as its channels
            // close, before the connection's 'close' tells the fault: decide once it has.
            else queueMicrotask(() => reject(publishError(this.owner, this.lostWith, error, 'publish not confirmed')));
          });
          // The message is buffered either way; false says the buffer is over its mark (the confirm still settles it).
          if (!accepted) this.holdUntilDrain(channel);
        } catch (error) {
          reject(publishError(this.owner, this.lostWith, error, 'publish failed'));
        }
      });
    }
    let accepted: boolean;
    try {
      accepted = channel.publish(exchange, routingKey, body, properties);
    } catch (error) {
      return Promise.reject(publishError(this.owner, this.lostWith, error, 'publish failed'));
    }
    if (accepted) return Promise.resolve();
    this.holdUntilDrain(channel);
    return this.whenDrained(channel);
  }

  writesHeld(): boolean {
    return this.heldOn !== undefined && this.heldOn === this.channel;
  }

  /** amqplib's publish() said false: held until the channel's 'drain' (channel.js onBufferDrain). */
  private holdUntilDrain(channel: Channel): void {
    if (this.heldOn === channel) return;
    this.heldOn = channel;
    channel.once('drain', () => {
      if (this.heldOn === channel) this.heldOn = undefined;
    });
  }

  async flush(boundMs: number): Promise<void> {
    const channel = this.channel;
    if (this.owner.currentFault || !channel) throw outageError(this.owner, 'publisher has no channel');
    if (this.lostWith) throw lossError(this.lostWith);
    const flushed = this.confirms
      ? (channel as ConfirmChannel).waitForConfirms()
      : channel.checkExchange(ALWAYS_THERE).then(() => undefined);
    await bounded(flushed, boundMs, `flush: the broker did not answer within ${boundMs} ms`).catch((error: unknown) => {
      throw publishError(this.owner, this.lostWith, error, 'flush failed');
    });
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
      // As for confirms: the connection's fault is told after its channels close.
      const onClose = () =>
        queueMicrotask(() =>
          done(publishError(this.owner, this.lostWith, new Error('channel closed while waiting for drain'), 'publish failed')),
        );
      channel.on('drain', onDrain);
      channel.on('close', onClose);
    });
  }
}
