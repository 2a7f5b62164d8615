/**
 * Publishers and consumers on amqp-connection-manager ChannelWrappers, one wrapper (one AMQP
 * channel) each. A wrapper outlives connections: the library opens a new channel on every
 * reconnection, re-runs its setup functions and re-consumes, then emits 'connect'; that is
 * when a binding counts as ready again. Publishing goes through the wrapper's own queue, so a
 * publish made while disconnected waits (pending) for the reconnection instead of failing.
 */
import type { ChannelWrapper, AmqpConnectionManager } from 'amqp-connection-manager';
import type { Channel, ConsumeMessage } from 'amqplib';
import { nowNs } from '../../measure/clock';
import type { ClientFault, ConsumeOptions, Consumer, Delivery, Publisher, PublishOptions } from '../api';
import { bounded } from '../bounded';
import { amqplibFaultWords } from '../amqplib/library';
import { faultErrorOf } from '../faults';
import { ClientFaultError, PublishNackedError } from '../types';

/** What a publisher or consumer needs from its connection. */
export interface WrapperOwner {
  readonly manager: AmqpConnectionManager;
  /** The fault of the current outage, or undefined when up. */
  readonly currentFault: ClientFault | undefined;
  /** Bumped on every disconnection: a delivery from an older connection is not acked on a newer one. */
  readonly generation: number;
  /** A binding became ready (its wrapper emitted 'connect'). */
  bindingReady(): void;
  /** A publisher or consumer closed for good. */
  forget(binding: WrapperBinding): void;
}

export interface WrapperBinding {
  /** The wrapper has a channel with its setup done and its consumers back, since the last disconnection. */
  ready: boolean;
  readonly wrapper: ChannelWrapper;
}

/** A server-side exchange that always exists: a passive check of it is a cheap synchronous round trip. */
const ALWAYS_THERE = 'amq.direct';
/** Bound on closing one wrapper's channel (a dead peer never answers). */
const CHANNEL_CLOSE_BOUND_MS = 1000;

/** amqplib's confirm callback error for a basic.nack, which the wrapper passes on: the only way to tell a nack apart. */
const NACKED = 'message nacked';

/** `error` as the ClientFaultError a caller gets: the outage's kind and time when the connection is down. */
function faultError(owner: WrapperOwner, what: string, error: unknown): ClientFaultError {
  return faultErrorOf(owner.currentFault, what, error, amqplibFaultWords);
}

/** A new wrapper, tracked for readiness; its 'error' events (failed setups) are kept, never thrown. */
function trackedWrapper(binding: { ready: boolean; lastError?: unknown }, owner: WrapperOwner, wrapper: ChannelWrapper): ChannelWrapper {
  // Without a listener, a setup that fails during a reconnection would throw from the library's promise chain.
  wrapper.on('error', (error: unknown) => {
    binding.lastError = error;
  });
  wrapper.on('connect', () => {
    binding.ready = true;
    owner.bindingReady();
  });
  return wrapper;
}

/**
 * `publish` goes through `ChannelWrapper.publish`: plain, it resolves once the library has
 * written the message to the amqplib channel (a full channel buffer keeps later messages in the
 * wrapper's queue until 'drain', so awaiting each publish honours backpressure); with confirms,
 * on the broker's ack. While disconnected the message is queued and the promise stays pending
 * until the library has reconnected and sent it. A message in flight when the connection drops
 * (confirms: sent, not yet confirmed) is rejected by the library with "channel closed"; that and
 * every other rejection reaches the caller as ClientFaultError.
 */
export class AcmPublisher implements Publisher, WrapperBinding {
  ready = false;
  lastError: unknown;
  readonly wrapper: ChannelWrapper;
  /** Publishes not yet settled (queued, written but unflushed, or unconfirmed). */
  private readonly pending = new Set<Promise<void>>();

  constructor(
    readonly confirms: boolean,
    private readonly owner: WrapperOwner,
  ) {
    this.wrapper = trackedWrapper(this, owner, owner.manager.createChannel({ confirm: confirms }));
  }

