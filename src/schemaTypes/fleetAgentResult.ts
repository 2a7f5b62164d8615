/**
 * Generated from schemas/fleet-agent-result.schema.json by `npm run schemas:types`. Do not edit: change the schema
 * and regenerate (`npm run lint` and a unit test fail while this file is stale).
 */

import type { EncodedHistogram } from './rawResult';

/**
 * What one agent of a fleet (`bench load --agent`) sends its coordinator through the broker and writes as agent-<index>.json: its share of the workload, how it passed the start barrier, and its load result with what a merge needs besides it (each time-series interval's histograms, the sequence numbers it consumed and confirmed). `bench load-merge` merges such files from machines that never met (a CI matrix).
 */
export interface FleetAgentResult {
  schema_version: 1;
  /**
   * The fleet's run: every agent of one run has the same.
   */
  run_id: string;
  agent: Agent;
  share: Share;
  barrier: Barrier;
  /**
   * completed: ran its share to the end; aborted: stopped early (a signal, the coordinator's abort), figures cover the part that ran; late: reached the barrier after the start and did not run; failed: an error before or during the run (see error).
   */
  status: 'completed' | 'aborted' | 'late' | 'failed';
  /**
   * Why it failed or stopped; null when it completed.
   */
  error: string | null;
  /**
   * The load result of its share (src/load/result.ts); null when it never ran.
   */
  result: null | LoadResult;
  /**
   * One entry per time-series point: the latency histograms of that interval, so a fleet's points are merged from histograms, never from percentiles.
   */
  interval_histograms: IntervalHistograms[];
  sequence_bits: SequenceBits;
}
export interface Agent {
  index: number;
  count: number;
  /**
   * os.hostname() of the agent's machine (a pod name under Kubernetes).
   */
  host: string;
  /**
   * Names the clock the agent timed with: the kernel's boot id where there is one (agents with the same boot id share one monotonic clock), else the host name.
   */
  machine_id: string;
  pid: number;
}
export interface Share {
  /**
   * Global indexes of its producers (producer p sends messages p, p + P, ...).
   */
  producers: number[];
  /**
   * Global indexes of its consumers.
   */
  consumers: number[];
  /**
   * Every queue its producers publish to is consumed only by its own consumers: its end-to-end latencies were timed on one clock whatever the machines.
   */
  accounts_alone: boolean;
}
export interface Barrier {
  /**
   * coordinator: the start came from the coordinator through the broker; start_at: a wall-clock time given to every agent (no coordinator).
   */
  mode: 'coordinator' | 'start_at';
  /**
   * When it reported ready (every client connected); null if it never was.
   */
  ready_at_unix_ms: number | null;
  /**
   * The start it was given, by the coordinator's clock (or the given wall-clock time).
   */
  start_at_unix_ms: number | null;
  /**
   * When its schedule started, by its own wall clock; null if it did not run.
   */
  started_at_unix_ms: number | null;
  /**
   * monotonic: on the coordinator's machine, the start is the same monotonic instant for every agent (exact); wall: on another machine, the start is a wall-clock time (as exact as the machines' clock sync); none: did not start.
   */
  start_clock: 'monotonic' | 'wall' | 'none';
  /**
   * Its wall clock when the start message arrived minus the coordinator's when it was sent: transit plus the clocks' offset (a bound on the start skew across machines).
   */
  start_message_delay_ms: number | null;
}
/**
 * src/load/result.ts LoadResult, as result.json holds it.
 */
export interface LoadResult {
  workload: {
    [k: string]: unknown;
  };
  client: {
    [k: string]: unknown;
  };
  via_proxy: boolean;
  aborted: boolean;
  intended_rate_per_s: number | null;
  achieved_rate_per_s: number;
  achieved_fraction: number | null;
  messages: {
    [k: string]: unknown;
  };
  latency_ms: {
    [k: string]: unknown;
  };
  histograms: {
    end_to_end_latency: EncodedHistogram;
    confirm_latency: EncodedHistogram;
    schedule_lag: EncodedHistogram;
  };
  faults: unknown[];
  connection_faults: unknown[];
  publishing_ended_ms: number;
  ended_ms: number;
  interval_ms: number;
  timeseries: {
    [k: string]: unknown;
  }[];
  notes: string[];
}
export interface IntervalHistograms {
  confirm: EncodedHistogram;
  end_to_end: EncodedHistogram;
  schedule_lag: EncodedHistogram;
}
/**
 * Bit i set: message i was consumed (seen) / confirmed. A message may be confirmed in one agent and consumed in another: the merge ORs the agents' bits.
 */
export interface SequenceBits {
  encoding: 'deflate-base64';
  seen: string;
  confirmed: string;
}
