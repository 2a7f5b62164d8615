/**
 * Generated from schemas/raw-result.schema.json by `npm run schemas:types`. Do not edit: change the schema
 * and regenerate (`npm run lint` and a unit test fail while this file is stale).
 */

/**
 * The suite the result belongs to (throughput, realistic, recovery, matrix, ...: src/scenarios/catalogue.ts lists them); the report has a section per suite. Results written before suites named their category say scalability (the realistic suite) or faults (the fault matrix), read back as those suites.
 */
export type Category = string;
/**
 * Which way is better: `higher` for rates, `lower` for latencies and losses, `none` for counts that only describe.
 */
export type Direction = 'higher' | 'lower' | 'none';
/**
 * Extra structured detail (per-thread records, injection bracket...), kept but not compared. Typed where its `kind` says what it is (`recovery`: schemas/recovery-details.schema.json; `fault_matrix`: schemas/matrix-details.schema.json); a replicated result keeps each replicate's under `replicates`, checked alike.
 */
export type Details = {
  [k: string]: unknown;
} & {
  /**
   * A replicated result's details: each replicate's, checked alike.
   */
  replicates?: Details[];
  [k: string]: unknown;
};
/**
 * What a fault acts on.
 */
export type FaultTarget =
  | {
      type: 'proxy_entry';
      name: string;
    }
  | {
      type: 'connections';
      name_prefix: string;
      node: string;
    }
  | {
      type: 'exchange' | 'queue';
      name: string;
      node: string;
    }
  | {
      type: 'node';
      name: string;
    }
  | {
      type: 'cluster';
      nodes: string[];
    };
/**
 * How a client learned of the fault (src/client/faults.ts RECEIVED_KINDS): reset = RST/ECONNRESET, closed = FIN/"Unexpected close", broker_closed = AMQP close from the broker, heartbeat = missed heartbeats, deadline = silence until the client's own deadline, error = anything else; typed signals of a connection that stays up: channel_closed = the broker closed a channel, consumer_cancelled = the broker cancelled a consumer, blocked = connection.blocked, backpressure = the library said its writes are held (amqplib publish() returned false); none = the thread did not detect it.
 */
export type FaultKind =
  | 'none'
  | 'reset'
  | 'closed'
  | 'broker_closed'
  | 'heartbeat'
  | 'deadline'
  | 'error'
  | 'channel_closed'
  | 'consumer_cancelled'
  | 'blocked'
  | 'backpressure';

/**
 * One measurement, written by a benchmark into reports/.test-output/<name>_<YYYYmmdd_HHMMSS>_<pid>_<seq>_<random>.json (src/results/rawResult.ts). Extra fields are allowed: the contract may grow.
 */
export interface RawResult {
  schema_version: number;
  /**
   * Family name, also the file-name prefix (publish_throughput, massive_consumers, recovery_after_reset_peer, ...).
   */
  name: string;
  category: Category;
  /**
   * <file>::<describe>::<test name>
   */
  test_id: string;
  parameters: ResultParameters;
  client?: Client;
  cluster?: Cluster;
  metrics: {
    [k: string]: Metric;
  };
  /**
   * One run's spread per metric name (per-round rates, per-thread latencies, per-pair ratios): kept and shown, never taken as replicates of a run (they share that run's conditions).
   */
  samples?: {
    [k: string]: number[];
  };
  /**
   * Per metric name, that metric's value in each of k independent repetitions of the scenario within this run (each a fresh session, connections and worker pool), in the order they ran; the metric's value is their median (src/results/replicates.ts). The comparison tests significance on these, not on samples.
   */
  replicates?: {
    /**
     * @minItems 1
     */
    [k: string]: [number, ...number[]];
  };
  histograms?: {
    [k: string]: EncodedHistogram;
  };
  targets?: Target[];
  /**
   * Free-form facts a reader needs (e.g. "detection timed from the proxy's RST moment").
   */
  notes?: string[];
  details?: Details;
  /**
   * What the client under test did wrong in this measurement, each with its evidence: a result, not a harness failure (the test passes, the report lists them per client; `--fail-on-findings` fails the test instead). Empty: the client did everything asked. Absent in results of suites that do not judge the client, and in results written before findings were recorded.
   */
  findings?: Finding[];
  /**
   * Why the client under test cannot run this scenario as named, in words citing the capability its adapter declares (e.g. one subscription per queue per connection, where the row puts several consumers of one queue on a connection): nothing was measured, so the result has no figures; it is no finding (nothing the client did wrong) and no harness failure, the test passes, and the report shows the row as `cannot run`. Absent: the scenario ran.
   */
  cannot_run?: string;
  /**
   * What the harness itself failed to do in this measurement (a fault not injected, a thread of its own that could not start, a bound of its own hit): no verdict on the client, and its test fails. Empty or absent: none.
   */
  harness_problems?: string[];
  fault_proxy?: FaultProxy;
  fault?: Fault;
  timestamp: string;
  fingerprint: string;
  /**
   * Time this result spent inside its measurement windows (every replicate: rounds, windows, fault to recovery); the rest of its test's time was set-up, warm-up and teardown. Absent where a suite does not say.
   */
  measured_ms?: number;
}
/**
 * What the scenario ran with (threads, publish_mode, client, client_profile, ...): with the name, what identifies a result from run to run.
 */
