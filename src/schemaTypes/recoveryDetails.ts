/**
 * Generated from schemas/recovery-details.schema.json by `npm run schemas:types`. Do not edit: change the schema
 * and regenerate (`npm run lint` and a unit test fail while this file is stale).
 */

/**
 * Monotonic nanoseconds (process.hrtime.bigint) as a decimal string.
 */
export type Ns = string;

/**
 * A recovery scenario's `details` in its raw result (`kind: "recovery"`, written by src/recovery/metrics.ts): the raw brackets every figure can be re-derived from, the proxy's fault timeline and clock anchor (checked against a packet capture by `bench verify`), and what each thread went through in ms from the run's fault reference (drawn as the report's recovery timeline). Monotonic nanoseconds are decimal strings. Results of older runs carry no `kind` and are read as before.
 */
export interface RecoveryDetails {
  kind: 'recovery';
  /**
   * What the figures are timed from, in words (the proxy's timeline, or the injecting call's start: an upper bound).
   */
  reference: string;
  injection_bracket_ns: NsBracket;
  /**
   * The first moment the fault acted on a connection, by the proxy's timeline or the broker's event; null without one.
   */
  fault_acted_ns: string | null;
  removal_bracket_ns: null | NsBracket;
  /**
   * How many threads detected the fault by each kind of event (reset, closed, timeout, ...).
   */
  detection_causes: {
    [k: string]: number;
  };
  reference_exact: boolean;
  clock_disagreements: string[];
  traffic_interval_ms: number;
  drain_timeout_ms: number;
  /**
   * The proxy kept a fault timeline (the embedded proxy does; real Toxiproxy does not).
   */
  proxy_timeline: boolean;
  fault_spread: null | {
    first_ns: Ns;
    last_ns: Ns;
    spread_ms: number;
    connections: number;
  };
  /**
   * Per connection, oldest first: when the fault acted on it (what a packet capture of the proxy's listen port is checked against).
   */
  fault_timeline: {
    /**
     * null when the proxy could not tell the client's port.
     */
    client_port: number | null;
    acted_ns: Ns;
  }[];
  clock_anchor: null | {
    monotonic_ns: Ns;
    epoch_ms: number;
  };
  machine: {
    threads: number;
    cpu_count: number;
    /**
     * More consumer threads than cores: the figures are bound by the machine.
     */
    machine_bound: boolean;
  };
  removal_after_reference_ms: number | null;
  threads: RecoveryThread[];
}
/**
 * An API call's start and end, monotonic ns.
 */
export interface NsBracket {
  started: Ns;
  completed: Ns;
}
/**
 * What one consumer thread went through, in ms from the run's fault reference.
 */
export interface RecoveryThread {
  thread: number;
  /**
   * From its own fault moment when the timeline named its connection, else from the reference.
   */
  detection_ms: number | null;
  /**
   * The kind of event it detected the fault by (reset, closed, timeout, ...), or none.
   */
  detection_cause: string;
  /**
   * Its own connection's fault moment; null when the timeline did not name it.
   */
  fault_after_reference_ms: number | null;
  detected_after_reference_ms: number | null;
  recovered_after_reference_ms: number | null;
  recovered_after_removal_ms: number | null;
  reconnect_attempts: number;
  deliveries_before_fault: number;
  error?: string;
}
