/**
 * Publishers and consumers on rascal's own publications and subscriptions. A publish borrows a
 * channel of the vhost's pool (plain or confirm, up to 5 each): while the connection is down the
 * pool's queue is paused, so a publish waits there, with no bound, until the vhost reconnects
 * (lib/amqp/Vhost.js:272-283, 422-436). A consumer is one `broker.subscribe` session on a channel
 * of its own, which rascal subscribes again after a connection or channel error and after a
 * broker's cancel (lib/amqp/Subscription.js:302-334).
 */
import type { ConsumeMessage } from 'amqplib';
import { nowNs } from '../../measure/clock';
import type { ClientFault, ConsumeOptions, Consumer, Delivery, Publisher, PublishOptions } from '../api';
import { bounded } from '../bounded';
import { amqplibFaultWords } from '../amqplib/library';
import { faultErrorOf } from '../faults';
import { type ClientFaultError, PublishNackedError } from '../types';
import type { AckOrNack, RascalBroker, RascalMessageListener, RascalPoolStats, RascalSubscriberSession } from './rascalApi';
import { CONFIRMED_PUBLICATION, PLAIN_PUBLICATION, SUBSCRIPTION } from './settings';

/** What a publisher or consumer needs from its connection. */
export interface RascalOwner {
  readonly broker: RascalBroker;
  /** The fault of the current outage, or undefined when up. */
  readonly currentFault: ClientFault | undefined;
  /** A subscription's session reported an error (its channel closed, or the connection's error reached it). */
  subscriptionError(error: unknown): void;
  /** A publication session reported an error (a nack, a timeout, its channel's or the connection's error). */
  publicationError(error: unknown): void;
  /** The broker cancelled a subscription (rascal's 'cancelled' event). */
  subscriptionCancelled(error: unknown): void;
  /** Runs a harness callback outside the connection's socket watch (src/client/socketWitness.ts). */
  outside<T>(callback: () => T): T;
  /** Whether rascal said 'busy' of this channel pool and not 'ready' since (its back-pressure signal). */
  poolBusy(mode: RascalPoolStats['mode']): boolean;
}

/** A server-side exchange that always exists; a confirmed publish there with an unmatched key is a round trip that routes nowhere. */
const ALWAYS_THERE = 'amq.direct';
const ROUTES_NOWHERE = 'bench.flush.routes-nowhere';
/** amqplib's confirm callback error for a basic.nack, which rascal passes on. */
const NACKED = 'message nacked';
/** Bound on a consumer's first subscription (`consume()` while up) and on its cancel. */
const SUBSCRIBE_BOUND_MS = 10_000;
const CANCEL_BOUND_MS = 1500;

/** `error` as the ClientFaultError a caller gets: the outage's kind and time when the connection is down. */
function faultError(owner: RascalOwner, what: string, error: unknown): ClientFaultError {
  return faultErrorOf(owner.currentFault, what, error, amqplibFaultWords);
}

/**
 * `publish` is `broker.publish(publication, body, overrides)` on a plain or a confirmed
 * publication of the default exchange (the routing key, and a named exchange as `destination`,
 * given per publish). It settles on the session's first 'success' (plain: written to the
 * channel; confirms: the broker's ack), 'error' (a nack, the confirm timeout, a channel or
 * connection error) or 'close'.
 */
export class RascalPublisher implements Publisher {
  private readonly pending = new Set<Promise<void>>();

  constructor(
    readonly confirms: boolean,
    private readonly owner: RascalOwner,
  ) {}

  publish(exchange: string, routingKey: string, body: Buffer, options: PublishOptions = {}): Promise<void> {
    const name = this.confirms ? CONFIRMED_PUBLICATION : PLAIN_PUBLICATION;
    const sent = this.send(name, body, {
      routingKey,
      ...(exchange === '' ? {} : { destination: exchange }),
      options: { persistent: options.persistent ?? false },
    });
    this.pending.add(sent);
    const forget = () => void this.pending.delete(sent);
    void sent.then(forget, forget);
    return sent;
  }

  /**
   * Every publish so far settled, then (plain) one confirmed publish that routes nowhere: a round
   * trip behind the messages. rascal spreads plain publishes over its pool's channels, so this
   * round trip is on another channel of the same connection (the broker reads one socket in order).
   */
  async flush(boundMs: number): Promise<void> {
    const flushed = (async () => {
      await Promise.all([...this.pending]);
      if (!this.confirms)
        await this.send(CONFIRMED_PUBLICATION, Buffer.alloc(0), {
          destination: ALWAYS_THERE,
          routingKey: ROUTES_NOWHERE,
          options: { persistent: false, mandatory: false },
        });
    })();
    await bounded(flushed, boundMs, `flush: the broker did not take every message within ${boundMs} ms`);
  }

