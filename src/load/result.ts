/**
 * The result of a load run (pure): what was asked, what was achieved, the latency figures from
 * the intended send times, the accounting of every message, the fault windows and the time
 * series; and the same as a raw result (category `load`) for the archive and the history.
 */
import type { ClientInfo } from '../client/api';
import { encodeHistogram } from '../measure/histogram';
import { roundTo } from '../measure/round';
import type { RawResult, ResultDraft } from '../results/rawResult';
import { faultTimingNote, type FaultWindowRecord } from './faultSchedule';
import { latencyFiguresMs, type LatencyFiguresMs } from './latency';
import { latenessOfRun } from './lateness';
import type { LoadRecorder } from './recorder';
import type { TimeSeriesPoint } from './timeseries';
import type { LoadWorkload } from './workload';

export interface ConnectionFaultRecord {
  readonly connection: string;
  readonly kind: string;
  readonly detectedAtMs: number;
  readonly backAtMs: number | null;
}

export interface LoadResult {
  readonly workload: LoadWorkload;
  readonly client: { readonly label: string; readonly info: ClientInfo };
  readonly via_proxy: boolean;
  readonly aborted: boolean;
  /** Intended rate over the measured part (null for rate 0: as fast as possible). */
  readonly intended_rate_per_s: number | null;
  /** Messages intended in the measured part that were sent, over its duration. */
  readonly achieved_rate_per_s: number;
  /** achieved / intended (null for rate 0). */
  readonly achieved_fraction: number | null;
  readonly messages: {
    readonly intended: number | null;
    readonly published: number;
    readonly unsent: number;
    readonly publish_failed: number;
    readonly confirmed: number;
    readonly nacked: number;
    readonly consumed: number;
    readonly consumed_unique: number;
    readonly duplicates: number;
    /** Deliveries the consumers nacked back into the queue (each delivered again: among the duplicates). */
    readonly nacked_by_consumer: number;
    /** Published, not consumed by the end (in-doubt publishes included). */
    readonly not_consumed: number;
    /** Confirmed and never consumed: lost (0 expected). Null without confirms or consumers. */
    readonly lost_confirmed: number | null;
  };
  readonly latency_ms: {
    readonly end_to_end: LatencyFiguresMs;
    readonly confirm: LatencyFiguresMs;
    /** Actual send - intended send. */
    readonly schedule_lag: LatencyFiguresMs;
  };
  readonly histograms: Readonly<Record<string, ReturnType<typeof encodeHistogram>>>;
  readonly faults: readonly FaultWindowRecord[];
  readonly connection_faults: readonly ConnectionFaultRecord[];
  readonly publishing_ended_ms: number;
  readonly ended_ms: number;
  readonly interval_ms: number;
  readonly timeseries: readonly TimeSeriesPoint[];
  readonly notes: readonly string[];
}

export interface LoadResultInput {
  readonly workload: LoadWorkload;
  readonly client: LoadResult['client'];
  readonly viaProxy: boolean;
  readonly recorder: LoadRecorder;
  readonly schedulePaced: boolean;
  readonly totalMessages: number;
  /** Messages intended after the warm-up (null for rate 0). */
  readonly intendedMeasured: number | null;
  readonly unsent: number;
  /** What the achieved rate is over: the duration, or (rate 0) until the broker had taken the last message. */
  readonly measuredMs: number;
  readonly publishingEndedMs: number;
  readonly endedMs: number;
  readonly points: readonly TimeSeriesPoint[];
  readonly faults: readonly FaultWindowRecord[];
  readonly connectionFaults: readonly ConnectionFaultRecord[];
  readonly aborted: boolean;
  readonly intervalMs: number;
  /**
   * Every consumer of the queues this process publishes to is its own, so a confirmed message it
   * never consumed is lost (false for an agent of a fleet whose messages other agents consume:
   * the fleet's merge accounts for them). Given only for a share of a fleet. @default true
   */
  readonly accountsAlone?: boolean;
}

/** The intended and achieved rates (msg/s, to 0.1) and the share of the intended one achieved; null where nothing was intended. */
export function rateFigures(
  intendedPerS: number | null,
  achievedPerS: number,
): Pick<LoadResult, 'intended_rate_per_s' | 'achieved_rate_per_s' | 'achieved_fraction'> {
  return {
    intended_rate_per_s: intendedPerS === null ? null : roundTo(intendedPerS, 1),
    achieved_rate_per_s: roundTo(achievedPerS, 1),
    achieved_fraction: intendedPerS === null || intendedPerS === 0 ? null : roundTo(achievedPerS / intendedPerS, 4),
  };
}

