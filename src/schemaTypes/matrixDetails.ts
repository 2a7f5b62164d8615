/**
 * Generated from schemas/matrix-details.schema.json by `npm run schemas:types`. Do not edit: change the schema
 * and regenerate (`npm run lint` and a unit test fail while this file is stale).
 */

import type { FaultKind } from './rawResult';

/**
 * A fault-matrix cell's `details` in its raw result (`kind: "fault_matrix"`, written by src/matrix/result.ts): its verdict (the report's matrix cell and findings), the bounds it ran under, the class of every publish in flight at the fault and during it, close() while blocked, the heartbeat window for silent faults, and what each thread went through (the evidence).
 */
export interface MatrixDetails {
  kind: 'fault_matrix';
  verdict: MatrixVerdict;
  /**
   * What the figures are timed from, in words.
   */
  reference: string;
  bounds_ms: {
    detection: number;
    hold: number;
    recovery: number;
    settle: number;
    close: number;
  };
  confirm_window: number;
  publish_interval_ms: number;
  in_flight_at_fault: OutcomeCounts;
  during_fault: OutcomeCounts;
  close_while_blocked: null | {
    /**
     * null: it did not return within the bound.
     */
    close_ms: number | null;
    bound_ms: number;
    /**
     * The library's close did not end by itself: the adapter's own bound cut it short.
     */
    cut_by_adapter_bound: boolean;
    error?: string;
  };
  threads: MatrixThread[];
  harness_problems: string[];
  /**
   * A silent fault on a client whose heartbeat interval is known (the normalised profile): whether its slowest thread noticed within the protocol's window, one to two intervals plus a little.
   */
  heartbeat?: {
    interval_s: number;
    window_ms: {
      low: number;
      high: number;
    };
    slowest_detection_ms: number | null;
    within: boolean;
  };
}
export interface MatrixVerdict {
  ok: boolean;
  /**
   * The matrix cell: `✅ 4.2 / 120 ms` or `❌ stopped consuming`.
   */
  cell: string;
  findings: string[];
}
/**
 * Publishes by class: those in flight when the fault hit (`in_flight_at_fault`: published before the injection, not settled when it started), or published while it was in place (`during_fault`).
 */
export interface OutcomeCounts {
  total: number;
  confirmed: number;
  nacked: number;
  rejected: number;
  hung: number;
}
/**
 * What one thread of the cell went through.
 */
export interface MatrixThread {
  thread: number;
  /**
   * From the fault's moment on its own connection (or the run's reference); null: never noticed.
   */
  detection_ms: number | null;
  detected_by: FaultKind;
  /**
   * It noticed only once the harness had removed the fault.
   */
  detected_after_removal: boolean;
  recovered_ms: number | null;
  recovered_after_removal_ms: number | null;
  publisher_back_after_removal_ms: number | null;
  consumer_back_after_removal_ms: number | null;
  published: number;
  confirmed: number;
  nacked: number;
  rejected: number;
  hung: number;
  confirmed_lost: number;
  duplicates: number;
  /**
   * Each distinct rejection the library gave, with how often.
   */
  rejections: {
    message: string;
    count: number;
  }[];
  /**
   * The library's faults and signals, in order, ms from the reference (the evidence).
   */
  events: {
    source: string;
    kind: string;
    message: string;
    at_ms: number;
  }[];
  unhandled: string[];
  /**
   * How long close() took; null: it did not return within the bound.
   */
  close_ms: number | null;
  error?: string;
}