  /**
   * rascal's own back-pressure signal: the broker's 'busy' (as many channel requests waiting in
   * this publication's pool as the pool has channels: lib/amqp/Vhost.js:272-277), until its 'ready'
   * (the queue empty again, :305-309). A confirmed publish holds its channel until the broker's
   * confirm (lib/amqp/Publication.js:106-117, 244-256), so a broker that stops reading fills the queue.
   */
  writesHeld(): boolean {
    return this.owner.poolBusy(this.confirms ? 'confirm' : 'regular');
  }

  /** The pool's channels are the vhost's, closed with the broker: nothing of this publisher's own to close. */
  async close(): Promise<void> {
    await Promise.allSettled([...this.pending]);
  }

  private send(publication: string, body: Buffer, overrides: Readonly<Record<string, unknown>>): Promise<void> {
    const what = this.confirms || publication === CONFIRMED_PUBLICATION ? 'publish not confirmed' : 'publish failed';
    return new Promise<void>((resolve, reject) => {
      const fail = (error: unknown) => {
        this.owner.outside(() => this.owner.publicationError(error));
        if (error instanceof Error && error.message === NACKED && !this.owner.currentFault)
          reject(new PublishNackedError('publish not confirmed: the broker nacked it (basic.nack)', nowNs(), { cause: error }));
        else reject(faultError(this.owner, what, error));
      };
      this.owner.broker.publish(publication, body, overrides).then((session) => {
        session.once('success', () => resolve());
        // 'error' may come twice (the channel's error, then the publish callback's): a listener stays for each.
        session.on('error', (error: unknown) => fail(error));
        session.once('close', () => fail(new Error('channel closed')));
      }, fail);
    });
  }
}

/**
 * One subscription session per consumer: `broker.subscribe` with the queue as its `source`, the
 * prefetch and no-ack of the consumer; rascal consumes once a 'message' listener is added and
 * emits 'subscribed' (only the first time).
 */
export class RascalConsumer implements Consumer {
  private session: RascalSubscriberSession | undefined;

  constructor(
    private readonly queue: string,
    private readonly options: ConsumeOptions,
    private readonly onDelivery: (delivery: Delivery) => void,
    private readonly owner: RascalOwner,
  ) {}

  /** Subscribes; resolves once rascal says 'subscribed' (bounded), or at once while the connection is down (rascal subscribes on its return). */
  async start(waitForSubscribed: boolean): Promise<void> {
    const noAck = this.options.ack === 'auto';
    const session = await this.owner.broker.subscribe(SUBSCRIPTION, {
      source: this.queue,
      queue: this.queue,
      prefetch: noAck ? 0 : (this.options.prefetch ?? 0),
      options: { noAck },
    });
    this.session = session;
    let firstError: unknown;
    session.on('error', (error: unknown) => {
      firstError ??= error;
      this.owner.outside(() => this.owner.subscriptionError(error));
    });
    session.on('cancelled', (error: unknown) => this.owner.outside(() => this.owner.subscriptionCancelled(error)));
    const subscribed = new Promise<void>((resolve, reject) => {
      session.once('subscribed', () => resolve());
      session.once('error', (error: unknown) => reject(error instanceof Error ? error : new Error(String(error))));
    });
    subscribed.catch(() => undefined);
    const listener: RascalMessageListener = (message, _content, ackOrNack) =>
      this.owner.outside(() => this.deliver(message, ackOrNack, noAck));
    session.on('message', listener);
    if (waitForSubscribed) {
      await bounded(
        subscribed,
        SUBSCRIBE_BOUND_MS,
        `rascal: the subscription to ${this.queue} was not consuming within ${SUBSCRIBE_BOUND_MS} ms`,
      ).catch((error: unknown) => {
        throw faultError(this.owner, `subscribe to ${this.queue} failed`, firstError ?? error);
      });
    }
  }

  async cancel(): Promise<void> {
    const session = this.session;
    if (session === undefined) return;
    await bounded(session.cancel(), CANCEL_BOUND_MS, '').catch(() => undefined);
  }

  private deliver(message: ConsumeMessage, ackOrNack: AckOrNack, noAck: boolean): void {
    // rascal acks on the channel the delivery came from, and says so in the callback when that
    // channel is gone (the broker has requeued the delivery anyway): nothing to do then.
    const settled = () => undefined;
    this.onDelivery({
      body: message.content,
      redelivered: message.fields.redelivered,
      ack: noAck ? () => undefined : () => ackOrNack(undefined, undefined, settled),
      nack: noAck ? () => undefined : (requeue) => ackOrNack(new Error('rejected by the consumer'), { strategy: 'nack', requeue }, settled),
    });
  }
}
