/**
 * Publishers and consumers through foo-foo-mq's own broker API. A publish is `broker.publish` on
 * the exchange's state machine, which has a confirm channel of its own (the default exchange's is
 * made with the connection, src/topology.js:97, :225-227; a named one is added passively here on
 * first use, checked and never declared): every publish waits for its confirm. A consumer is
 * `addQueue` (passive: the queue is checked, never declared), two `handle` registrations (its
 * deliveries are dispatched by topic, `<queue>.<type or routing key>`, src/amqp/queue.js:364-443)
 * and `startSubscription`; foo-foo-mq checks and subscribes the queue again after a reconnection
 * (src/topology.js:319-343, src/queueFsm.js:180-185, :139-141).
 */
import type { ClientFault, ConsumeOptions, Consumer, Delivery, Publisher, PublishOptions } from '../api';
import { bounded } from '../bounded';
import { faultErrorOf } from '../faults';
import { type ClientFaultError } from '../types';
import type { FooFooMqBroker, FooFooMqMessage, FooFooMqQueueFsm, Listening } from './fooFooMqApi';
import { fooFooMqFaultWords } from './library';

/** What a publisher or consumer needs from its connection. */
export interface FooFooMqOwner {
  readonly broker: FooFooMqBroker;
  /** foo-foo-mq's name of the connection (the broker's key), not the broker-side connection_name. */
  readonly name: string;
  readonly state: 'up' | 'down' | 'closed';
  /** The fault of the current outage, or undefined when up. */
  readonly currentFault: ClientFault | undefined;
  /** The exchange is known to foo-foo-mq on this connection (added passively the first time). */
  exchangeReady(exchange: string): Promise<void>;
  /** A queue's subscription is consuming (again): its queue state machine said `subscribed`. */
  consumerSubscribed(): void;
  /** A channel's name to watch once its state machine is defined (channel_closed signals, release at close). */
  watchChannel(name: string, confirm: boolean): void;
  /** Runs a harness callback outside the connection's socket watch (src/client/socketWitness.ts). */
  outside<T>(callback: () => T): T;
}

/** Bound on a consumer's first subscription (`consume()` while up) and on its cancel. */
const SUBSCRIBE_BOUND_MS = 10_000;
const CANCEL_BOUND_MS = 1500;

/** `error` as the ClientFaultError a caller gets: the outage's kind and time when the connection is down. */
export function faultError(owner: FooFooMqOwner, what: string, error: unknown): ClientFaultError {
  // An exchange whose channel closed rejects its publishes with no reason at all (src/exchangeFsm.js:205-207, :222).
  const message = error instanceof Error ? error.message : (error ?? "the exchange's channel closed").toString();
  return faultErrorOf(owner.currentFault, what, error, fooFooMqFaultWords, message);
}

/**
 * `publish` is `broker.publish(exchange, { routingKey, body, persistent }, connection)`: it waits
 * for the exchange to be ready (while the connection is down, until it is back) and resolves on
 * the broker's confirm. A plain publisher is no different: foo-foo-mq has no unconfirmed publish
 * on the default exchange, whose options it sets itself.
 */
export class FooFooMqPublisher implements Publisher {
  private readonly pending = new Set<Promise<void>>();

  constructor(
    readonly confirms: boolean,
    private readonly owner: FooFooMqOwner,
  ) {}

  publish(exchange: string, routingKey: string, body: Buffer, options: PublishOptions = {}): Promise<void> {
    const sent = this.owner
      .exchangeReady(exchange)
      .then(() => this.owner.broker.publish(exchange, { routingKey, body, persistent: options.persistent ?? false }, this.owner.name))
      .then(
        () => undefined,
        (error: unknown) => {
          throw faultError(this.owner, 'publish not confirmed', error);
        },
      );
    this.pending.add(sent);
    const forget = () => void this.pending.delete(sent);
    void sent.then(forget, forget);
    return sent;
  }

  /** Every publish so far confirmed (foo-foo-mq confirms each one). */
  async flush(boundMs: number): Promise<void> {
    await bounded(Promise.all([...this.pending]), boundMs, `flush: the broker did not confirm every message within ${boundMs} ms`);
  }

