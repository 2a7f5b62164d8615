/**
 * Whether a load run's latencies are its own senders' lateness (pure). A publisher behind its
 * schedule sends late, and every latency is timed from the intended send time, so the lateness of
 * the harness's own processes (their event loops starved of CPU: other work on the machine, or N
 * agent processes and the broker sharing its cores) lands in the end-to-end figure as it would in
 * an application's. Nothing is taken out of the figure; this says beside it how much of the tail
 * the schedule lag is, when in the run it was worst (the start), and whether publishing ran past
 * the schedule's end (the achieved rate counts what was sent in the catch-up) — so that a figure
 * made by a late sender is not read as the broker's or the client's.
 */
import type { LatencyFiguresMs } from './latency';
import type { LoadResult } from './result';
import type { TimeSeriesPoint } from './timeseries';
import { PLAIN_IN_FLIGHT_CAP } from './traffic';
import { scheduleEndMs, type LoadWorkload } from './workload';
import { roundTo } from '../measure/round';

/** The schedule lag is "most of the tail" from this share of the latency's p99 on. */
const LAG_SHARE_OF_TAIL = 0.5;
/** Below this the lag is timer resolution, not lateness worth a word. */
const LAG_WORTH_SAYING_MS = 10;
/** The measured part's first points, where the processes warm up. */
const START_POINTS = 3;
/** Publishing that ended this long after the schedule's end was behind it. */
const CATCH_UP_WORTH_SAYING_MS = 1000;

export interface LatenessInput {
  /** Schedule lag (sent − intended). */
  readonly lag: LatencyFiguresMs;
  /** The latency a reader takes as the run's: end-to-end when there is one, else confirm. */
  readonly latency: LatencyFiguresMs;
  readonly latencyName: 'end-to-end' | 'confirm';
  /** A fleet's: each merged agent's schedule lag p99 (ms). Empty for one process. */
  readonly agentLagP99Ms: readonly { readonly agent: number; readonly p99: number | null }[];
  /** The time series, the warm-up's points included. */
  readonly points: readonly TimeSeriesPoint[];
  readonly warmupMs: number;
  /** When the (last) publisher stopped, from the start (ms), and when the schedule ended. */
  readonly publishingEndedMs: number;
  readonly scheduleEndMs: number;
  /** A fleet's agent processes that shared one machine (null: one process, or several machines). */
  readonly agentsOnOneMachine: number | null;
  /** The clients went through a fault proxy (one more process on the machine). */
  readonly viaProxy: boolean;
  /** Messages every producer together may have in flight: producers × the confirm window (or the cap on plain publishes). */
  readonly inFlightCap: number;
  readonly confirms: boolean;
}

/** A point whose in-flight count is this share of the cap had its publishers waiting on it. */
const FULL_SHARE = 0.9;
/** The window was the cause when it was full in this share of the measured seconds. */
const FULL_SECONDS_SHARE = 0.25;

/** What the latency owes to the senders' own lateness, in words; null when nothing worth saying. */
export function latenessNote(input: LatenessInput): string | null {
  const lagP99 = input.lag.p99;
  const latencyP99 = input.latency.p99;
  const overrunMs = input.publishingEndedMs - input.scheduleEndMs;
  const overran = overrunMs > CATCH_UP_WORTH_SAYING_MS;
  const lagIsTail = lagP99 !== null && latencyP99 !== null && lagP99 >= LAG_WORTH_SAYING_MS && lagP99 >= LAG_SHARE_OF_TAIL * latencyP99;
  if (!lagIsTail && !overran) return null;
  const fleet = input.agentLagP99Ms.length > 0;
  const parts: string[] = [];
  if (lagIsTail) {
    const perAgent = fleet ? ` (per agent ${input.agentLagP99Ms.map((each) => `${each.agent}: ${each.p99 ?? '-'}`).join(', ')} ms)` : '';
    parts.push(
      `${fleet ? 'the agents' : 'the publishers'} sent late: schedule lag (sent − intended) p99 ${lagP99} ms against the ${input.latencyName} p99 of ${latencyP99} ms${perAgent} — most of the tail was spent before the message was sent, recorded as it happened`,
      whyLate(input, fleet),
    );
    const start = startShare(input.points, input.warmupMs);
    if (start) parts.push(start);
    if (input.agentsOnOneMachine !== null && !windowWasFull(input).cause) {
      const agents = `${input.agentsOnOneMachine} agent processes`;
      const sharing = input.viaProxy ? `${agents}, the coordinator and the fault proxy` : `${agents} and the coordinator`;
      parts.push(
        `${sharing} shared this machine's cores (with the broker, when it runs here): compare with one process at the same rate on the same machine, at the same time, before reading the figure as the broker's or the client's`,
      );
    }
  }
  if (overran)
    parts.push(
      `the last message was sent ${roundTo(overrunMs / 1000, 1)} s after the schedule's end (catch-up): the achieved rate counts those late messages`,
    );
  return parts.join('; ');
}

