/**
 * Generated from schemas/raw-result.schema.json by `npm run schemas:types`: do not edit, change
 * the schema and regenerate (a unit test fails while this file is stale).
 */

/**
 * One measurement, written by a benchmark into reports/.test-output/<name>_<YYYYmmdd_HHMMSS>_<pid>_<seq>_<random>.json (src/results/rawResult.ts). Extra fields are allowed: the contract may grow.
 */
export interface RawResult {
  schema_version: number;
  /**
   * Family name, also the file-name prefix (publish_throughput, massive_consumers, recovery_after_reset_peer, ...).
   */
  name: string;
  category: 'throughput' | 'scalability' | 'recovery' | 'stability' | 'resilience' | 'proxy';
  /**
   * <file>::<describe>::<test name>
   */
  test_id: string;
  parameters: {
    [k: string]: string | number | boolean;
  };
  client?: Client;
  cluster?: Cluster;
  metrics: {
    [k: string]: Metric;
  };
  /**
   * Raw samples per metric name (e.g. per-round rates, per-thread latencies), for spread and significance tests.
   */
  samples?: {
    [k: string]: number[];
  };
  histograms?: {
    [k: string]: EncodedHistogram;
  };
  targets?: Target[];
  /**
   * Free-form facts a reader needs (e.g. "detection timed from the proxy's RST moment").
   */
  notes?: string[];
  /**
   * Extra structured detail (per-thread records, injection bracket...), kept but not compared.
   */
  details?: {
    [k: string]: unknown;
  };
  timestamp: string;
  fingerprint: string;
}
/**
 * The client under test that produced the result: the library, its installed version and the settings it ran with (the `defaults` profile: the library's own; `normalised`: the harness's shared settings). `client` and `client_profile` are also parameters.
 */
export interface Client {
  /**
   * Client name in the harness (amqplib, amqplib-recovery, amqp-connection-manager, rabbitmq-client, cloudamqp, ...).
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
export interface Metric {
  value: number | null;
  /**
   * ms, msg/s, MB/s, %, count, bytes, ...
   */
  unit: string;
  direction: 'higher' | 'lower' | 'none';
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
export interface Target {
  metric: string;
  comparator: '<' | '>';
  threshold: number;
  unit: string;
  met: boolean | null;
}