export function buildLoadResult(input: LoadResultInput): LoadResult {
  const { recorder, workload } = input;
  const totals = recorder.totals;
  const intended = input.schedulePaced ? input.totalMessages : null;
  const measuredIntended = input.intendedMeasured;
  const achieved = (recorder.publishedMeasured * 1000) / input.measuredMs;
  const intendedRate = measuredIntended === null ? null : (measuredIntended * 1000) / workload.durationMs;
  const notes = [
    `client ${input.client.label}; recovery: ${input.client.info.recovery === 'harness' ? "the harness's own reconnect loop (the amqplib adapter)" : "the library's own"}`,
    "latencies are timed from each message's intended send time (open loop: coordinated omission avoided)",
    ...(input.schedulePaced
      ? []
      : [
          `rate 0: as fast as possible; intended time = send time, so latencies are from the send; the achieved rate is over ${input.measuredMs} ms, until the broker had taken the last message`,
        ]),
    ...(input.viaProxy ? ['through the fault proxy entry'] : ['directly to the broker (no proxy)']),
    ...(input.unsent > 0 ? [`${input.unsent} message(s) were still due when the catch-up time ran out: not sent`] : []),
    ...(input.aborted ? ['aborted before the end (Ctrl-C): figures cover the part that ran'] : []),
    ...input.faults.flatMap((fault) => faultTimingNote(fault, input.publishingEndedMs) ?? []),
    ...(input.accountsAlone === false
      ? [
          "some of this process's messages are consumed by other processes of the fleet: lost and not consumed are counted by the fleet's merge",
        ]
      : []),
  ];
  const result: LoadResult = {
    workload,
    client: input.client,
    via_proxy: input.viaProxy,
    aborted: input.aborted,
    ...rateFigures(intendedRate, achieved),
    messages: {
      intended,
      published: totals.published,
      unsent: input.unsent,
      publish_failed: totals.publishFailed,
      confirmed: totals.confirmed,
      nacked: totals.nacked,
      consumed: totals.consumed,
      consumed_unique: recorder.consumedUnique,
      duplicates: totals.duplicates,
      nacked_by_consumer: totals.nackedByConsumer,
      not_consumed: Math.max(0, totals.published - recorder.consumedUnique),
      lost_confirmed:
        workload.confirmWindow > 0 && workload.consumers > 0 && input.accountsAlone !== false ? recorder.lostConfirmed() : null,
    },
    latency_ms: {
      end_to_end: latencyFiguresMs(recorder.endToEndLatency),
      confirm: latencyFiguresMs(recorder.confirmLatency),
      schedule_lag: latencyFiguresMs(recorder.scheduleLag),
    },
    histograms: {
      end_to_end_latency: encodeHistogram(recorder.endToEndLatency),
      confirm_latency: encodeHistogram(recorder.confirmLatency),
      schedule_lag: encodeHistogram(recorder.scheduleLag),
    },
    faults: input.faults,
    connection_faults: input.connectionFaults,
    publishing_ended_ms: input.publishingEndedMs,
    ended_ms: input.endedMs,
    interval_ms: input.intervalMs,
    timeseries: input.points,
    notes,
  };
  // A process alone says it here; a fleet's agent does not (the merge says it of the fleet).
  const late = input.accountsAlone === undefined ? latenessOfRun(result) : null;
  return late === null ? result : { ...result, notes: [...notes, late] };
}

/** The result as a raw result of category `load` (archive, history, comparison). */
export function loadRawResult(result: LoadResult): ResultDraft & Pick<RawResult, 'category'> {
  const { workload } = result;
  const ms = (value: number | null) => ({ value, unit: 'ms', direction: 'lower' as const });
  const e2e = result.latency_ms.end_to_end;
  const firstFault = result.faults.find((fault) => fault.record !== null)?.record;
  return {
    name: `load_${workload.name}`.replace(/^load_load$/, 'load'),
    category: 'load',
    parameters: {
      client: workload.client.name,
      client_profile: workload.client.profile,
      producers: workload.producers,
      consumers: workload.consumers,
      rate: result.intended_rate_per_s ?? 0,
      size: JSON.stringify(workload.size),
      queues: workload.queues,
      queue_type: workload.queueType,
      prefetch: workload.prefetch,
      ack: workload.ack.kind,
      confirm_window: workload.confirmWindow,
      duration_ms: workload.durationMs,
      faults: workload.faults.map((fault) => `${fault.text}@${fault.atMs}ms+${fault.lengthMs}ms`).join(',') || 'none',
    },
    metrics: {
      achieved_rate: { value: result.achieved_rate_per_s, unit: 'msg/s', direction: 'higher' },
      achieved_fraction: { value: result.achieved_fraction, unit: 'ratio', direction: 'higher' },
      e2e_p50_ms: ms(e2e.p50),
      e2e_p90_ms: ms(e2e.p90),
      e2e_p99_ms: ms(e2e.p99),
      e2e_p999_ms: ms(e2e.p99_9),
      e2e_max_ms: ms(e2e.max),
      confirm_p99_ms: ms(result.latency_ms.confirm.p99),
      schedule_lag_p99_ms: ms(result.latency_ms.schedule_lag.p99),
      lost_confirmed: { value: result.messages.lost_confirmed, unit: 'count', direction: 'lower' },
      publish_failed: { value: result.messages.publish_failed, unit: 'count', direction: 'none' },
    },
    histograms: result.histograms,
    notes: [...result.notes],
    ...(firstFault ? { fault: firstFault } : {}),
    details: {
      messages: result.messages,
      latency_ms: result.latency_ms,
      faults: result.faults.map(({ record: _record, ...rest }) => rest),
      connection_faults: result.connection_faults,
    },
    measured_ms: workload.durationMs,
  };
}