  /** The exchanges' channels are the connection's: nothing of this publisher's own to close. */
  async close(): Promise<void> {
    await Promise.allSettled([...this.pending]);
  }
}

/**
 * One subscription of one queue on one connection: foo-foo-mq keeps one queue state machine (and
 * one channel) per queue name per connection (src/topology.js:187-197) and ignores a second
 * consume on that channel (src/amqp/queue.js:340-344). Deliveries come through the process-wide
 * dispatch by topic: a handler for `<queue>.#` and one for `<queue>` alone (a message with no
 * type and an empty routing key; postal's `#` does not match an empty tail).
 */
export class FooFooMqConsumer implements Consumer {
  private handlers: Listening[] = [];
  private queueFsm: FooFooMqQueueFsm | undefined;
  private listening: Listening | undefined;
  /** Said `subscribed` since the last fault (consuming). */
  consuming = false;
  cancelled = false;

  constructor(
    readonly queue: string,
    private readonly options: ConsumeOptions,
    private readonly onDelivery: (delivery: Delivery) => void,
    private readonly owner: FooFooMqOwner,
  ) {}

  /** Subscribes; resolves once foo-foo-mq says `subscribed` (bounded), or at once while the connection is down (it subscribes when back). */
  async start(waitForSubscribed: boolean): Promise<void> {
    const { broker, name } = this.owner;
    const noAck = this.options.ack === 'auto';
    const prefetch = noAck ? 0 : (this.options.prefetch ?? 0);
    const defined = broker.addQueue(this.queue, { passive: true, noAck, ...(prefetch > 0 ? { limit: prefetch } : {}) }, name);
    // The queue's state machine exists as soon as addQueue was called (src/topology.js:196-199).
    this.queueFsm = broker.getQueue(this.queue, name);
    this.listening = this.queueFsm?.on('subscribed', () => {
      this.consuming = true;
      this.owner.consumerSubscribed();
    });
    const handler = (message: FooFooMqMessage) => this.owner.outside(() => this.deliver(message, noAck));
    this.handlers = [
      broker.handle({ queue: this.queue, autoNack: false, handler }),
      broker.handle({ queue: this.queue, type: '', autoNack: false, handler }),
    ];
    const subscribed = defined.then(() => broker.startSubscription(this.queue, false, name));
    void defined.then(
      () => this.owner.watchChannel(`queue:${this.queue}`, false),
      () => this.owner.watchChannel(`queue:${this.queue}`, false),
    );
    if (!waitForSubscribed) {
      subscribed.catch(() => undefined);
      return;
    }
    await bounded(
      subscribed,
      SUBSCRIBE_BOUND_MS,
      `foo-foo-mq: the subscription to ${this.queue} was not consuming within ${SUBSCRIBE_BOUND_MS} ms`,
    ).catch((error: unknown) => {
      this.forget();
      throw faultError(this.owner, `subscribe to ${this.queue} failed`, error);
    });
  }

  /** basic.cancel through the queue's state machine; its deliveries from then on are foo-foo-mq's unhandled ones (nacked, requeued). */
  async cancel(): Promise<void> {
    if (this.cancelled) return;
    this.forget();
    const stopped = this.queueFsm?.unsubscribe();
    if (stopped) await bounded(stopped, CANCEL_BOUND_MS, '').catch(() => undefined);
  }

  /** Stops listening (at cancel, at close). */
  forget(): void {
    this.cancelled = true;
    for (const handler of this.handlers.splice(0)) handler.unsubscribe();
    this.listening?.unsubscribe();
  }

  private deliver(message: FooFooMqMessage, noAck: boolean): void {
    if (this.cancelled) return;
    this.onDelivery({
      // The bytes as they came: foo-foo-mq's `body` is what its serializer for the content type made of them.
      body: message.content,
      redelivered: message.fields.redelivered,
      ack: noAck ? () => undefined : () => message.ack(),
      nack: noAck ? () => undefined : (requeue) => (requeue ? message.nack() : message.reject()),
    });
  }
}
