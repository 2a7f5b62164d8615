/**
 * A target judged on an interval, not on a point (pure): the distribution-free confidence
 * interval of the median of independent repetitions (order statistics: with n values, the k-th
 * smallest and k-th largest, k the largest giving at least `minConfidence`; with n < 6 that is the
 * smallest and the largest), then: met when the whole interval is within the target, missed when
 * the whole interval lies beyond it, inconclusive otherwise. Noise alone never makes a miss: with
 * fewer than three repetitions a value beyond the target is inconclusive, never missed.
 */
import { round3 } from './round';

export interface MedianInterval {
  readonly low: number;
  readonly high: number;
  /** Coverage of the interval for the median (1 for a single value: it is the value). */
  readonly confidence: number;
  /** Repetitions it was made from. */
  readonly n: number;
}

export type TargetVerdict = 'met' | 'missed' | 'inconclusive';

/** P(X <= k) for X ~ Binomial(n, 1/2). */
function binomialCdfHalf(n: number, k: number): number {
  let sum = 0;
  let term = Math.pow(0.5, n);
  for (let i = 0; i <= k; i += 1) {
    sum += term;
    term = (term * (n - i)) / (i + 1);
  }
  return sum;
}

/**
 * The median's interval from `values` (independent repetitions); null for none.
 * @example medianInterval([3, 1, 2, 5, 4]) // { low: 1, high: 5, confidence: 0.9375, n: 5 }
 */
export function medianInterval(values: readonly number[], minConfidence = 0.95): MedianInterval | null {
  const sorted = values.filter((value) => Number.isFinite(value)).sort((a, b) => a - b);
  const n = sorted.length;
  if (n === 0) return null;
  if (n === 1) return { low: sorted[0]!, high: sorted[0]!, confidence: 1, n };
  // Coverage of [x(k), x(n-k+1)] is 1 - 2 P(X <= k-1); the widest k meeting minConfidence, else k = 1.
  let k = 1;
  for (let candidate = 2; candidate <= Math.floor(n / 2); candidate += 1) {
    if (1 - 2 * binomialCdfHalf(n, candidate - 1) >= minConfidence) k = candidate;
  }
  return { low: sorted[k - 1]!, high: sorted[n - k]!, confidence: 1 - 2 * binomialCdfHalf(n, k - 1), n };
}

/** Met, missed or inconclusive, from the interval against `comparator threshold`. */
export function judgeInterval(interval: MedianInterval, comparator: '<' | '>', threshold: number): TargetVerdict {
  const within = (value: number) => (comparator === '<' ? value < threshold : value > threshold);
  if (within(interval.low) && within(interval.high)) return 'met';
  // A miss needs an interval of repetitions beyond the target, never one value.
  if (interval.n >= 3 && !within(interval.low) && !within(interval.high)) return 'missed';
  return 'inconclusive';
}

/** `[86.9, 121.4] (5 repetitions, 94%)`, for messages. */
export function describeInterval(interval: MedianInterval, unit: string): string {
  const suffix = unit === '%' ? '%' : ` ${unit}`;
  return interval.n === 1
    ? `${round3(interval.low)}${suffix} (one measurement)`
    : `[${round3(interval.low)}${suffix}, ${round3(interval.high)}${suffix}] (${interval.n} repetitions, ${Math.round(interval.confidence * 100)}% interval of the median)`;
}
