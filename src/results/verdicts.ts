/**
 * The last step of every comparison (pure), whichever way its metrics were weighed (two runs'
 * replicates, a history, or pairs measured in one run): one Benjamini–Hochberg correction over
 * every metric that was tested and could differ, then each metric's verdict — better or worse only
 * when significant after the correction and beyond its minimum effect.
 */
import { benjaminiHochberg } from '../measure/multipleTesting';
import { beyondMinimumEffect, type MinimumEffect } from './judge';
import type { ComparableResult, MetricComparison, ResultComparison, Verdict } from './compare';

/** A metric weighed but not yet corrected nor decided. */
export type WeighedMetric = Omit<MetricComparison, 'q_value' | 'verdict' | 'reason'> & {
  /** Every value on both sides equal: no test can see a difference; left out of the correction. */
  readonly constant: boolean;
  /** Why there is no test, when there is none. */
  readonly untested: string | null;
  /** Said after the verdict's reason (e.g. that the metric was judged relative to the bare floor). */
  readonly note?: string;
};

export interface WeighedResult {
  readonly key: string;
  readonly result: Pick<ComparableResult, 'name' | 'category' | 'parameters'>;
  readonly metrics: readonly WeighedMetric[];
}

/** The fields of a metric that was not tested (no direction, no value, or nothing to test it on). */
export function untestedMetric(
  base: Pick<MetricComparison, 'metric' | 'unit' | 'direction' | 'family' | 'previous' | 'current' | 'delta_percent'>,
  baseline: MetricComparison['baseline'],
  reason: string | null,
  minimumEffect: MinimumEffect | null = null,
): WeighedMetric {
  return {
    ...base,
    baseline,
    n_current: null,
    test: null,
    p_value: null,
    change: null,
    minimum_effect: minimumEffect,
    constant: false,
    untested: reason,
  };
}

/** One correction over every tested metric that could differ, then each metric's verdict. */
export function judgeWeighed(weighed: readonly WeighedResult[], alpha: number): { judged: number; matched: ResultComparison[] } {
  const judged = weighed.flatMap((entry) => entry.metrics).filter((metric) => metric.p_value !== null && !metric.constant);
  const qValues = benjaminiHochberg(judged.map((metric) => metric.p_value!));
  const adjusted = new Map(judged.map((metric, index) => [metric, qValues[index]!]));
  return {
    judged: judged.length,
    matched: weighed.map(({ key, result, metrics }) => ({
      key,
      name: result.name,
      category: result.category,
      parameters: result.parameters,
      metrics: metrics.map((metric) => decide(metric, adjusted.get(metric) ?? null, alpha)),
    })),
  };
}

function decide(metric: WeighedMetric, qValue: number | null, alpha: number): MetricComparison {
  const { constant, untested, note, ...rest } = metric;
  const verdictOf = (verdict: Verdict, reason: string): MetricComparison => ({
    ...rest,
    q_value: qValue,
    verdict,
    reason: note ? `${reason}; ${note}` : reason,
  });
  if (metric.direction === 'none') return verdictOf('n/a', 'no direction: shown, not judged');
  if (metric.previous === null || metric.current === null)
    return verdictOf('n/a', `no value in ${metric.previous === null ? 'the previous' : 'this'} run`);
  if (metric.change === null || metric.p_value === null) return verdictOf('unknown', `not judged: ${untested ?? 'no test applies'}`);
  if (constant) return verdictOf('same', 'every value equal on both sides (left out of the correction)');
  const q = qValue ?? 1;
  if (q > alpha) return verdictOf('same', `not significant after correction (q = ${formatQ(q)})`);
  const minimum = metric.minimum_effect!;
  if (!beyondMinimumEffect(metric.change, minimum))
    return verdictOf('same', `significant (q = ${formatQ(q)}) but within the minimum effect of ${describeMinimum(minimum, metric.unit)}`);
  const increased = metric.change.estimate > 0;
  const verdict: Verdict = increased === (metric.direction === 'higher') ? 'better' : 'worse';
  return verdictOf(verdict, `significant (q = ${formatQ(q)}) and beyond the minimum effect of ${describeMinimum(minimum, metric.unit)}`);
}

function formatQ(q: number): string {
  return q < 0.0001 ? '<0.0001' : q.toPrecision(2);
}

/** `±20% (config)`, `±7.4% (noise of 5 runs), at least 1 ms`, `±5% (paired)`. */
export function describeMinimum(minimum: MinimumEffect, unit: string): string {
  const source = minimum.source === 'history' ? `noise of ${minimum.runs} runs` : minimum.source;
  const percent = `±${Number(minimum.percent.toPrecision(2))}% (${source})`;
  return minimum.absolute > 0 ? `${percent}, at least ${minimum.absolute} ${unit}` : percent;
}
