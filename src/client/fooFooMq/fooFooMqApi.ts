/**
 * The part of foo-foo-mq 8's API the adapter uses, declared here and loaded only when a foo-foo-mq
 * client is asked for: the package is optional, so the project type-checks and builds without it.
 * Read from its source (src/index.js, the broker; src/topology.js; src/connectionFsm.js; the state
 * machines of src/queueFsm.js and src/amqp/iomonad.js, each a machina FSM with node-monologue's
 * `on` / `emit`).
 */

/** node-monologue's (and postal's) answer to `on`: how to stop listening. */
export interface Listening {
  unsubscribe(): void;
}

/** A machina state machine with node-monologue's events (a connection, a queue, a channel). */
export interface FooFooMqEmitter {
  readonly state: string;
  on(event: string, listener: (data: unknown) => void): Listening;
}

/**
 * An amqplib connection or channel behind foo-foo-mq's IO monad (src/amqp/iomonad.js): it
 * acquires it again by itself after an `error` (`failed`), and only its `release()` stops that.
 */
export interface FooFooMqMonad extends FooFooMqEmitter {
  /**
   * What amqplib's `close` gave (its error: a 320 from the broker is a close, not an `error`, to
   * amqplib 0.8): set while the monad's `closed` event is emitted, cleared after it
   * (src/amqp/iomonad.js:228-233, :257-264).
   */
  readonly closeReason?: unknown;
  release(): Promise<void>;
}

/** The connection's state machine (src/connectionFsm.js), `topology.connection`. */
export interface FooFooMqConnectionFsm extends FooFooMqEmitter {
  /** The IO monad of channel `name`: the existing one, or a new one when none is open (topology.js uses it so). */
  getChannel(name: string, confirm: boolean, context: string): Promise<FooFooMqMonad>;
  /** Stops the `failAfter` timer (set while failed or connecting, src/connectionFsm.js:172-178). */
  clearConnectionTimeout(): void;
}

/** What `addConnection` resolves with (src/topology.js). */
export interface FooFooMqTopology {
  readonly connection: FooFooMqConnectionFsm;
}

/** A queue's state machine (src/queueFsm.js), `broker.getQueue(name, connectionName)`. */
export interface FooFooMqQueueFsm extends FooFooMqEmitter {
  /** basic.cancel of its subscription; rejects when none is active. */
  unsubscribe(): Promise<unknown>;
}

/** A delivery as a handler gets it: amqplib's message, with foo-foo-mq's resolution operations (src/amqp/queue.js:353-357). */
export interface FooFooMqMessage {
  readonly content: Buffer;
  readonly fields: { readonly redelivered: boolean; readonly deliveryTag: number };
  /** Batched (sent with the next ack tick) unless the queue is `noBatch`; a no-op with `noAck`. */
  ack(): void;
  /** basic.nack, requeued. */
  nack(): void;
  /** basic.nack without requeue. */
  reject(): void;
}

/** The process-wide broker the package exports (src/index.js:551-553): one object, every connection by name. */
export interface FooFooMqBroker {
  readonly connections: Record<string, FooFooMqTopology | undefined>;
  addConnection(options: Readonly<Record<string, unknown>>): Promise<FooFooMqTopology>;
  addExchange(name: string, type: string, options: Record<string, unknown>, connectionName: string): Promise<unknown>;
  addQueue(name: string, options: Record<string, unknown>, connectionName: string): Promise<unknown>;
  getQueue(name: string, connectionName: string): FooFooMqQueueFsm | undefined;
  /** A handler for the deliveries of `queue` whose type (or routing key) matches `type` (postal's topic rules; '#' when absent). */
  handle(options: {
    readonly queue: string;
    readonly type?: string;
    readonly autoNack: boolean;
    readonly handler: (message: FooFooMqMessage) => void;
  }): Listening;
  startSubscription(queue: string, exclusive: boolean, connectionName: string): Promise<unknown>;
  publish(exchange: string, message: Readonly<Record<string, unknown>>, connectionName: string): Promise<unknown>;
  close(connectionName: string, reset: boolean): Promise<unknown>;
  clearAckInterval(): void;
}

/** The installed package (loaded here, only when a foo-foo-mq client is asked for). */
export function fooFooMqBroker(): FooFooMqBroker {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- an optional package: declared above, loaded on first use
  return require('foo-foo-mq') as FooFooMqBroker;
}
