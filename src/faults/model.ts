/**
 * THE fault model: every fault the harness injects — a proxy toxic, a broker action, a node
 * action — is one `FaultDefinition` (one file in src/faults/kinds/, registered in
 * kinds/registry.ts), and every suite injects it through the same `Fault` handle: `prepare`
 * (before the clients connect), `inject`, `remove` (idempotent), and the record of its own
 * moment (moments.ts): exact when the proxy's timeline saw it act on a connection (an RST sent, a
 * chunk dropped, a connection.close frame passing), otherwise the start of the call that injected
 * it, labelled an upper bound.
 */
import type { ClientProfile } from '../client/api';
import type { ReceivedKind } from '../client/faults';
import type { Bracket } from '../measure/clock';
import type { ProxyTarget, Removal } from './toxics';
import type { FaultEvent } from './toxiproxyClient';

/** What a fault acts on, as a result records it (plain data). */
export type FaultTarget =
  | { readonly type: 'proxy_entry'; readonly name: string }
  | { readonly type: 'connections'; readonly name_prefix: string; readonly node: string }
  | { readonly type: 'exchange'; readonly name: string; readonly node: string }
  | { readonly type: 'queue'; readonly name: string; readonly node: string }
  | { readonly type: 'node'; readonly name: string }
  | { readonly type: 'cluster'; readonly nodes: readonly string[] };

/**
 * How a fault was put in place: a toxic `added` while clients were connected or `armed` before
 * they connected and fired now (real Toxiproxy sends a true RST only then); a `broker_action`
 * (a CLI or AMQP call to the broker); a `node_action` (a signal to the node, a stop, a start).
 */
export type InjectionMode = 'added' | 'armed' | 'broker_action' | 'node_action';

export interface Injection {
  /** Monotonic time around the call(s) that made the fault act. */
  readonly bracket: Bracket;
  readonly mode: InjectionMode;
}

/** One moment a fault hit a target (a node killed, stopped, paused; a connection closed). */
export interface FaultHit {
  readonly target: string;
  readonly action: string;
  /** When the action started. */
  readonly atNs: bigint;
  readonly bracket: Bracket;
}

/** What undoing a fault took besides the hit (a restart, a heal), and what went wrong. */
export interface FaultStep {
  readonly target: string;
  readonly step: string;
  readonly bracket: Bracket;
  readonly problem?: string;
}

/** What removing a fault did: a toxic's removal method, or `undone` for a broker or node action. */
export interface FaultRemoval extends Bracket {
  readonly method: Removal['method'] | 'undone' | 'nothing_to_undo';
  /** What could not be undone (a node that did not come back); empty when all is back. */
  readonly problems: readonly string[];
}

/** One injected fault, from preparation to removal. */
export interface Fault {
  readonly kind: string;
  readonly definition: FaultDefinition;
  readonly target: FaultTarget;
  /** The options it runs with, as results record them (`{ timeout_ms: 0 }`). */
  readonly parameters: Readonly<Record<string, string | number | boolean>>;
  /** The Toxiproxy toxic type(s) a proxy fault is made of (`timeout` for a partition); absent for other faults. */
  readonly toxic?: string;
  /** Every hit so far (one for most faults; one per node for a rolling restart). */
  readonly hits: readonly FaultHit[];
  readonly steps: readonly FaultStep[];
  /** Before the clients connect (a toxic armed at toxicity 0); nothing for most faults. */
  prepare(): Promise<void>;
  /** Makes the fault act now. */
  inject(): Promise<Injection>;
  /** Undoes it (bounded); the second call returns the first call's result. */
  remove(): Promise<FaultRemoval>;
}

/**
 * What a fault may be aimed at: each definition takes what it needs and says clearly what is
 * missing (`broker_close needs the clients' connection-name prefix`).
 */
export interface FaultContext {
  /** The proxy entry the clients connect through. */
  readonly proxy?: ProxyTarget;
  /** Actions on the broker the clients use (close named connections, delete and restore topology, alarms). */
  readonly broker?: BrokerActions;
  /** Prefix of the connection names of the clients under test (`connection_name`). */
  readonly connectionNamePrefix?: string;
  /** The exchange the clients publish to. */
  readonly exchange?: string;
  /** The queues the clients consume. */
  readonly queues?: readonly string[];
  /** A node of the harness's own (a cluster node, or the node started for alarms and pauses). */
  readonly node?: NodeActions;
  /** Every node, in restart order (a rolling restart). */
  readonly nodes?: readonly NodeActions[];
  readonly log?: (line: string) => void;
}