export interface ResultParameters {
  [k: string]: string | number | boolean;
}
/**
 * The client under test that produced the result: the library, its installed version and the settings it ran with (the `defaults` profile: the library's own; `normalised`: the harness's shared settings). `client` and `client_profile` are also parameters.
 */
export interface Client {
  /**
   * Client name in the harness: a built-in client (src/client/registry.ts lists them, e.g. amqplib, rabbitmq-client) or the name an adapter from outside gives itself.
   */
  name: string;
  profile: 'defaults' | 'normalised';
  /**
   * npm package measured.
   */
  library: string;
  version: string;
  /**
   * Effective settings in the library's own option names.
   */
  settings: {
    [k: string]: string | number | boolean;
  };
  /**
   * Whether the client uses every URL of a list (failover across cluster nodes); false: only the first, and a cluster result says so in its notes.
   */
  multiple_hosts?: boolean;
  /**
   * How the library gives each typed signal (channel_closed, consumer_cancelled, blocked, unblocked), in words, or `none: ...` where it does not (src/client/api.ts SignalSupport).
   */
  signals?: {
    [k: string]: string;
  };
  /**
   * The adapter module of a client from outside (`--clients ./bench/myClient.ts`), relative to the folder the run started in; absent for a built-in client.
   */
  adapter_module?: string;
}
/**
 * The RabbitMQ cluster a result ran against (the failover benchmarks' local cluster, `npm run cluster:up`).
 */
export interface Cluster {
  nodes: {
    /**
     * Erlang node name, e.g. bench-a@localhost.
     */
    name: string;
    amqp_port: number;
  }[];
}
/**
 * One figure: its value (null when it could not be measured), its unit and the direction that counts as better.
 */
export interface Metric {
  value: number | null;
  /**
   * ms, msg/s, MB/s, %, count, bytes, ...
   */
  unit: string;
  direction: Direction;
}
/**
 * An HDR histogram, kept encoded so percentiles and comparisons can be recomputed later.
 */
export interface EncodedHistogram {
  /**
   * hdr-histogram-js encodeIntoCompressedBase64
   */
  encoded: string;
  unit: string;
  count: number;
}
/**
 * A goal the benchmark declared for one of its metrics, and whether the value met it.
 */
export interface Target {
  metric: string;
  comparator: '<' | '>';
  threshold: number;
  unit: string;
  /**
   * true: met; false: missed (the interval lies beyond the target); null: no value, not scored on purpose (`reason`), or inconclusive (`verdict`).
   */
  met: boolean | null;
  /**
   * Why `met` is null although there is a value: e.g. the figure is an upper bound (timed from the injecting API call), or the clients did not receive the fault the target is about (FIN instead of RST).
   */
  reason?: string;
  /**
   * The target judged on its interval (`interval`): met when the whole interval is within the target, missed when it lies beyond it, inconclusive otherwise; differ: a harness/bare ratio so far from 100% (outside its band) that the two sides did different work, so it says nothing of the target either way (`reason` gives each side's figures). Absent in results written before intervals.
   */
  verdict?: 'met' | 'missed' | 'inconclusive' | 'differ';
  /**
   * The distribution-free interval of the median of the figure's independent repetitions (src/measure/intervals.ts).
   */
  interval?: {
    low: number;
    high: number;
    /**
     * Coverage of the interval for the median (1 for a single value).
     */
    confidence: number;
    /**
     * Independent repetitions it was made from (replicates, pairs).
     */
    n: number;
  };
}
/**
 * One thing the client under test did wrong, in words a reader can act on, with what shows it.
 */
