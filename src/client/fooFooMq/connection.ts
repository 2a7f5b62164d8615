/**
 * One foo-foo-mq connection under test: a connection of its own name on foo-foo-mq's process-wide
 * broker. foo-foo-mq recovers by itself: its connection state machine reacts to amqplib's `error`
 * (`failed`), acquires the connection again after its wait (src/connectionFsm.js:335-362,
 * src/amqp/iomonad.js:281-289), re-acquires every channel and, on `reconnected`, checks and
 * subscribes its queues again (src/connectionFsm.js:87-114, src/topology.js:319-343); after
 * `retryLimit` consecutive failures or `failAfter` seconds it gives up for good (`unreachable`,
 * src/connectionFsm.js:335-343, :363-371). This class only listens: the fault at the state
 * machine's `failed`, "back" once it is `connected` and every consumer's queue said `subscribed`.
 */
import { BrokerError, TimeoutError } from '../../errors';
import { withinMs } from '../../measure/clock';
import { redactText } from '../../redact';
import type { ClientInfo, ClientProfile, ConsumeOptions, Consumer, Delivery, EnsureResult, Publisher } from '../api';
import { ConnectionBase } from '../connectionBase';
import { faultMessage, type FaultKind } from '../faults';
import { SocketWitness } from '../socketWitness';
import { FooFooMqConsumer, FooFooMqPublisher, type FooFooMqOwner } from './channels';
import { fooFooMqBroker, type FooFooMqConnectionFsm, type FooFooMqMonad, type Listening } from './fooFooMqApi';
import { fooFooMqFaultWords } from './library';
import { connectionOptionsOf } from './settings';

/** Bound on foo-foo-mq's close (it releases every queue and exchange first; some never release, see close()). */
const CLOSE_BOUND_MS = 2000;

/** Connections of this process still open: foo-foo-mq's ack tick is one interval for all (src/index.js:95, :496-501). */
let openConnections = 0;
let created = 0;
/** Which connection of this process consumes each queue: deliveries are dispatched by queue name, process-wide. */
const consumedQueues = new Map<string, FooFooMqConnection>();

export class FooFooMqConnection extends ConnectionBase implements FooFooMqOwner {
  readonly info: ClientInfo;
  readonly broker = fooFooMqBroker();
  protected override readonly faultWords = fooFooMqFaultWords;
  readonly name = `amqp-bench-${process.pid}-${(created += 1)}`;
  private fsm: FooFooMqConnectionFsm | undefined;
  private connectionMonad: FooFooMqMonad | undefined;
  private connectionUp = false;
  private gaveUp = false;
  private counted = false;
  private readonly listening: Listening[] = [];
  /** The channels watched, by name: their IO monad once getChannel handed it over. */
  private readonly channels = new Map<string, FooFooMqMonad | 'asked'>();
  private readonly exchanges = new Map<string, Promise<void>>();
  private readonly consumers = new Set<FooFooMqConsumer>();
  /** Queues whose subscription stopped on this connection: foo-foo-mq cannot start them again (see consume()). */
  private readonly stopped = new Set<string>();
  private readonly witness = new SocketWitness();

  constructor(info: ClientInfo) {
    super();
    this.info = info;
    this.current = 'down';
  }

  get localPort(): number | undefined {
    return this.witness.socket?.localPort;
  }

  /**
   * Adds the connection, bounded. foo-foo-mq's promise rejects at the first failed attempt (with
   * only the words "No endpoints could be reached", src/amqp/connection.js:163-180) while its state
   * machine goes on retrying: the caller closes it.
   * @throws BrokerError when the first attempt failed; TimeoutError when not connected within `boundMs`
   */
  async start(profile: ClientProfile, urls: readonly string[], connectionName: string | undefined, boundMs: number): Promise<void> {
    openConnections += 1;
    this.counted = true;
    const adding = this.witness.run(() => this.broker.addConnection(connectionOptionsOf(profile, urls, this.name, connectionName)));
    // The broker keeps the connection's topology as soon as it is asked for one (src/index.js:87-121).
    const fsm = this.broker.connections[this.name]?.connection;
    if (fsm === undefined) throw new BrokerError('foo-foo-mq: addConnection made no connection');
    this.fsm = fsm;
    this.listen(fsm);
    let failure: unknown;
    const outcome = await withinMs(
      adding.catch((error: unknown) => {
        failure = error ?? new Error('connection failed');
      }),
      boundMs,
    );
    if (!outcome) throw new TimeoutError(`foo-foo-mq did not connect within ${boundMs} ms`);
    if (failure !== undefined) throw new BrokerError(`foo-foo-mq could not connect: ${redactText(faultMessage(failure))}`);
    this.checkBack();
  }

  async publisher(options: { readonly confirms: boolean }): Promise<Publisher> {
    return new FooFooMqPublisher(options.confirms, this);
  }

