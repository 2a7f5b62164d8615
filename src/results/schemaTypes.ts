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
  /**
   * Extra structured detail (per-thread records, injection bracket...), kept but not compared.
   */
  details?: {
    [k: string]: unknown;
  };
  timestamp: string;
  fingerprint: string;
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
