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
   * A silent fault on a client whose heartbeat interval is known (the normalised profile), judged as the protocol says: a peer closes after two heartbeat intervals or longer without traffic (RabbitMQ gives up after two to three), so each thread's own detection should fall within two to three intervals (plus a little); measured at several phases of the interval, one per thread.
   */
  heartbeat?: {
    interval_s: number;
    /**
     * The protocol's window: from two intervals (less the early slack) to three intervals plus the slack.
     */
    window_ms: {
      low: number;
      high: number;
    };
    /**
     * The slowest detection the client made by itself (a thread told by the broker is not counted).
     */
    slowest_detection_ms: number | null;
    /**
     * Every thread noticed by itself, within the window.
     */
    within: boolean;
    /**
     * Min, median and max of the threads' own detections, ms from the fault's moment on each one's connection.
     */
    detection_ms?: {
      min: number;
      median: number;
      max: number;
    };
    /**
     * The same in heartbeat intervals.
     */
    intervals?: {
      min: number;
      median: number;
      max: number;
    };
    /**
     * Per thread: the phase of its heartbeat interval the silence met (0 to 1, from its connection's opening), and its detection (null: not by itself).
     */
    phases?: {
      thread: number;
      phase: number | null;
      detection_ms: number | null;
      intervals: number | null;
    }[];
    /**
     * within: every thread within the window; early: a thread before two intervals (a pause of one interval would drop a healthy connection); late: after three; not_by_itself: a thread never noticed by itself (told by the broker, or not at all).
     */
    judgement?: 'within' | 'early' | 'late' | 'not_by_itself';
    /**
     * How the library notices a silent peer when that is not the protocol's heartbeat check (its adapter's words, from the library's source).
     */
    check?: string;
    /**
     * The judgement in words, as the report shows it: the range over the phases, in intervals and seconds, against the protocol's window, and how the library notices when it is not the protocol's check.
     */
    summary?: string;
  };
  /**
   * What recovery after the removal is timed from: the removal as the broker or the proxy saw it (exact: a frame or the proxy's own removal on the timeline), the fault's own moment for a fault with nothing to undo, or the start of the call that undid it (an upper bound).
   */
  removal_reference?: {
    description: string;
    exact: boolean;
    source: 'proxy_timeline' | 'fault_moment' | 'api_call_start';
  };
  /**
   * The harness's probe rounds after the removal: published, and failed to publish (none published is a harness problem).
   */
  probes?: {
    sent: number;
    failed: number;
  };
  /**
   * Connection attempts made through the proxy entry while the fault held (from the injection to the end of the removal) that the broker side refused (the proxy could not reach it: a node down), as the proxy's connection list saw them; each client port is the proxy's, so they are counted for the cell, not per thread.
   */
  refused_attempts?: {
    count: number;
    /**
     * The first attempt, ms from the fault's reference moment.
     */
    first_at_ms: number | null;
    /**
     * The last attempt, ms from the fault's reference moment.
     */
    last_at_ms: number | null;
  };
}
export interface MatrixVerdict {
  ok: boolean;
  /**
   * The matrix cell: `✅ 4.2 / 120 ms` or `❌ stopped consuming`.
   */
  cell: string;
  findings: string[];
  /**
   * ok: ✅; finding: ❌, the client's (the findings say what); harness: ⚠, the harness's own part failed (not a verdict on the client; the run fails).
   */
  class?: 'ok' | 'finding' | 'harness';
  /**
   * Why the cell is ⚠.
   */
  harness_problems?: string[];
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
  /**
   * What told it: the fault itself (the kind it models); the broker's close of a silence it should have noticed by its own heartbeat (not its detection); the broker refusing a request of its own made after the fault, e.g. its re-consume answered 404 (not the fault's own signal); or another kind.
   */
  noticed_as?: 'fault' | 'told_by_broker' | 'refused_retry' | 'other';
  /**
   * The phase of its heartbeat interval the fault met (0 to 1, from its connection's opening).
   */
  heartbeat_phase?: number;
  /**
   * Of its hung publishes (pending at the end of the settle bound), those that settled only when close() rejected them.
   */
  settled_only_by_close?: number;
  /**
   * The AMQP frames on its connections while the fault held (the proxy's timeline), counted by sender, method and reply code: what the client did meanwhile (a re-consume) and how the broker answered.
   */
  frames_during_fault?: {
    from: 'client' | 'broker';
    method: string;
    count: number;
    first_at_ms: number;
    reply_code?: number;
    reply_text?: string;
  }[];
  /**
   * A fault that stalls the client's writes (the broker stops reading): what the thread's library did while it held, from the injection to the removal.
   */
  stall?: {
    /**
     * From the injection to the removal.
     */
    stall_s: number;
    /**
     * Publishes the thread made while the stall held, per second.
     */
    offered_msg_per_s: number | null;
    /**
     * The same in MB/s of message bodies (1 MB = 10^6 bytes).
     */
    offered_mb_per_s: number | null;
    /**
     * The library's back-pressure signal (the adapter's Publisher.writesHeld): given (it turned on while the stall held, between the injection and the removal), on_already (on at the injection, under the ordinary load, and on at every poll until the removal: it never turned on because it never turned off), not_given (the library has one and did not use it), none (the library has no such signal).
     */
    signal: 'given' | 'on_already' | 'not_given' | 'none';
    signal_episodes: number;
    /**
     * The signal at the thread's first poll that saw the injection (before the fault was in place: its state under the ordinary load); null when the library has none or no poll ran while the stall held.
     */
    signal_at_injection?: boolean | null;
    /**
     * The signal at the thread's last poll before the removal; null when the library has none or no poll ran while the stall held.
     */
    signal_at_removal?: boolean | null;
    /**
     * The share of the samples taken while the stall held with the signal on; null when the library has none or no sample was taken then.
     */
    signal_on_share?: number | null;
    /**
     * The share of the thread's polls before the injection (the ordinary load, its window of publishes awaiting confirms; one poll every publish interval) that found the signal on; null when the library has none or nothing was polled then.
     */
    signal_on_share_before?: number | null;
    /**
     * The thread's polls of the signal before the injection (those signal_on_share_before is of).
     */
    polls_before_injection?: number;
    /**
     * The longest time between two polls of the signal while the stall held (the thread polls it as it publishes, every publish interval): a poll held up would miss the signal; null when no poll ran then.
     */
    longest_poll_gap_ms?: number | null;
    /**
     * False for a client program (its library runs in its own process): the worker's memory figures are then null (program_rss_mb_per_s gives the program's).
     */
    memory_measured: boolean;
    /**
     * A client program's process (its library, its runtime and the protocol's commands queued for the library: an upper bound on the library's) as its resident set grew while the stall held, least-squares slope over the 250 ms samples, MB/s, read from /proc/<pid>/status; null for an in-process client or where it could not be read.
     */
    program_rss_mb_per_s?: number | null;
    /**
     * Growth of the worker's V8 heap plus its external memory (Buffers) while the stall held: least-squares slope over the 250 ms samples, MB/s.
     */
    worker_memory_mb_per_s: number | null;
    /**
     * The V8 heap alone, MB/s.
     */
    worker_heap_mb_per_s: number | null;
    /**
     * The process's resident set (every thread of the cell), MB/s.
     */
    rss_mb_per_s: number | null;
    /**
     * Publishes awaiting their confirm at the last sample before the removal.
     */
    outstanding_at_removal: number | null;
    outstanding_max: number;
    published_during_stall: number;
    /**
     * Publishes made during the stall still pending at the end of the settle bound (hung).
     */
    unsettled_from_stall: number;
    /**
     * From the removal until the last publish made during the stall was confirmed or rejected; null when one never settled.
     */
    drain_ms: number | null;
    /**
     * Samples taken while the stall held.
     */
    samples: number;
  };
  /**
   * Its messages confirmed before the fault's moment and first delivered after the removal (what the broker kept through the fault, a node restart's durable queue).
   */
  confirmed_before_delivered_after?: number;
  /**
   * The first delivery its consumer held unacked on purpose (a consumer acknowledgement timeout: the handler stuck from the injection until the thread noticed the fault, every delivery meanwhile held and never acked): which message, how often it was delivered to its own consumer in all (2: redelivered to it), and how many copies were left in its queue at the end.
   */
  held_delivery?: {
    seq: number;
    /**
     * How many deliveries the stuck consumer held in all: its prefetch window once full (the broker delivers nothing more to a consumer with that many unacked), fewer when its library hands the handler one delivery at a time, waiting for its ack (the rest wait in the library, unacked all the same), or the thread noticed the fault first.
     */
    held?: number;
    deliveries: number;
    left_in_queue: number;
    /**
     * When it was delivered again to its consumer, ms from the fault's reference moment; null: not redelivered to it.
     */
    redelivered_after_ms?: number | null;
  };
}
