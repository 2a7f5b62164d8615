/**
 * Figures of a consume window from what was read at its edges (pure): the consumers' rate over
 * the window, what the producers published meanwhile, and what the broker's queue looked like
 * in between — in particular whether it ran dry, which makes the window's rate the producers'
 * pace rather than the consumers' throughput.
 */
import { elapsedMs } from '../measure/clock';
import type { CounterReading } from './consumeBoard';
import { rateOf, summarizeRates } from './rates';

/**
 * True when the last `count` rates agree within `withinPercent` ((max - min) / median): the rate
 * is steady and more windows would only repeat it. False with fewer than `count` rates.
 * @example isSteady([20_000, 25_000, 25_500], 2, 5) // true (the last two are 2% apart)
 */
export function isSteady(rates: readonly number[], count: number, withinPercent: number): boolean {
  const last = rates.slice(-count);
  if (count < 1 || last.length < count) return false;
  const [first, ...rest] = last as [number, ...number[]];
  return summarizeRates([first, ...rest]).spreadPercent <= withinPercent;
}

/** One reading of the queue by the harness (`atNs`: when the broker's answer arrived). */
export interface DepthSample {
  readonly atNs: bigint;
  /** Ready messages (unacked ones are not counted by the broker here). */
  readonly ready: number;
  /** Consumers the broker has on the queue. */
  readonly consumers: number;
}

/** What the queue looked like during a window. */
export interface DepthSummary {
  /** Samples taken inside the window. */
  readonly samples: number;
  readonly minReady: number | null;
  readonly maxReady: number | null;
  readonly minConsumers: number | null;
  readonly maxConsumers: number | null;
  /** A sample inside the window found no ready message; null: no sample, so nobody knows. */
  readonly ranDry: boolean | null;
}

export interface ConsumeWindow {
  readonly startedNs: bigint;
  readonly endedNs: bigint;
  readonly durationMs: number;
  /** Deliveries counted by the consumers inside the window. */
  readonly delivered: number;
  readonly consumeRateMsgsPerSec: number;
  readonly consumeRateMbPerSec: number;
  /** Messages the producers handed to their connections inside the window, per second. */
  readonly publishRateMsgsPerSec: number;
  /** CPU the consumer threads used in the window, in % of one core (summed over threads); null where unknown. */
  readonly consumerCpuPercent: number | null;
  /** Consumer CPU time per delivery, in µs; null where unknown or nothing was delivered. */
  readonly cpuUsPerMessage: number | null;
  readonly depth: DepthSummary;
}

/**
 * The window between two readings of the counters, with the queue samples taken inside it.
 * @throws RangeError when the window has no duration, or a counter went backwards.
 * @example consumeWindow({ atNs: 0n, delivered: 0, published: 0 }, { atNs: 2_000_000_000n, delivered: 1000, published: 1200 }, 256, [])
 * // consumeRateMsgsPerSec 500, publishRateMsgsPerSec 600, depth.ranDry null
 */
export function consumeWindow(
  start: CounterReading,
  end: CounterReading,
  messageSizeBytes: number,
  samples: readonly DepthSample[],
): ConsumeWindow {
  if (end.delivered < start.delivered || end.published < start.published)
    throw new RangeError(`counters went backwards between the window's edges (${JSON.stringify({ start, end }, bigintAsString)})`);
  const durationMs = elapsedMs(start.atNs, end.atNs);
  const consume = rateOf(end.delivered - start.delivered, messageSizeBytes, durationMs);
  const cpu = cpuFigures(start.consumerCpuMs, end.consumerCpuMs, durationMs, end.delivered - start.delivered);
  return {
    startedNs: start.atNs,
    endedNs: end.atNs,
    durationMs,
    delivered: end.delivered - start.delivered,
    consumeRateMsgsPerSec: consume.msgsPerSec,
    consumeRateMbPerSec: consume.mbPerSec,
    publishRateMsgsPerSec: rateOf(end.published - start.published, messageSizeBytes, durationMs).msgsPerSec,
    ...cpu,
    depth: depthDuring(samples, start.atNs, end.atNs),
  };
}

/**
 * CPU share (% of one core) and CPU time per message between two CPU readings; nulls when either
 * reading is unknown (or, per message, when nothing was delivered).
 * @example cpuFigures(1000, 1600, 3000, 60_000) // { consumerCpuPercent: 20, cpuUsPerMessage: 10 }
 */
export function cpuFigures(
  startCpuMs: number | null | undefined,
  endCpuMs: number | null | undefined,
  durationMs: number,
  messages: number,
): { consumerCpuPercent: number | null; cpuUsPerMessage: number | null } {
  if (typeof startCpuMs !== 'number' || typeof endCpuMs !== 'number' || endCpuMs < startCpuMs || !(durationMs > 0))
    return { consumerCpuPercent: null, cpuUsPerMessage: null };
  const cpuMs = endCpuMs - startCpuMs;
  return { consumerCpuPercent: (cpuMs / durationMs) * 100, cpuUsPerMessage: messages > 0 ? (cpuMs * 1000) / messages : null };
}

/** The samples taken in `[startNs, endNs]`, summarised. */
export function depthDuring(samples: readonly DepthSample[], startNs: bigint, endNs: bigint): DepthSummary {
  const inside = samples.filter((sample) => sample.atNs >= startNs && sample.atNs <= endNs);
  if (inside.length === 0) return { samples: 0, minReady: null, maxReady: null, minConsumers: null, maxConsumers: null, ranDry: null };
  const ready = inside.map((sample) => sample.ready);
  const consumers = inside.map((sample) => sample.consumers);
  const minReady = Math.min(...ready);
  return {
    samples: inside.length,
    minReady,
    maxReady: Math.max(...ready),
    minConsumers: Math.min(...consumers),
    maxConsumers: Math.max(...consumers),
    ranDry: minReady === 0,
  };
}

/**
 * What bounds a set of windows' rate: `consumers` when the queue never ran dry in any of them
 * (a clean throughput), `producers` when it ran dry in at least one (the rate is the producers'
 * pace, a lower bound of the consumers' throughput), `unknown` when a window had no depth sample.
 */
export function boundOf(windows: readonly Pick<ConsumeWindow, 'depth'>[]): 'consumers' | 'producers' | 'unknown' {
  if (windows.some((window) => window.depth.ranDry === true)) return 'producers';
  if (windows.some((window) => window.depth.ranDry === null)) return 'unknown';
  return 'consumers';
}

function bigintAsString(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? value.toString() : value;
}
