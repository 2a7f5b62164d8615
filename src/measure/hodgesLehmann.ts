/**
 * How large a change is, with its uncertainty: the Hodges–Lehmann estimate of the shift between
 * two samples (the median of every pairwise difference x_i - y_j) and the distribution-free
 * confidence interval that goes with the Mann–Whitney/Wilcoxon rank-sum test (Moses' interval),
 * as R's `wilcox.test(x, y, conf.int = TRUE)` computes them. Pure; pinned in tests to published
 * R results and to a brute-force enumeration.
 */
import { exactUCounts, rankWithTies, type NonEmptyArray } from './statistics';
import { normalQuantile } from './distributions';

export type ShiftMethod = 'exact' | 'asymptotic';

export interface ShiftEstimate {
  /** Median of the n1 * n2 differences x_i - y_j, in the samples' unit. */
  readonly estimate: number;
  readonly low: number;
  readonly high: number;
  /**
   * Confidence the interval really has. Exact intervals are discrete: with few values the
   * requested level cannot be reached and the achieved one is reported (never rounded up).
   */
  readonly confidence: number;
  readonly method: ShiftMethod;
  readonly n1: number;
  readonly n2: number;
}

/** R's default: the exact interval when both samples have fewer than 50 values and nothing is tied. */
const EXACT_BELOW = 50;

/**
 * Shift of `x` relative to `y` (x - y) with its confidence interval at `confidence`.
 * Exact (no ties, both samples under 50 values): the interval runs from the qu-th smallest to the
 * qu-th largest difference, qu the α/2 quantile of U (R's `qwilcox`), at least 1. Otherwise the
 * normal approximation with tie and continuity correction, inverted as R inverts it; R finds each
 * limit by `uniroot` (to 1e-4), here it is the exact point where the statistic crosses the
 * quantile, which is always one of the pairwise differences.
 * @throws RangeError on a non-finite value or a confidence outside (0, 1).
 * @example hodgesLehmannShift([6, 7, 8, 9, 10], [1, 2, 3, 4, 5]) // estimate 5, [2, 8] at 96.8% (exact)
 */
export function hodgesLehmannShift(x: NonEmptyArray<number>, y: NonEmptyArray<number>, confidence = 0.95): ShiftEstimate {
  if (!(confidence > 0 && confidence < 1)) throw new RangeError(`confidence must lie strictly between 0 and 1; got ${confidence}`);
  for (const value of [...x, ...y]) {
    if (!Number.isFinite(value)) throw new RangeError(`the Hodges–Lehmann shift needs finite numbers; got ${value}`);
  }
  const n1 = x.length;
  const n2 = y.length;
  const differences: number[] = [];
  for (const xi of x) for (const yj of y) differences.push(xi - yj);
  differences.sort((a, b) => a - b);
  const estimate = medianOfSorted(differences);
  const tied = new Set([...x, ...y]).size < n1 + n2;
  const base = { estimate, n1, n2 };
  if (!tied && n1 < EXACT_BELOW && n2 < EXACT_BELOW) return { ...base, ...exactInterval(differences, n1, n2, 1 - confidence) };
  return { ...base, ...asymptoticInterval(x, y, differences, 1 - confidence) };
}

function medianOfSorted(sorted: readonly number[]): number {
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

function exactInterval(differences: readonly number[], n1: number, n2: number, alpha: number) {
  const counts = exactUCounts(n1, n2);
  let total = 0;
  for (const count of counts) total += count;
  // cdf[q] = P(U <= q); qu = the smallest q with cdf >= alpha/2 (R's qwilcox, with its 10-epsilon fuzz).
  const target = alpha / 2 - 10 * Number.EPSILON;
  let cumulative = 0;
  let qu = 0;
  for (; qu < counts.length; qu += 1) {
    cumulative += counts[qu]!;
    if (cumulative / total >= target) break;
  }
  if (qu === 0) qu = 1;
  const ql = n1 * n2 - qu;
  let belowQu = 0;
  for (let k = 0; k < qu; k += 1) belowQu += counts[k]!;
  return {
    low: differences[qu - 1]!,
    high: differences[ql]!,
    confidence: 1 - (2 * belowQu) / total,
    method: 'exact' as const,
  };
}

/**
 * Normalized rank-sum statistic of (x - d) against y, as R's internal W(d): positive while x - d
 * still lies above y, with tie correction in the variance and a continuity correction of 1/2.
 */
function shiftedStatistic(x: readonly number[], y: readonly number[], d: number): number {
  const n1 = x.length;
  const n2 = y.length;
  const n = n1 + n2;
  const { ranks, tieGroupSizes } = rankWithTies([...x.map((value) => value - d), ...y]);
  let rankSum = 0;
  for (let i = 0; i < n1; i += 1) rankSum += ranks[i]!;
  const dz = rankSum - (n1 * (n1 + 1)) / 2 - (n1 * n2) / 2;
  const tieTerm = tieGroupSizes.reduce((sum, t) => sum + (t ** 3 - t), 0);
  const sigma = Math.sqrt(((n1 * n2) / 12) * (n + 1 - tieTerm / (n * (n - 1))));
  return (dz - Math.sign(dz) * 0.5) / sigma;
}

function asymptoticInterval(x: readonly number[], y: readonly number[], differences: readonly number[], alpha: number) {
  const z = normalQuantile(1 - alpha / 2);
  const points = [...new Set(differences)];
  return { low: crossing(x, y, points, z), high: crossing(x, y, points, -z), confidence: 1 - alpha, method: 'asymptotic' as const };
}

/**
 * The shift d where W(d) (non-increasing in d) crosses `level`. W only changes at pairwise
 * differences, so the crossing is one of them (R's uniroot converges to it); when W equals the
 * level on a whole interval, that interval's midpoint. Outside the range, the end R returns.
 */
function crossing(x: readonly number[], y: readonly number[], points: readonly number[], level: number): number {
  const first = points[0]!;
  const last = points[points.length - 1]!;
  if (points.length === 1 || shiftedStatistic(x, y, first) - level <= 0) return first;
  if (shiftedStatistic(x, y, last) - level >= 0) return last;
  // Binary search over the midpoints between consecutive differences for the first one at or below the level.
  const between = (k: number) => (points[k]! + points[k + 1]!) / 2;
  let lowIndex = 0;
  let highIndex = points.length - 2;
  if (shiftedStatistic(x, y, between(highIndex)) - level > 0) return last;
  while (lowIndex < highIndex) {
    const middle = Math.floor((lowIndex + highIndex) / 2);
    if (shiftedStatistic(x, y, between(middle)) - level > 0) lowIndex = middle + 1;
    else highIndex = middle;
  }
  return shiftedStatistic(x, y, between(lowIndex)) - level === 0 ? between(lowIndex) : points[lowIndex]!;
}
