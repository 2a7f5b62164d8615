/**
 * The client under test, as every suite sees it: one AMQP connection of one library, with the
 * library's own recovery (or the harness's loop, for a library without one), behind a few
 * operations — publish with or without confirms, consume with ack and prefetch, several
 * publishers and consumers on one connection, typed faults, and "wait until you are back".
 *
 * Queues, exchanges and bindings are the harness's business (declared over its own admin
 * connection before the client starts): the client under test only publishes and consumes, so
 * every library is measured doing the same work. Each library lives in its own folder under
 * src/client/, declared by its library.ts (a `ClientLibrary`) and listed in src/client/registry.ts.
 */
import type { AckSupport, ConsumeOptions, Consumer, Delivery, Publisher } from './channelApi';
import type { FaultKind, FaultWords } from './faults';

export type { ClientName } from './registry';

/**
 * `defaults`: the library as users get it (its own heartbeat, retry delays, timeouts).
 * `normalised`: the same harness settings for every library (NORMALISED_SETTINGS), so
 * differences come from the library, not from its defaults.
 */
export const CLIENT_PROFILES = ['defaults', 'normalised'] as const;
export type ClientProfile = (typeof CLIENT_PROFILES)[number];

/** Which client, with which settings: plain data, so a worker thread can build its own. */
export interface ClientSpec {
  /** A built-in client (CLIENT_NAMES in ./registry.ts), or the name an adapter from outside gives itself. */
  readonly name: string;
  readonly profile: ClientProfile;
  /** Absolute path of the adapter module of a client from outside (`--clients ./bench/myClient.ts`); absent for a built-in one. */
  readonly module?: string;
}

/** The client under test when nothing names one: amqplib with the harness's loop, its defaults (BENCH_CLIENTS' default too). */
export const DEFAULT_CLIENT: ClientSpec = Object.freeze({ name: 'amqplib', profile: 'defaults' });

/** The settings every library gets in the `normalised` profile. */
export interface NormalisedSettings {
  /** AMQP heartbeat in whole seconds. @default 5 (amqp-connection-manager's forced value) */
  readonly heartbeatSeconds: number;
  /** Delay before the first reconnection attempt. @default 100 */
  readonly firstRetryDelayMs: number;
  /** Cap of the delay between attempts. @default 1000 */
  readonly maxRetryDelayMs: number;
  /** TCP connect + AMQP handshake bound. @default 2000 */
  readonly connectTimeoutMs: number;
  /** TCP_NODELAY (Nagle off): small frames go out at once. @default true */
  readonly noDelay: boolean;
}

export const NORMALISED_SETTINGS: NormalisedSettings = Object.freeze({
  heartbeatSeconds: 5,
  firstRetryDelayMs: 100,
  maxRetryDelayMs: 1000,
  connectTimeoutMs: 2000,
  noDelay: true,
});

/** What a result says about the client that produced it. */
export interface ClientInfo {
  readonly name: string;
  readonly profile: ClientProfile;
  /** npm package measured, e.g. `rabbitmq-client`. */
  readonly library: string;
  /** Its installed version. */
  readonly version: string;
  /** The effective settings, in the library's own words (e.g. `retryLow: 1000`), `default` where the library decides. */
  readonly settings: Readonly<Record<string, string | number | boolean>>;
  /** Uses every URL of a list (failover across cluster nodes); false: only the first, said in the report. */
  readonly multipleHosts: boolean;
  /** Recovers by itself (the library reconnects and re-consumes) or through the harness's loop. */
  readonly recovery: 'library' | 'harness';
  /** How the library gives each typed signal (or that it does not). */
  readonly signals: SignalSupport;
  /** The adapter module of a client from outside (absent for a built-in one). */
  readonly module?: string;
}

export interface ConnectOptions {
  /** Broker URLs, first preferred; a client without multi-host support uses the first. */
  readonly urls: readonly string[];
  /** Shown by the broker as `connection_name` (a leak check finds the client's connections by it). */
  readonly connectionName?: string;
  /** Bound on the first connection (the harness's, whatever the library's own timeout). @default 10000 */
  readonly startBoundMs?: number;
}

export type { AckSupport, ConsumeOptions, Consumer, Delivery, PublishOptions, Publisher, PublishRunOutcome } from './channelApi';

export interface EnsureResult {
  /** Connection attempts since the fault (1 = the first worked; 0 = it never went down). */
  readonly attempts: number;
  /** Monotonic time the client could publish and consume again. */
  readonly connectedNs: bigint;
}

/** A fault as the client learned it: first event of a failed connection, timed in the handler. */
export interface ClientFault {
  readonly kind: FaultKind;
  readonly message: string;
  /** `process.hrtime.bigint()` when the library told us. */
  readonly detectedNs: bigint;
}

export type ConnectionState = 'up' | 'down' | 'closed';

/**
 * What a library tells about a connection that stays up, when it tells it: the broker closed one
 * of its channels (`channel_closed`, e.g. 404 NOT_FOUND), cancelled one of its consumers
 * (`consumer_cancelled`, basic.cancel), or blocked / unblocked its publishers (a resource alarm).
 */
export const SIGNAL_KINDS = ['channel_closed', 'consumer_cancelled', 'blocked', 'unblocked'] as const;
export type SignalKind = (typeof SIGNAL_KINDS)[number];

/** A typed signal as the client learned it, timed in the library's own event. */
export interface ClientSignal {
  readonly kind: SignalKind;
  /** The library's words (`NOT_FOUND - no exchange ...`, the blocked reason). */
  readonly message: string;
  /** `process.hrtime.bigint()` when the library told us. */
  readonly detectedNs: bigint;
}