  publish(exchange: string, routingKey: string, body: Buffer, options: PublishOptions = {}): Promise<void> {
    const sent = this.wrapper.publish(exchange, routingKey, body, { persistent: options.persistent ?? false }).then(
      () => undefined,
      (error: unknown) => {
        if (error instanceof Error && error.message === NACKED && !this.owner.currentFault)
          throw new PublishNackedError('publish not confirmed: the broker nacked it (basic.nack)', nowNs(), { cause: error });
        throw faultError(this.owner, this.confirms ? 'publish not confirmed' : 'publish failed', error);
      },
    );
    this.pending.add(sent);
    const forget = () => void this.pending.delete(sent);
    void sent.then(forget, forget);
    return sent;
  }

  /**
   * Every publish so far settled (confirms: the last confirm), then, plain, one synchronous round
   * trip on the wrapper's current channel: the broker handles a channel's frames in order.
   */
  async flush(boundMs: number): Promise<void> {
    const flushed = (async () => {
      await Promise.all([...this.pending]);
      if (!this.confirms) await this.wrapper.checkExchange(ALWAYS_THERE);
    })().catch((error: unknown) => {
      throw error instanceof ClientFaultError ? error : faultError(this.owner, 'flush failed', error);
    });
    await bounded(flushed, boundMs, `flush: the broker did not take every message within ${boundMs} ms`);
  }

  /** Closes the wrapper (the library rejects anything still queued with "Channel closed"). */
  async close(): Promise<void> {
    this.owner.forget(this);
    await bounded(this.wrapper.close(), CHANNEL_CLOSE_BOUND_MS, '').catch(() => undefined);
  }
}

/**
 * One wrapper (a plain channel) per consumer, consuming through `ChannelWrapper.consume`, which
 * the library re-establishes after every reconnection (and after a broker-side cancel). The
 * prefetch is set in the wrapper's setup function, which the library re-runs before it
 * re-consumes (its own `prefetch` consume option fires the RPC without awaiting it, so a
 * connection dying mid-setup would leave an unhandled rejection).
 */
export class AcmConsumer implements Consumer, WrapperBinding {
  ready = false;
  lastError: unknown;
  readonly wrapper: ChannelWrapper;
  private consumerTag: string | undefined;

  constructor(
    private readonly queue: string,
    private readonly options: ConsumeOptions,
    private readonly onDelivery: (delivery: Delivery) => void,
    private readonly owner: WrapperOwner,
  ) {
    const prefetch = options.ack === 'manual' ? (options.prefetch ?? 0) : 0;
    this.wrapper = trackedWrapper(
      this,
      owner,
      owner.manager.createChannel({
        confirm: false,
        ...(prefetch > 0 ? { setup: (channel: Channel) => channel.prefetch(prefetch).then(() => undefined) } : {}),
      }),
    );
  }

  /** Starts consuming (registered with the wrapper, so the library re-consumes after every reconnection). */
  async start(): Promise<void> {
    const noAck = this.options.ack === 'auto';
    const { consumerTag } = await this.wrapper.consume(this.queue, (message: ConsumeMessage) => this.deliver(message, noAck), { noAck });
    this.consumerTag = consumerTag;
  }

  async cancel(): Promise<void> {
    this.owner.forget(this);
    const cancelled = (async () => {
      if (this.consumerTag) await this.wrapper.cancel(this.consumerTag);
      await this.wrapper.close();
    })();
    await bounded(cancelled, CHANNEL_CLOSE_BOUND_MS, '').catch(() => undefined);
  }

  private deliver(message: ConsumeMessage, noAck: boolean): void {
    const generation = this.owner.generation;
    this.onDelivery({
      body: message.content,
      redelivered: message.fields.redelivered,
      ack: noAck ? () => undefined : () => this.settle(generation, () => this.wrapper.ack(message)),
      ackUpTo: noAck ? () => undefined : () => this.settle(generation, () => this.wrapper.ack(message, true)),
      nack: noAck ? () => undefined : (requeue) => this.settle(generation, () => this.wrapper.nack(message, false, requeue)),
    });
  }

  private settle(generation: number, settle: () => void): void {
    // The wrapper acks on its current channel; a delivery tag of an earlier channel there
    // would be a 406 that closes the channel, which the library re-opens only on the next
    // reconnection. The broker has requeued such a delivery anyway.
    if (generation !== this.owner.generation) return;
    try {
      settle();
    } catch {
      // The channel is closing with its connection: the broker requeues and redelivers (flagged).
    }
  }
}