  async consume(queue: string, options: ConsumeOptions, onDelivery: (delivery: Delivery) => void): Promise<Consumer> {
    this.refuseSecondConsumer(queue);
    const consumer = new FooFooMqConsumer(queue, options, onDelivery, this);
    this.consumers.add(consumer);
    consumedQueues.set(queue, this);
    try {
      // While down, the subscription waits in foo-foo-mq for the next connection.
      await consumer.start(this.current === 'up');
    } catch (error) {
      this.stopConsumer(consumer);
      throw error;
    }
    return {
      cancel: async () => {
        await consumer.cancel();
        this.stopConsumer(consumer);
        this.checkBack();
      },
    };
  }

  override ensureConnected(deadlineMs: number): Promise<EnsureResult> {
    if (this.gaveUp && this.current === 'down')
      return Promise.reject(
        new TimeoutError(
          `foo-foo-mq gave up after ${this.attemptsSinceFault} attempt(s) (unreachable: retryLimit or failAfter reached, src/connectionFsm.js:335-343) and makes no more (last fault: ${this.outage?.message ?? 'none'})`,
        ),
      );
    return this.waitForLibraryRecovery(deadlineMs);
  }

  destroy(reason: string): void {
    const error = new Error(`connection destroyed by the client: ${reason}`);
    this.reportFault(error, 'deadline');
    // With an error, so amqplib's socket handler runs and foo-foo-mq reconnects as after a network fault.
    this.witness.socket?.destroy(error);
  }

  /**
   * foo-foo-mq's `close(name, reset)`, bounded. It releases every queue and exchange the
   * connection ever had before closing the connection (src/connectionFsm.js:301-312), and some
   * never release: a default exchange replaced at a reconnection, which stays `closed` where
   * `release` has no handler (src/topology.js:324, src/exchangeFsm.js:219-232), and a connection
   * that gave up (`unreachable` has no `close`, src/connectionFsm.js:363-376). Then what it left is
   * let go as its own close would: the connection's and the watched channels' `release()` (each
   * stops its retries), its failAfter timer, the sockets, the broker's entry and its ack tick.
   */
  async close(): Promise<void> {
    if (this.current === 'closed') return;
    this.markClosed();
    for (const consumer of this.consumers) this.stopConsumer(consumer);
    for (const listening of this.listening.splice(0)) listening.unsubscribe();
    if (this.fsm !== undefined && !(await withinMs(this.broker.close(this.name, true), CLOSE_BOUND_MS))) this.noteCloseBoundHit();
    // Blocked, its close waits for the unconfirmed publishes, then closes once unblocked
    // (src/exchangeFsm.js:91-94, src/amqp/iomonad.js:235-256): left to it, since a release now
    // would fail that close later, a rejection nobody handles (src/connectionFsm.js:54-56).
    if (this.connectionMonad?.state === 'blocked') return this.forgetConnection();
    for (const monad of [this.connectionMonad, ...this.channels.values()])
      if (monad !== undefined && monad !== 'asked') void monad.release().catch(() => undefined);
    this.fsm?.clearConnectionTimeout();
    for (const socket of this.witness.open) socket.destroy(new Error('closed by the harness'));
    this.forgetConnection();
  }

  /** The broker's entry, and with the last connection of the process, its ack tick. */
  private forgetConnection(): void {
    delete this.broker.connections[this.name];
    if (this.counted) {
      this.counted = false;
      openConnections -= 1;
      if (openConnections === 0) this.broker.clearAckInterval();
    }
  }

  exchangeReady(exchange: string): Promise<void> {
    let ready = this.exchanges.get(exchange);
    if (ready === undefined) {
      // The default exchange is foo-foo-mq's own; a named one is checked (passive), never declared.
      ready =
        exchange === ''
          ? Promise.resolve()
          : this.broker.addExchange(exchange, 'direct', { passive: true }, this.name).then(() => undefined);
      this.exchanges.set(exchange, ready);
      ready.then(
        () => this.watchChannel(exchange, true),
        (error: unknown) => {
          this.exchanges.delete(exchange);
          // The broker refused the check (404) and closed that channel; foo-foo-mq forgets the exchange (src/topology.js:214-219).
          if (this.current === 'up') this.outside(() => this.reportSignal('channel_closed', error));
        },
      );
    }
    return ready;
  }

  consumerSubscribed(): void {
    this.checkBack();
  }

  watchChannel(name: string, confirm: boolean): void {
    if (this.channels.has(name) || this.fsm === undefined || this.current === 'closed') return;
    // The channel exists (its queue or exchange was defined on it): getChannel hands the same one back.
    this.channels.set(name, 'asked');
    this.fsm.getChannel(name, confirm, 'amqp-bench: watched for its errors').then(
      (monad) => {
        if (this.current === 'closed') return;
        this.channels.set(name, monad);
        this.listening.push(monad.on('failed', (error) => this.outside(() => this.channelFailed(error))));
      },
      () => undefined,
    );
  }