/** In how many measured seconds the publishers waited on a full window, and whether that was the cause. */
function windowWasFull(input: LatenessInput): { full: number; of: number; cause: boolean } {
  const measured = input.points.filter((point) => point.t_s * 1000 > input.warmupMs);
  const full = measured.filter((point) => point.outstanding_confirms >= FULL_SHARE * input.inFlightCap).length;
  return { full, of: measured.length, cause: measured.length > 0 && full >= FULL_SECONDS_SHARE * measured.length };
}

/** Whose pace made the senders late: the broker's (a full window) or their own processes' (CPU). */
function whyLate(input: LatenessInput, fleet: boolean): string {
  const { full, of, cause } = windowWasFull(input);
  const window = input.confirms ? 'confirm window' : 'in-flight cap (the socket pushing back)';
  if (cause)
    return `the publishers waited on a full ${window} in ${full} of ${of} measured seconds: the broker's answers came back slower than the schedule — its pace at that moment (on a shared broker, whatever else runs on it counts), or the process reading them late — and the backlog waited in the publishers`;
  return `the ${window} was full in ${full} of ${of} measured seconds only: ${fleet ? "the agents' own processes were late themselves" : 'this process was late itself'}, its event loop behind (CPU taken by other work on the machine)`;
}

/** The lateness note of one process's run (its own result). */
export function latenessOfRun(result: LoadResult): string | null {
  const { latency_ms: latency } = result;
  const e2e = latency.end_to_end.count > 0;
  return latenessNote({
    lag: latency.schedule_lag,
    latency: e2e ? latency.end_to_end : latency.confirm,
    latencyName: e2e ? 'end-to-end' : 'confirm',
    agentLagP99Ms: [],
    points: result.timeseries,
    warmupMs: result.workload.warmupMs,
    publishingEndedMs: result.publishing_ended_ms,
    scheduleEndMs: scheduleEndMs(result.workload),
    agentsOnOneMachine: null,
    viaProxy: result.via_proxy,
    ...inFlightOf(result.workload),
  });
}

/** What the workload's producers may have in flight together. */
export function inFlightOf(workload: Pick<LoadWorkload, 'producers' | 'confirmWindow'>): Pick<LatenessInput, 'inFlightCap' | 'confirms'> {
  const confirms = workload.confirmWindow > 0;
  return { inFlightCap: workload.producers * (confirms ? workload.confirmWindow : PLAIN_IN_FLIGHT_CAP), confirms };
}

/** The start's share of the lag, when the measured part's first seconds were much the worst. */
function startShare(points: readonly TimeSeriesPoint[], warmupMs: number): string | null {
  const measured = points.filter((point) => point.t_s * 1000 > warmupMs && point.schedule_lag_p99_ms !== null);
  if (measured.length <= START_POINTS * 2) return null;
  const lagOf = (point: TimeSeriesPoint) => point.schedule_lag_p99_ms!;
  const first = measured.slice(0, START_POINTS).map(lagOf);
  const rest = measured.slice(START_POINTS).map(lagOf);
  const restMedian = [...rest].sort((a, b) => a - b)[Math.floor(rest.length / 2)]!;
  if (Math.max(...first) <= 2 * restMedian) return null;
  const atStart = warmupMs > 0 ? `after the ${roundTo(warmupMs / 1000, 1)} s warm-up` : 'from the start';
  return `worst in the first ${START_POINTS} s ${atStart} (schedule lag p99 per second ${first.map((each) => roundTo(each, 1)).join(', ')} ms; median of the other seconds ${roundTo(restMedian, 1)} ms): the processes warming up${warmupMs > 0 ? '' : ' — a --warmup leaves the start out of the figures'}`;
}
