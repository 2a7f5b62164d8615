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
 *   re-consumed by the session after a reconnection.
 */
import type { AMQPExchange, AMQPMessage, AMQPQueue, AMQPSession, AMQPSubscription } from './library';
import { nowNs } from '../../measure/clock';
import type { ClientFault, ConsumeOptions, Consumer, Delivery, Publisher, PublishOptions } from '../api';
import { bounded } from '../bounded';
import { classifyFault } from '../faults';
import { ClientFaultError } from '../types';

/** A server-side exchange that always exists: its passive declaration is a cheap synchronous round trip. */
const ALWAYS_THERE = 'amq.direct';
/** Bound on cancelling a subscription (basic.cancel and channel close: two round trips a dead peer never answers). */
const CANCEL_BOUND_MS = 1000;

/** What a publisher or consumer needs of its connection. */
export interface HandleOwner {
  /** The fault of the current outage, or undefined when up. */
  readonly currentFault: ClientFault | undefined;
  forget(consumer: CloudamqpConsumer): void;
}

/** The outage's fault as an error (its detection time and kind), or `fallback` worded as a new one. */
function faultError(owner: HandleOwner, error: unknown, what: string): ClientFaultError {
  const outage = owner.currentFault;
  if (outage) return new ClientFaultError(`${what}: not connected: ${outage.message}`, outage.detectedNs, outage.kind, { cause: error });
  const message = error instanceof Error ? error.message : String(error);
  return new ClientFaultError(`${what}: ${message}`, nowNs(), classifyFault(error), { cause: error });
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
          (error: unknown) => Promise.reject(faultError(this.owner, error, 'flush')),
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
      throw error instanceof ClientFaultError ? error : faultError(this.owner, error, this.confirms ? 'publish not confirmed' : 'publish');
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

  constructor(
    private readonly queue: AMQPQueue,
    private readonly options: ConsumeOptions,
    private readonly onDelivery: (delivery: Delivery) => void,
    private readonly owner: HandleOwner,
  ) {}

  /** True while the subscription's channel is open (after a reconnection: the session re-consumed it). */
  get healthy(): boolean {
    return this.cancelled || (this.subscription !== undefined && !this.subscription.channel.closed);
  }

  async subscribe(): Promise<void> {
    const noAck = this.options.ack === 'auto';
    // `noAck: true` is the broker's automatic ack; `manualAck` leaves acks to `Delivery.ack` (the
    // library's third mode, ack when the callback returns, is not what the harness measures).
    const params = noAck ? { noAck: true } : { manualAck: true, ...(this.options.prefetch ? { prefetch: this.options.prefetch } : {}) };
    this.subscription = await this.queue.subscribe(params, (message) => this.deliver(message, noAck));
  }

  /**
   * Subscribes again after the session's own re-consume failed (it logs that, calls
   * `onrecoverfailed` and does not try again): what the library's docs tell an application to do
   * from `onconnect`. The old subscription is cancelled first so the session stops recovering it.
   */
  async resubscribe(): Promise<void> {
    const old = this.subscription;
    this.subscription = undefined;
    if (old) await bounded(old.cancel(), CANCEL_BOUND_MS, '').catch(() => undefined);
    if (!this.cancelled) await this.subscribe();
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
    });
  }
}