export interface Finding {
  /**
   * unhandled_error: an error nobody handled inside the client (an application on Node's defaults would have crashed); thread_failed: a thread stopped on an error of the client; not_detected: a fault the client never noticed; not_recovered: a connection or thread that never came back; stalled: deliveries that stopped (a round that did not drain, a consumer that went quiet); message_lost: confirmed (or, without confirms, published) messages never delivered; unexplained_duplicate: deliveries at-least-once does not explain (neither flagged redelivered nor a republished copy); foreign_delivery: deliveries of messages never published (a body the harness cannot read, a sequence number never used); publish_hung: publishes never settled; round_incomplete: a throughput round the client did not finish within the round bound (cut there: its figure is what it published within it); connection_leaked: connections left on the broker after close.
   */
  kind:
    | 'unhandled_error'
    | 'thread_failed'
    | 'not_detected'
    | 'not_recovered'
    | 'stalled'
    | 'message_lost'
    | 'unexplained_duplicate'
    | 'foreign_delivery'
    | 'publish_hung'
    | 'round_incomplete'
    | 'connection_leaked';
  /**
   * Which part of the measurement: `producer thread 1`, `thread 3`, `the workload`.
   */
  where?: string;
  /**
   * The finding in one line, counted (`3 confirmed messages lost`).
   */
  text: string;
  /**
   * How many (messages, errors, threads), when the finding counts something.
   */
  count?: number;
  /**
   * What shows it: the library's own error text, example sequence numbers, the thread's last event, the bound it missed.
   */
  evidence: string[];
}
/**
 * The fault-injection server that produced the figures of this result.
 */
export interface FaultProxy {
  /**
   * `embedded`: the project's own proxy (src/proxy); `toxiproxy`: a real Toxiproxy (or another server without the embedded proxy's extensions).
   */
  kind: 'embedded' | 'toxiproxy';
  /**
   * What its `GET /version` answered (the embedded proxy answers the Toxiproxy release it reproduces).
   */
  version: string;
  /**
   * How reports name it: `Toxiproxy 2.12.0`, `embedded proxy (Toxiproxy 2.12.0 API)`.
   */
  label: string;
}
/**
 * The fault of a measurement: what was injected (its kind in the fault model, src/faults/kinds/), on what, how, what each client received, and the moment figures are timed from. Results written before the fault model have `toxic` instead of `kind` (read back with the kind it implies).
 */
export interface Fault {
  /**
   * The fault's kind in the fault model; src/faults/kinds/registry.ts lists every kind, with its label and description.
   */
  kind?: string;
  /**
   * How tables name it: `TCP reset`, `Broker closes the connection`.
   */
  label?: string;
  /**
   * Kinds of the faults that acted before it in the same scenario (e.g. latency before a reset), in order.
   */
  pre_faults?: string[];
  target?: FaultTarget;
  /**
   * The fault's options (`timeout_ms`, `latency_ms`, ...).
   */
  parameters?: {
    [k: string]: string | number | boolean;
  };
  /**
   * Toxic type(s) of a proxy fault, a pre-fault first: `reset_peer`, `timeout`, `latency`, `latency+reset_peer`. Absent for broker and node faults.
   */
  toxic?: string;
  /**
   * `added` while the clients were connected; `armed` at toxicity 0 before they connected, then raised to 1 (how real Toxiproxy sends a true RST); `broker_action`: a call to the broker (close connections, delete a queue, an alarm); `node_action`: a signal, stop or start of a node.
   */
  injection: 'added' | 'armed' | 'broker_action' | 'node_action';
  reference: {
    /**
     * `proxy_timeline`: the moment the proxy's fault timeline says the fault acted on a connection (an RST sent, a chunk dropped, an AMQP frame from the broker passing), exact; `api_call_start`: the start of the call that injected the fault (no such moment seen: every latency timed from it is an upper bound).
     */
    source: 'proxy_timeline' | 'api_call_start';
    exact: boolean;
    description: string;
  };
  /**
   * Threads per kind of fault received, e.g. {"reset": 10}.
   */
  received: {
    [k: string]: number;
  };
  /**
   * The kind each thread received, by thread index.
   */
  received_per_thread: FaultKind[];
  /**
   * The kind the scenario models when it is one (reset for a reset_peer scenario); null when several are legitimate (a partition is noticed by silence or by a close).
   */
  expected: FaultKind | null;
  /**
   * Every thread received `expected`; null when nothing is expected.
   */
  as_expected: boolean | null;
  /**
   * How the fault was taken away: a toxic's removal (src/faults/toxics.ts RemovalMethod), `undone` (a broker or node action reversed), `nothing_to_undo` (e.g. closed connections: the client reopens them); null when never removed.
   */
  removal: 'deleted' | 'passthrough_then_deleted' | 'entry_recreated' | 'undone' | 'nothing_to_undo' | null;
}