/** What a fault may do to a broker (src/broker/actions.ts). */
export interface BrokerActions {
  /** The node, as results name it (`rabbit@localhost`). */
  readonly node: string;
  /** Closes every connection whose `connection_name` starts with `prefix` (connection.close 320); returns their names. */
  closeConnections(prefix: string, reason: string): Promise<string[]>;
  deleteExchange(name: string): Promise<void>;
  /** Declares it again as it was, with its bindings. */
  restoreExchange(name: string): Promise<void>;
  deleteQueue(name: string): Promise<void>;
  restoreQueue(name: string): Promise<void>;
  /**
   * Raises (true) or clears (false) a memory alarm: publishers are blocked (connection.blocked).
   * @throws BrokerError on a node that is not the harness's own (the shared broker is never alarmed)
   */
  setMemoryAlarm(raised: boolean): Promise<void>;
}

/** What a fault may do to one node of the harness's own (never the shared broker on 5672). */
export interface NodeActions {
  readonly name: string;
  /** The proxy entry its clients connect through, when there is one (a node partition cuts it). */
  readonly proxy?: ProxyTarget;
  kill(): Promise<Bracket>;
  /** SIGSTOP of its VM: the node stays connected and says nothing. */
  pause(): Promise<Bracket>;
  /** SIGCONT. */
  resume(): Promise<Bracket>;
  /** A graceful stop (clients get connection.close 320). */
  stop(): Promise<{ readonly bracket: Bracket; readonly problem?: string }>;
  /** Starts it again and waits until it serves (bounded). */
  restart(): Promise<Bracket>;
  /** Whether its VM runs. */
  running(): boolean;
  /** Waits until no quorum queue depends on it (RabbitMQ's own check); returns the last problem if it never passed. */
  untilNotQuorumCritical(boundMs: number): Promise<string | undefined>;
}

/** Options as read from a command line or a workload file (`latency:200ms` -> `{ latency_ms: 200 }`). */
export type FaultOptions = Readonly<Record<string, number | string | boolean>>;

