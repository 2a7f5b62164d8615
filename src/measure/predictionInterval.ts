/**
 * Run-level statistics over a history: how far one new run's value lies from the values of
 * earlier runs of the same build, measured against their run-to-run spread (Student's t
 * prediction interval, as Bencher's t-test thresholds do). Pure.
 */
import { studentTQuantile, studentTSurvival } from './distributions';
import type { NonEmptyArray } from './statistics';

export function mean(values: NonEmptyArray<number>): number {
  let sum = 0;
  for (const value of values) sum += value;
  return sum / values.length;
}

/** Sample standard deviation (n - 1 in the denominator); 0 for a single value. */
export function standardDeviation(values: NonEmptyArray<number>): number {
  if (values.length < 2) return 0;
  const center = mean(values);
  let squares = 0;
  for (const value of values) squares += (value - center) ** 2;
  return Math.sqrt(squares / (values.length - 1));
}

export interface PredictionTest {
  /** current - mean(baseline), in the values' unit. */
  readonly estimate: number;
  readonly low: number;
  readonly high: number;
  readonly confidence: number;
  /** Two-sided: how likely a new run of the baseline's build lies at least this far from their mean. */
  readonly pValue: number;
  readonly degreesOfFreedom: number;
  readonly baselineMean: number;
  readonly baselineStandardDeviation: number;
  /** Baseline runs. */
  readonly n: number;
}

/**
 * Is `current` (one run's value) a plausible further run of the build whose runs gave
 * `baseline`? t = (current - mean) / (s * sqrt(1 + 1/n)) with n - 1 degrees of freedom: the
 * difference carries the new run's own run-to-run variance and the uncertainty of the mean.
 * The interval is current - mean ± t_{1-α/2} * s * sqrt(1 + 1/n).
 * With s = 0 (every baseline run gave the same value) any difference is certain (p = 0), none is p = 1.
 * @throws RangeError with fewer than two baseline values (no spread to judge by).
 * @example predictionTest([100, 104, 98, 102], 80).pValue // 0.00536 (t = -7.27, 3 df)
 */
export function predictionTest(baseline: NonEmptyArray<number>, current: number, confidence = 0.95): PredictionTest {
  if (baseline.length < 2) throw new RangeError(`a prediction test needs at least two baseline runs; got ${baseline.length}`);
  if (!(confidence > 0 && confidence < 1)) throw new RangeError(`confidence must lie strictly between 0 and 1; got ${confidence}`);
  const n = baseline.length;
  const baselineMean = mean(baseline);
  const baselineStandardDeviation = standardDeviation(baseline);
  const estimate = current - baselineMean;
  const scale = baselineStandardDeviation * Math.sqrt(1 + 1 / n);
  const degreesOfFreedom = n - 1;
  const halfWidth = studentTQuantile(1 - (1 - confidence) / 2, degreesOfFreedom) * scale;
  const pValue = scale === 0 ? (estimate === 0 ? 1 : 0) : Math.min(1, 2 * studentTSurvival(Math.abs(estimate) / scale, degreesOfFreedom));
  return {
    estimate,
    low: estimate - halfWidth,
    high: estimate + halfWidth,
    confidence,
    pValue,
    degreesOfFreedom,
    baselineMean,
    baselineStandardDeviation,
    n,
  };
}

/**
 * Half-width of the prediction interval for one more run, as a percentage of the baseline mean:
 * t_{1-α/2, n-1} * sqrt(1 + 1/n) * s / |mean| * 100. This is the metric's own run-to-run noise
 * band; with few runs the t factor widens it (3 runs: 4.97 coefficients of variation; 10 runs: 2.37).
 * Null when the mean is 0 (no relative band exists) or with fewer than two runs.
 */
export function noiseBandPercent(baseline: NonEmptyArray<number>, confidence = 0.95): number | null {
  if (baseline.length < 2) return null;
  const center = mean(baseline);
  if (center === 0) return null;
  const n = baseline.length;
  const t = studentTQuantile(1 - (1 - confidence) / 2, n - 1);
  return ((t * Math.sqrt(1 + 1 / n) * standardDeviation(baseline)) / Math.abs(center)) * 100;
}