  outside<T>(callback: () => T): T {
    return SocketWitness.outside(callback);
  }

  /** A channel's `failed` with an error is amqplib's channel `error` (the broker's channel.close) while the connection stays; one without is a failed re-acquisition. */
  private channelFailed(error: unknown): void {
    if (error !== undefined && error !== null && this.current === 'up') this.reportSignal('channel_closed', error);
  }

  private listen(fsm: FooFooMqConnectionFsm): void {
    const on = (event: string, listener: (data: unknown) => void) =>
      this.listening.push(fsm.on(event, (data) => this.outside(() => listener(data))));
    // The first `failed` of an outage carries amqplib's error; each failed attempt after it says `failed` again, without one.
    on('failed', (error) => this.lost(error ?? new Error('connection failed')));
    // `connecting` with no `failed` before it: amqplib closed the connection without an `error`
    // (src/connectionFsm.js:270-272), as its 0.8 does for the broker's 320 (lib/connection.js:86-97,
    // :636-644); the reason is the connection monad's, whose `closed` event this `connecting` answers.
    on('connecting', () => {
      const reason = this.connectionMonad?.closeReason;
      if (this.current === 'up') this.lost(reason ?? new Error('connection closed without an error'), reason ? undefined : 'closed');
      else if (this.outage) this.attemptsSinceFault += 1;
    });
    on('connected', (monad) => {
      this.connectionUp = true;
      this.watchConnection(monad as FooFooMqMonad);
      this.checkBack();
    });
    on('unreachable', () => {
      this.gaveUp = true;
      this.lost(new Error('foo-foo-mq gave up: unreachable'));
    });
  }

  private lost(error: unknown, kind?: FaultKind): void {
    this.connectionUp = false;
    for (const consumer of this.consumers) consumer.consuming = false;
    this.reportFault(error, kind);
  }

  /** The connection's IO monad (the same one for every reconnection) passes amqplib's blocked / unblocked on (src/amqp/iomonad.js:97-107). */
  private watchConnection(monad: FooFooMqMonad): void {
    if (this.connectionMonad !== undefined || monad === undefined) return;
    this.connectionMonad = monad;
    // foo-foo-mq emits both without amqplib's reason.
    this.listening.push(
      monad.on('blocked', () => this.outside(() => this.current !== 'closed' && this.reportSignal('blocked', 'blocked'))),
    );
    this.listening.push(
      monad.on('unblocked', () => this.outside(() => this.current !== 'closed' && this.reportSignal('unblocked', undefined))),
    );
  }

  private checkBack(): void {
    if (this.current !== 'down' || !this.connectionUp) return;
    for (const consumer of this.consumers) if (!consumer.consuming) return;
    this.reportBack();
  }

  /**
   * foo-foo-mq has one subscription per queue per connection, and starting one again after it
   * stopped never settles: the queue's state machine stays `subscribed`, which has no `subscribe`
   * (src/queueFsm.js:457-480; its docs say to avoid stopping and starting, docs/receiving.md:197-198).
   * Deliveries are dispatched by queue name to every handler of the process (src/index.js:276-313,
   * src/amqp/queue.js:436-443), so a second connection consuming the same queue would get the first's too.
   */
  private refuseSecondConsumer(queue: string): void {
    const holder = consumedQueues.get(queue);
    const reason =
      holder === this
        ? 'foo-foo-mq keeps one subscription per queue per connection (src/topology.js:187-197, src/amqp/queue.js:340-344): a second consumer of one queue on one connection is not possible'
        : holder !== undefined
          ? "another foo-foo-mq connection of this process consumes it: foo-foo-mq dispatches deliveries by queue name to every handler of the process (src/index.js:276-313, src/amqp/queue.js:436-443), so each would get the other's deliveries"
          : this.stopped.has(queue)
            ? 'its subscription on this connection was stopped, and foo-foo-mq cannot start it again (startSubscription never settles: src/queueFsm.js:457-480)'
            : undefined;
    if (reason !== undefined) throw new Error(`foo-foo-mq: cannot consume ${queue}: ${reason}`);
  }

  private stopConsumer(consumer: FooFooMqConsumer): void {
    consumer.forget();
    this.consumers.delete(consumer);
    // A queue whose check failed is forgotten by foo-foo-mq (src/topology.js:214-219), and can be consumed again.
    if (this.broker.getQueue(consumer.queue, this.name) !== undefined) this.stopped.add(consumer.queue);
    if (consumedQueues.get(consumer.queue) === this) consumedQueues.delete(consumer.queue);
  }
}
