/**
 * What a comparison amounts to: the `--threshold` gate (which metrics fail a run) and the count
 * of verdicts (pure).
 */
import type { MetricComparison, RunComparison, Verdict } from './compare';

export interface Regression {
  readonly result: string;
  readonly metric: MetricComparison;
}

/**
 * The `--threshold` gate: metrics judged worse (significant after correction and beyond their
 * minimum effect) whose estimated change is also beyond `thresholdPercent` (a change from a
 * baseline of 0, which has no percentage, always is).
 */
export function regressionsBeyond(comparison: RunComparison, thresholdPercent: number): Regression[] {
  const regressions: Regression[] = [];
  for (const result of comparison.matched) {
    for (const metric of result.metrics) {
      if (metric.verdict !== 'worse' || metric.change === null) continue;
      const percent = metric.change.estimate_percent;
      if (percent === null || Math.abs(percent) > thresholdPercent) regressions.push({ result: result.key, metric });
    }
  }
  return regressions;
}

export interface VerdictCounts {
  readonly better: number;
  readonly worse: number;
  readonly same: number;
  readonly unknown: number;
  /** Metrics that took part in the correction (the denominator of a false-alarm rate). */
  readonly judged: number;
}

export function countVerdicts(comparison: RunComparison): VerdictCounts {
  const all = comparison.matched.flatMap((result) => result.metrics);
  const count = (verdict: Verdict) => all.filter((metric) => metric.verdict === verdict).length;
  return {
    better: count('better'),
    worse: count('worse'),
    same: count('same'),
    unknown: count('unknown'),
    judged: comparison.correction.judged,
  };
}
