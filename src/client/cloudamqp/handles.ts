/**
 * Publishers and consumers over an `AMQPSession`'s own handles, so that the session's recovery
 * is what brings them back:
 * - a publisher publishes through `AMQPExchange.publish` (the default exchange's handle for
 *   `''`, a passively declared handle for a named one). With `confirm: true` that is the
 *   session's confirm channel and resolves on the broker's ack; with `confirm: false` it is
 *   `basicPublish` on the session's ops channel, resolved once the frames are handed to the
 *   socket (the library's backpressure), serialised with the session's other ops-channel work.
 *   Both channels are session-owned: dropped on disconnect and re-opened on the first publish
 *   after it. So every publisher of a connection shares one confirm channel and one ops channel.
 * - a consumer is an `AMQPQueue.subscribe` subscription (own channel, per-consumer prefetch),
 *   re-consumed by the session after a reconnection, and only then.
 *
 * Signals (./signals.ts): a publish or flush rejected because the broker closed its channel is
 * the `channel_closed` signal (once per close: the library rejects every pending call with one
 * error) and fails as such; a nack fails with PublishNackedError; a publish refused while the
 * broker blocks the connection fails at once as `blocked`, as the library refuses it. The broker's
 * cancel of a subscription is seen only in its consumer's `wait()`: the `consumer_cancelled`
 * signal, and the subscription is no longer healthy. The adapter re-consumes nothing.
 */
import type { AMQPExchange, AMQPMessage, AMQPQueue, AMQPSession, AMQPSubscription } from './amqpClient';
import { nowNs } from '../../measure/clock';
import type { ClientFault, ConsumeOptions, Consumer, Delivery, Publisher, PublishOptions, SignalKind } from '../api';
import { bounded } from '../bounded';
import { ClientFaultError, PublishNackedError } from '../types';
import { failureKind, isCancelledByServer, isNack, isServerChannelClose } from './signals';

/** A server-side exchange that always exists: its passive declaration is a cheap synchronous round trip. */
const ALWAYS_THERE = 'amq.direct';
/** Bound on cancelling a subscription (basic.cancel and channel close: two round trips a dead peer never answers). */
const CANCEL_BOUND_MS = 1000;

/** What a publisher or consumer needs of its connection. */
export interface HandleOwner {
  /** The fault of the current outage, or undefined when up. */
  readonly currentFault: ClientFault | undefined;
  /** A typed signal the library gave through a handle; the same library error object is told once. */
  signal(kind: SignalKind, cause: unknown): void;
  forget(consumer: CloudamqpConsumer): void;
}

/** The outage's fault as an error (its detection time and kind), or `error` worded as a new one. */
function faultError(owner: HandleOwner, error: unknown, what: string): ClientFaultError {
  const outage = owner.currentFault;
  if (outage) return new ClientFaultError(`${what}: not connected: ${outage.message}`, outage.detectedNs, outage.kind, { cause: error });
  const message = error instanceof Error ? error.message : String(error);
  return new ClientFaultError(`${what}: ${message}`, nowNs(), failureKind(error), { cause: error });
}

/** A publish's or flush's rejection as the harness's error; a broker's channel close on a live connection is also the signal. */
function failure(owner: HandleOwner, error: unknown, what: string): ClientFaultError | PublishNackedError {
  if (error instanceof ClientFaultError) return error;
  if (isNack(error)) return new PublishNackedError(`${what}: nacked by the broker (Message rejected)`, nowNs(), { cause: error });
  if (!owner.currentFault && isServerChannelClose(error)) owner.signal('channel_closed', error);
  return faultError(owner, error, what);
}

export class CloudamqpPublisher implements Publisher {
  /** Exchange handles by name; an `AMQPExchange` is only (session, name), so it survives reconnections. */
  private readonly exchanges = new Map<string, AMQPExchange>();
  /** Confirms not in yet: `flush` waits for them. */
  private readonly unconfirmed = new Set<Promise<void>>();
  private closed = false;

  constructor(
    readonly confirms: boolean,
    private readonly session: AMQPSession,
    private readonly owner: HandleOwner,
  ) {}

  async publish(exchange: string, routingKey: string, body: Buffer, options: PublishOptions = {}): Promise<void> {
    // While down, fail at once as every adapter does (the library would also reject: its client
    // is closed until it reconnects; it never queues publishes for later).
    if (this.owner.currentFault || this.closed) throw faultError(this.owner, new Error('publisher closed'), 'publish');
    const published = this.publishOnce(exchange, routingKey, body, options);
    if (!this.confirms) return published;
    this.unconfirmed.add(published);
    try {
      await published;
    } finally {
      this.unconfirmed.delete(published);
    }
  }