/**
 * How a library gives each signal, in words (`connection 'blocked' event`), or `none: ...` saying
 * what it does instead: an adapter maps the library's own signals and never invents one.
 */
export type SignalSupport = Readonly<Record<SignalKind, string>>;

export interface ClientConnection {
  readonly info: ClientInfo;
  readonly state: ConnectionState;
  /** Local TCP port of the current socket (the proxy's record of the client side); undefined when the library hides it. */
  readonly localPort: number | undefined;
  /** Called once per failed connection, synchronously in the library's event; returns an unsubscribe function. */
  onFault(listener: (fault: ClientFault) => void): () => void;
  /** Called on every typed signal the library gives (channel closed, consumer cancelled, blocked, unblocked); returns an unsubscribe function. */
  onSignal(listener: (signal: ClientSignal) => void): () => void;
  /** A channel for publishing; re-created by the client after recovery. */
  publisher(options: { readonly confirms: boolean }): Promise<Publisher>;
  /** Consumes `queue` (declared by the harness); re-established by the client after recovery. */
  consume(queue: string, options: ConsumeOptions, onDelivery: (delivery: Delivery) => void): Promise<Consumer>;
  /**
   * Resolves once the connection and every publisher and consumer are back (at once when up).
   * A harness-recovered client reconnects here (bounded backoff); a library-recovered one is
   * waited for.
   * @throws TimeoutError when not back within `deadlineMs`
   */
  ensureConnected(deadlineMs: number): Promise<EnsureResult>;
  /** Kills the socket as a network fault would (a chaos kill, or a client-side deadline giving up). */
  destroy(reason: string): void;
  /** Closes politely, bounded; stops any recovery; safe to call twice. */
  close(): Promise<void>;
  /**
   * True once a close() did not end by itself: the adapter's bound cut the library's close short
   * (e.g. a library that waits for a blocked broker). A finding, where the harness looks for one.
   */
  readonly closeHitBound: boolean;
}

/**
 * A library adapter: what the registry knows of one client name. Built-in ones live under
 * src/client/; one from outside is the default export of a module in the user's project
 * (`--clients ./bench/myClient.ts`; `amqp-bench check-adapter` runs the contract against it).
 */
export interface ClientAdapter {
  /** How reports name the client (a built-in name, or a name of its own for one from outside). */
  readonly name: string;
  /** The npm package measured; its version is read from the installed package.json. */
  readonly library: string;
  /** The version to report, when the package.json of `library` is not the right answer (a wrapper of your own). */
  readonly version?: string;
  /** The profiles it supports. @default both */
  readonly profiles?: readonly ClientProfile[];
  readonly multipleHosts: boolean;
  readonly recovery: 'library' | 'harness';
  /** How the library gives each typed signal (or that it does not). */
  readonly signals: SignalSupport;
  /** Acknowledgement modes beyond a single ack its deliveries offer. @default neither */
  readonly acks?: AckSupport;
  /**
   * How many consumers of one queue a connection can have at once: `one` where the library keeps
   * a single subscription per queue per connection (its adapter refuses a second consume() of the
   * queue, saying why). @default 'many'
   */
  readonly consumersPerQueue?: 'one' | 'many';
  /**
   * How the library notices a silent peer, in words citing its source, when that is not the
   * protocol's heartbeat check (a peer silent for two intervals or longer); absent: it is. The
   * fault matrix's heartbeat judgement says it beside the figures.
   */
  readonly silenceCheck?: string;
  /** The settings a profile gives this library (reported as `ClientInfo.settings`). */
  settings(profile: ClientProfile): Readonly<Record<string, string | number | boolean>>;
  /**
   * The library's own connection options of a profile, as JSON, for the bare script of the
   * library (scripts/bare/<library>.js `open(url, options)`): the harness-overhead check runs both
   * sides with the same settings (Nagle, heartbeat, timeouts), so its ratio is the harness's cost
   * and not a difference of settings. Only what the library takes; nothing of the harness's
   * (connection names, recovery hooks).
   */
  bareOptions?(profile: ClientProfile): Readonly<Record<string, unknown>>;
  connect(profile: ClientProfile, options: ConnectOptions): Promise<ClientConnection>;
}

/** `rabbitmq-client (defaults)`: how a report names a client configuration. */
export function clientLabel(spec: Pick<ClientSpec, 'name' | 'profile'>): string {
  return `${spec.name} (${spec.profile})`;
}

/**
 * What one folder under src/client/ declares of its library, in its library.ts: the one
 * registration of a client library (src/client/registry.ts lists one per folder). It imports no
 * client library itself, so a library that is not installed costs nothing until it is asked for.
 */
export interface ClientLibrary<Name extends string = string> {
  /**
   * The npm packages the folder measures. Only the folder imports them (the import rule,
   * tests/client/importRule.test.ts, reads this list), and its clients are offered only where
   * they are installed.
   */
  readonly packages: readonly string[];
  /** Its clients (recovery styles) by name, in the order reports list them; each adapter loaded on first use. */
  readonly clients: { readonly [N in Name]: () => ClientAdapter };
  /**
   * The library's own codes and words for a failed connection, where the common reading
   * (`classifyFault` in ./faults.ts) finds nothing; the folder's code classifies through it too.
   */
  readonly faultWords?: FaultWords;
  /**
   * What this machine lacks to run the library's clients beyond npm packages (a runtime, a library
   * of another language) and how to install it, or undefined when nothing: its clients are then
   * left out of `all`, and naming one says this.
   */
  readonly missing?: () => string | undefined;
}

/** Types a folder's library.ts where it is written, keeping its client names as literals. */
export function defineClientLibrary<const Name extends string>(library: ClientLibrary<Name>): ClientLibrary<Name> {
  return library;
}
