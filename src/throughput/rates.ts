/**
 * Rates from rounds (pure): a round's wall time runs from the earliest first publish of any
 * worker to the latest completion; a result's value is the median round, and every round's
 * rate is kept as a sample so a reader (and the comparison) sees the spread.
 */
import { median, type NonEmptyArray } from '../measure/statistics';

/** Bytes in a megabyte for `*_mb_per_sec` (decimal, 10^6). */
export const BYTES_PER_MB = 1_000_000;

/** One worker's part of a round (times are `process.hrtime.bigint()` readings). */
export interface WorkerRoundPart {
  readonly startedNs: bigint;
  readonly completedNs: bigint;
  readonly published: number;
  readonly errors: number;
  /** Publishes not settled within the publish bound. */
  readonly unsettled: number;
}

export interface CombinedRound {
  readonly startedNs: bigint;
  readonly completedNs: bigint;
  /** Wall time of the round across every worker, in ms. */
  readonly durationMs: number;
  readonly published: number;
  readonly errors: number;
  /** Publishes not settled within the publish bound, each of which stopped its publisher for the round. */
  readonly unsettled: number;
}

/** The round as the whole pool saw it: earliest start to latest completion, counts summed. */
export function combineWorkerRounds(parts: NonEmptyArray<WorkerRoundPart>): CombinedRound {
  let startedNs = parts[0].startedNs;
  let completedNs = parts[0].completedNs;
  let published = 0;
  let errors = 0;
  let unsettled = 0;
  for (const part of parts) {
    if (part.startedNs < startedNs) startedNs = part.startedNs;
    if (part.completedNs > completedNs) completedNs = part.completedNs;
    published += part.published;
    errors += part.errors;
    unsettled += part.unsettled;
  }
  return { startedNs, completedNs, durationMs: Number(completedNs - startedNs) / 1e6, published, errors, unsettled };
}

export interface Rate {
  readonly msgsPerSec: number;
  readonly mbPerSec: number;
}

/**
 * Messages and payload megabytes per second over `durationMs`.
 * @throws RangeError when the duration is not positive (a rate over no time means nothing).
 */
export function rateOf(messages: number, messageSizeBytes: number, durationMs: number): Rate {
  if (!(durationMs > 0) || !Number.isFinite(durationMs)) throw new RangeError(`a rate needs a positive duration; got ${durationMs} ms`);
  const msgsPerSec = (messages * 1000) / durationMs;
  return { msgsPerSec, mbPerSec: (msgsPerSec * messageSizeBytes) / BYTES_PER_MB };
}

export interface RateSummary {
  /** Median of the per-round rates (interpolated for an even count). */
  readonly median: number;
  readonly min: number;
  readonly max: number;
  /** (max - min) / median, in %: how noisy the rounds were. */
  readonly spreadPercent: number;
  readonly rounds: number;
}

export function summarizeRates(rates: NonEmptyArray<number>): RateSummary {
  const middle = median(rates);
  const min = Math.min(...rates);
  const max = Math.max(...rates);
  return { median: middle, min, max, spreadPercent: middle > 0 ? ((max - min) / middle) * 100 : 0, rounds: rates.length };
}

/** Harness rate as a percentage of the bare rate: 100 means no overhead. */
export function overheadRatioPercent(harnessMsgsPerSec: number, bareMsgsPerSec: number): number {
  if (!(bareMsgsPerSec > 0)) throw new RangeError(`the bare rate must be positive; got ${bareMsgsPerSec}`);
  return (harnessMsgsPerSec / bareMsgsPerSec) * 100;
}

/** Rounds a figure for a result file: 4 significant digits below 1000, whole numbers above. */
export function roundFigure(value: number): number {
  if (!Number.isFinite(value)) return value;
  return Math.abs(value) >= 1000 ? Math.round(value) : Number(value.toPrecision(4));
}