  async flush(boundMs: number): Promise<void> {
    if (this.owner.currentFault) throw faultError(this.owner, new Error('flush'), 'flush');
    const flushed = this.confirms
      ? Promise.all([...this.unconfirmed]).then(() => undefined)
      : // Queued behind every plain publish on the session's ops channel: its answer means the broker has taken them.
        this.session.exchange(ALWAYS_THERE, 'direct', { passive: true }).then(
          () => undefined,
          (error: unknown) => Promise.reject(failure(this.owner, error, 'flush')),
        );
    await bounded(flushed, boundMs, `flush: the broker did not answer within ${boundMs} ms`);
  }

  close(): Promise<void> {
    // The channels belong to the session (shared by every publisher): nothing of ours to close.
    this.closed = true;
    return Promise.resolve();
  }

  private async publishOnce(exchange: string, routingKey: string, body: Buffer, options: PublishOptions): Promise<void> {
    try {
      const handle = this.exchanges.get(exchange) ?? (await this.exchangeHandle(exchange));
      // deliveryMode explicitly: the library's own default is 2 (persistent), the harness's is transient.
      await handle.publish(body, { routingKey, confirm: this.confirms, deliveryMode: options.persistent ? 2 : 1 });
    } catch (error) {
      throw failure(this.owner, error, this.confirms ? 'publish not confirmed' : 'publish');
    }
  }

  private async exchangeHandle(name: string): Promise<AMQPExchange> {
    // The default exchange needs no declaration; a named one is the harness's, so declare it passively (its type is not checked then).
    const handle = name === '' ? await this.session.directExchange('') : await this.session.exchange(name, 'direct', { passive: true });
    this.exchanges.set(name, handle);
    return handle;
  }
}

export class CloudamqpConsumer implements Consumer {
  private subscription: AMQPSubscription | undefined;
  private cancelled = false;
  /** The library consumers whose `wait()` is listened to (the session swaps in a new one at each reconnection). */
  private readonly watched = new WeakSet<object>();

  constructor(
    private readonly queue: AMQPQueue,
    private readonly options: ConsumeOptions,
    private readonly onDelivery: (delivery: Delivery) => void,
    private readonly owner: HandleOwner,
  ) {}

  /**
   * True while the subscription consumes: its channel open and its consumer still on it. The
   * broker's cancel removes the consumer and leaves the channel open; after a reconnection the
   * session's re-consume (when it worked) swaps in a new channel and consumer.
   */
  get healthy(): boolean {
    if (this.cancelled) return true;
    const subscription = this.subscription;
    return subscription !== undefined && !subscription.channel.closed && subscription.channel.consumers.has(subscription.consumerTag);
  }

  async subscribe(): Promise<void> {
    const noAck = this.options.ack === 'auto';
    // `noAck: true` is the broker's automatic ack; `manualAck` leaves acks to `Delivery.ack` (the
    // library's third mode, ack when the callback returns, is not what the harness measures).
    const params = noAck ? { noAck: true } : { manualAck: true, ...(this.options.prefetch ? { prefetch: this.options.prefetch } : {}) };
    this.subscription = await this.queue.subscribe(params, (message) => this.deliver(message, noAck));
    this.watch();
  }

  /**
   * Listens to the current library consumer's `wait()`: the library's only word of the broker's
   * basic.cancel (it rejects with 'Consumer cancelled by the server'). A connection or channel
   * that closes rejects it too; those are told by the connection's own events. The library keeps
   * one waiter per consumer, and nothing else waits on a callback subscription's consumer.
   */
  watch(): void {
    const subscription = this.subscription;
    const consumer = subscription?.channel.consumers.get(subscription.consumerTag);
    if (!consumer || this.watched.has(consumer)) return;
    this.watched.add(consumer);
    consumer.wait().then(
      () => undefined,
      (error: unknown) => {
        if (!this.cancelled && isCancelledByServer(error)) this.owner.signal('consumer_cancelled', error);
      },
    );
  }

  async cancel(): Promise<void> {
    this.cancelled = true;
    this.owner.forget(this);
    const subscription = this.subscription;
    this.subscription = undefined;
    // Best effort (the library swallows wire errors) but bounded: a dead peer never answers basic.cancel.
    if (subscription) await bounded(subscription.cancel(), CANCEL_BOUND_MS, '').catch(() => undefined);
  }

  private deliver(message: AMQPMessage, noAck: boolean): void {
    const bytes = message.body ?? new Uint8Array(0);
    this.onDelivery({
      body: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength),
      redelivered: message.redelivered,
      // The tag is valid only on the channel it came on: after a reconnection the ack is rejected
      // (the broker requeues and redelivers the message, flagged): nothing to report.
      ack: noAck ? () => undefined : () => void message.ack().catch(() => undefined),
      ackUpTo: noAck ? () => undefined : () => void message.ack(true).catch(() => undefined),
      nack: noAck ? () => undefined : (requeue) => void message.nack(requeue).catch(() => undefined),
    });
  }
}
