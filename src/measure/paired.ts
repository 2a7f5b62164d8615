/**
 * Paired comparison of two builds measured in alternation (pure). Each pair is one replicate of
 * the baseline and one of the candidate taken back to back, so whatever drifted over the run
 * (the machine's load, the broker's state, a neighbour on a shared runner) reaches both members
 * of a pair alike and cancels in their difference. A B B A … is a two-period crossover design,
 * and this is its textbook analysis: a t test on the within-pair differences (of the logarithms
 * when every value is positive, which makes the change a ratio).
 *
 * Why not a rank test: with n pairs, no distribution-free paired test (Wilcoxon's signed-rank
 * test, the sign test, a sign-flip permutation test) can give a two-sided p below 2/2^n — 0.0625
 * with 5 pairs, 0.031 with 6 — so after a correction over dozens of metrics it could never call
 * anything changed at the number of replicates a quick run affords. A bootstrap interval of so
 * few pairs is too narrow (it cannot see beyond the pairs it has: five pairs all of one sign, which
 * happens by chance one time in sixteen, give a bootstrap p of 0). The t test keeps its error rate
 * with few pairs and gives up power, not honesty, when a pair is an outlier (it widens the spread).
 */
import { studentTQuantile, studentTSurvival } from './distributions';
import { mean, standardDeviation } from './predictionInterval';
import type { NonEmptyArray } from './statistics';

export interface PairedTTest {
  /** Pairs. */
  readonly n: number;
  readonly meanDifference: number;
  readonly standardDeviation: number;
  /** meanDifference / (standardDeviation / √n); ±Infinity when every difference is the same non-zero value. */
  readonly t: number;
  readonly degreesOfFreedom: number;
  /** Two-sided. */
  readonly pValue: number;
  /** The mean difference's confidence interval (meanDifference ± t_{1-α/2, n-1} · s/√n). */
  readonly low: number;
  readonly high: number;
  readonly confidence: number;
}

/**
 * Student's paired t test on the differences (candidate − baseline of each pair), as
 * `scipy.stats.ttest_rel(candidate, baseline)` and R's `t.test(candidate, baseline, paired = TRUE)`.
 * Differences that are all equal have no spread: a non-zero one is certain (p = 0), zero is p = 1.
 * @throws RangeError with fewer than two pairs, a non-finite difference, or a confidence outside (0, 1).
 * @example pairedTTest([0.1, 0.2, 0.3]).pValue // 0.07417990022744858 (t = 3.4641, 2 df)
 */
export function pairedTTest(differences: NonEmptyArray<number>, confidence = 0.95): PairedTTest {
  if (differences.length < 2) throw new RangeError(`a paired t test needs at least two pairs; got ${differences.length}`);
  if (!(confidence > 0 && confidence < 1)) throw new RangeError(`confidence must lie strictly between 0 and 1; got ${confidence}`);
  for (const difference of differences)
    if (!Number.isFinite(difference)) throw new RangeError(`a paired t test needs finite differences; got ${difference}`);
  const n = differences.length;
  const meanDifference = mean(differences);
  const spread = standardDeviation(differences);
  const degreesOfFreedom = n - 1;
  const standardError = spread / Math.sqrt(n);
  const halfWidth = studentTQuantile(1 - (1 - confidence) / 2, degreesOfFreedom) * standardError;
  if (standardError === 0) {
    const t = meanDifference === 0 ? 0 : Math.sign(meanDifference) * Infinity;
    return {
      n,
      meanDifference,
      standardDeviation: 0,
      t,
      degreesOfFreedom,
      pValue: meanDifference === 0 ? 1 : 0,
      low: meanDifference,
      high: meanDifference,
      confidence,
    };
  }
  const t = meanDifference / standardError;
  const pValue = Math.min(1, 2 * studentTSurvival(Math.abs(t), degreesOfFreedom));
  return {
    n,
    meanDifference,
    standardDeviation: spread,
    t,
    degreesOfFreedom,
    pValue,
    low: meanDifference - halfWidth,
    high: meanDifference + halfWidth,
    confidence,
  };
}

export interface PairedChange {
  /** `ratio`: every value positive, the test on log(candidate / baseline); `difference`: on candidate − baseline. */
  readonly scale: 'ratio' | 'difference';
  /**
   * `ratio`: the geometric mean of the pairs' ratios (candidate / baseline) with its interval;
   * `difference`: the mean difference (candidate − baseline) with its interval, in the values' unit.
   */
  readonly estimate: number;
  readonly low: number;
  readonly high: number;
  readonly confidence: number;
  readonly pValue: number;
  readonly n: number;
  readonly degreesOfFreedom: number;
  /** Every pair equal within itself: nothing can differ (left out of a correction). */
  readonly constant: boolean;
}

/**
 * The candidate against the baseline, pair by pair (`baseline[i]` and `candidate[i]` were measured
 * back to back): a ratio when every value is positive (times and rates change by factors, and a
 * ratio's interval never reaches below zero), else a difference.
 * @throws RangeError when the two sides differ in length or hold fewer than two pairs.
 * @example comparePairs([100, 200, 300], [110, 210, 330]).estimate // 1.0829… (+8.3%)
 */
export function comparePairs(baseline: NonEmptyArray<number>, candidate: NonEmptyArray<number>, confidence = 0.95): PairedChange {
  if (baseline.length !== candidate.length)
    throw new RangeError(`pairs need as many baseline as candidate values; got ${baseline.length} and ${candidate.length}`);
  const constant = baseline.every((value, index) => value === candidate[index]);
  const positive = [...baseline, ...candidate].every((value) => value > 0);
  const differences = baseline.map((value, index) =>
    positive ? Math.log(candidate[index]! / value) : candidate[index]! - value,
  ) as unknown as NonEmptyArray<number>;
  const test = pairedTTest(differences, confidence);
  const back = positive ? Math.exp : (value: number) => value;
  return {
    scale: positive ? 'ratio' : 'difference',
    estimate: back(test.meanDifference),
    low: back(test.low),
    high: back(test.high),
    confidence,
    pValue: test.pValue,
    n: test.n,
    degreesOfFreedom: test.degreesOfFreedom,
    constant,
  };
}