/** One kind of fault: what it is, how to tell its moment, how to build one. */
export interface FaultDefinition<Options extends FaultOptions = FaultOptions> {
  /** `reset_peer`, `broker_close`, ... (the name in results, flags and workload files). */
  readonly kind: string;
  /** Short, for tables: `TCP reset`, `Broker closes the connection`. */
  readonly label: string;
  /** Where it is injected. */
  readonly layer: 'network' | 'broker' | 'node';
  /**
   * The broker it can be injected on: `shared`, the shared broker (it acts in the proxy, or on the
   * harness's own connections and queues only); `own_node`, a node the harness starts for it (it
   * affects every client of the node: an alarm, a paused or killed node); `cluster`, the benchmark
   * cluster (it needs several nodes).
   */
  readonly broker: 'shared' | 'own_node' | 'cluster';
  /** What it does to a client, in one sentence (docs and `--help`). */
  readonly description: string;
  /** The argument `--fault KIND:ARG` takes, for help texts; null when it takes none. */
  readonly argument: string | null;
  readonly defaults: Options;
  /** Options from `--fault KIND:ARG`'s argument. @throws ConfigError saying what the argument must be */
  parse(argument: string | undefined): Options;
  /** Timeline events that are this fault acting on a connection (its exact moments). */
  acted(event: FaultEvent): boolean;
  /** The acting moment in words, for the reference: `first RST sent`. */
  readonly actedWords: string;
  /**
   * The proxy's timeline records nothing of it acting (a toxic that only slows the data): no
   * acted connection on the timeline is then no sign that it was not injected.
   */
  readonly actsUnrecorded?: boolean;
  /** What a client that noticed it received, when the fault models one kind; null when several are legitimate. */
  readonly expected: ReceivedKind | null;
  /** Acts on the next data in its direction: a scenario sends traffic right after injecting. */
  readonly actsOnData: boolean;
  /**
   * Messages the fault itself destroys, in words (`the queue is deleted with its messages`): a
   * confirmed message published before the fault was undone and never delivered is the fault's
   * loss, not the client's. Absent: the fault destroys none.
   */
  readonly destroysMessages?: string;
  /**
   * Timeline events that are the fault's removal reaching a connection (the broker's
   * connection.unblocked, the toxic's removal closing what it held): recovery is timed from them,
   * exactly. Absent: from the start of the call that undid it (an upper bound), or, for a fault with
   * nothing to undo, from its own moment.
   */
  readonly removedWhen?: (event: FaultEvent) => boolean;
  /** The removal's moment in words, for the reference: `connection.unblocked from the broker`. */
  readonly removedWords?: string;
  /**
   * What this fault asks of the embedded proxy that real Toxiproxy does not do, in words; a result
   * measured through Toxiproxy says so (e.g. the broker's close can pass a silence there).
   */
  readonly embeddedProxyOnly?: string;
  /**
   * The queues it is injected on must survive a node restart: the matrix declares a durable
   * exchange and quorum queues (which keep every message on disk whatever its delivery mode, so
   * what was confirmed before the restart can be delivered after it); a load run's classic queues
   * are declared durable.
   */
  readonly durableQueues?: boolean;
  /**
   * Settings of RabbitMQ's `rabbit` application the node of the harness's own must start with
   * (written to its advanced.config), for a fault the broker itself acts out once configured (a
   * short consumer_timeout): such a node is started apart from the one the other faults share.
   */
  readonly nodeSettings?: Readonly<Record<string, number>>;
  /**
   * The fault is the client's own consumer holding deliveries unacked: each thread's consumer gets
   * stuck at the injection and holds every delivery until the thread noticed the fault, never
   * acknowledging them (src/matrix/stuckHandler.ts; the broker's reaction is the fault's moment); a
   * load run's consumers do not, so it is a matrix fault.
   */
  readonly holdsDelivery?: boolean;
  /** Its row in the fault matrix (src/scenarios/matrix.ts derives the rows from the registry); absent: not a matrix row. */
  readonly matrix?: MatrixRowSpec;
  /** @throws ConfigError naming what the context lacks */
  create(context: FaultContext, options: Options): Fault;
}

/** The bounds of one fault-matrix cell. */
export interface MatrixCellBounds {
  /** How long every thread gets to notice the fault. */
  readonly detectionBoundMs: number;
  /** How long every thread gets to recover after the removal. */
  readonly recoveryBoundMs: number;
  /** The fault stays in place this long at least before removal (what publishes do while blocked, how long a queue stays absent). */
  readonly holdMs?: number;
  /** Check that close() returns while the fault holds (thread 0, a second connection). */
  readonly closeCheck?: boolean;
  /**
   * The fault stalls the client's writes (the broker stops reading): threads watch the library's
   * back-pressure signal and their memory while it holds, and publish open loop while it holds
   * (`confirmWindow` before and after).
   */
  readonly stall?: boolean;
  /** Publishes awaiting their confirm at most, per thread (outside a stall; inside one, publishers keep offering their rate). */
  readonly confirmWindow?: number;
  /** Size of each published message. */
  readonly messageBytes?: number;
  /** Each thread publishes every this many ms. @default 5 */
  readonly publishIntervalMs?: number;
  /** What is in flight after publishing stops gets this long to settle (what a stall piled up drains in it). */
  readonly settleMs?: number;
}

/** How a fault is a row of the fault matrix (on the broker its definition names): its cells' bounds, which are slow. */
export interface MatrixRowSpec {
  /** The cell's bounds for a client profile (a library's own defaults may need longer). */
  bounds(profile: ClientProfile): MatrixCellBounds;
  /** Profiles whose cells wait for a library's own, slow defaults (a 60 s heartbeat): marked `slow`. */
  readonly slowProfiles?: readonly ClientProfile[];
  /**
   * A silence only heartbeats notice: its cells run this many threads whose connections open
   * staggered over one heartbeat interval, so one injection meets the heartbeat at that many phases.
   */
  readonly heartbeatPhases?: number;
}
