/**
 * Comparison of two runs, as benchstat does it: results matched by name and parameters, each
 * metric's change in percent, and whether it is statistically significant (two-sided
 * Mann-Whitney U on the samples, alpha 0.05). Without samples a change is shown but not judged.
 * Pure: two runs in, a comparison out.
 */
import { isNonEmpty, mannWhitneyU, type MannWhitneyMethod } from '../measure/statistics';
import { describeParameters } from './keyMetrics';
import type { Category, Direction } from './rawResult';
import { samplesForMetric, type SampleSource } from './samples';

export const DEFAULT_ALPHA = 0.05;

/** A result as both archives (with samples) and history entries (values only) have it. */
export interface ComparableResult extends SampleSource {
  readonly name: string;
  readonly category: Category;
  readonly parameters: Readonly<Record<string, string | number | boolean>>;
  readonly metrics: Readonly<Record<string, { readonly value: number | null; readonly unit: string; readonly direction: Direction }>>;
  readonly timestamp?: string;
}

export interface ComparableRun {
  readonly run_id: string;
  readonly started_at: string;
  /** Full environment record, or the fingerprint fields a history entry keeps. */
  readonly environment: Readonly<Record<string, unknown>>;
  readonly results: readonly ComparableResult[];
}

/**
 * `better`/`worse`: significant change in that direction; `same`: not significant (`~`);
 * `unknown`: no samples to judge by; `n/a`: no value on one side, or a metric without direction.
 */
export type Verdict = 'better' | 'worse' | 'same' | 'unknown' | 'n/a';

export interface MetricComparison {
  readonly metric: string;
  readonly unit: string;
  readonly direction: Direction;
  readonly previous: number | null;
  readonly current: number | null;
  /** (current - previous) / |previous| * 100; null when previous is 0 or a value is missing. */
  readonly delta_percent: number | null;
  readonly p_value: number | null;
  readonly test: MannWhitneyMethod | null;
  readonly n_previous: number | null;
  readonly n_current: number | null;
  readonly verdict: Verdict;
}

export interface ResultComparison {
  readonly key: string;
  readonly name: string;
  readonly category: Category;
  readonly parameters: Readonly<Record<string, string | number | boolean>>;
  readonly metrics: readonly MetricComparison[];
}

export interface EnvironmentDifference {
  readonly field: string;
  readonly previous: string;
  readonly current: string;
}

export interface RunComparison {
  readonly previous_run_id: string;
  readonly previous_started_at: string;
  readonly current_run_id: string;
  readonly alpha: number;
  readonly same_fingerprint: boolean;
  readonly environment_differences: readonly EnvironmentDifference[];
  readonly matched: readonly ResultComparison[];
  /** Results only in the current run / only in the previous one (`name{parameters}`). */
  readonly added: readonly string[];
  readonly removed: readonly string[];
}

/** `name{k=v, ...}` with keys sorted: the identity of a result across runs. */
export function resultKey(result: Pick<ComparableResult, 'name' | 'parameters'>): string {
  const sorted = Object.fromEntries(Object.entries(result.parameters).sort(([a], [b]) => a.localeCompare(b)));
  return `${result.name}{${describeParameters(sorted)}}`;
}

/** Fields never compared: they differ on every run by nature. */
const VOLATILE_ENVIRONMENT_FIELDS = new Set(['captured_at', 'schema_version']);

export function compareEnvironments(
  previous: Readonly<Record<string, unknown>>,
  current: Readonly<Record<string, unknown>>,
): EnvironmentDifference[] {
  const fields = [...new Set([...Object.keys(previous), ...Object.keys(current)])].filter(
    (field) => !VOLATILE_ENVIRONMENT_FIELDS.has(field),
  );
  // Fields only one side records (a history entry keeps fewer) are not differences.
  return fields
    .filter((field) => field in previous && field in current && JSON.stringify(previous[field]) !== JSON.stringify(current[field]))
    .map((field) => ({ field, previous: String(previous[field]), current: String(current[field]) }));
}

/** The latest result per key (a run that kept old raw results may hold several). */
function indexByKey(results: readonly ComparableResult[]): Map<string, ComparableResult> {
  const index = new Map<string, ComparableResult>();
  for (const result of results) {
    const key = resultKey(result);
    const existing = index.get(key);
    if (!existing || (result.timestamp ?? '') >= (existing.timestamp ?? '')) index.set(key, result);
  }
  return index;
}

export function compareRuns(previous: ComparableRun, current: ComparableRun, options: { alpha?: number } = {}): RunComparison {
  const alpha = options.alpha ?? DEFAULT_ALPHA;
  const before = indexByKey(previous.results);
  const after = indexByKey(current.results);
  const matched: ResultComparison[] = [];
  for (const [key, result] of after) {
    const old = before.get(key);
    if (!old) continue;
    const metrics = Object.keys(result.metrics)
      .filter((metric) => old.metrics[metric] !== undefined)
      .map((metric) => compareMetric(metric, old, result, alpha));
    matched.push({ key, name: result.name, category: result.category, parameters: result.parameters, metrics });
  }
  return {
    previous_run_id: previous.run_id,
    previous_started_at: previous.started_at,
    current_run_id: current.run_id,
    alpha,
    same_fingerprint: previous.environment.fingerprint === current.environment.fingerprint,
    environment_differences: compareEnvironments(previous.environment, current.environment),
    matched,
    added: [...after.keys()].filter((key) => !before.has(key)),
    removed: [...before.keys()].filter((key) => !after.has(key)),
  };
}

function compareMetric(metric: string, old: ComparableResult, result: ComparableResult, alpha: number): MetricComparison {
  const currentMetric = result.metrics[metric]!;
  const previousValue = old.metrics[metric]!.value;
  const currentValue = currentMetric.value;
  const direction = currentMetric.direction;
  const delta =
    previousValue !== null && currentValue !== null && previousValue !== 0
      ? ((currentValue - previousValue) / Math.abs(previousValue)) * 100
      : null;
  const base = { metric, unit: currentMetric.unit, direction, previous: previousValue, current: currentValue, delta_percent: delta };
  // Significance only from replicates (rounds, threads). The per-message values inside an HDR
  // histogram are not independent samples: 30,000 latencies of one run would make any wiggle
  // "significant" (pseudo-replication). Their metrics get a delta and `?`, not a verdict.
  const oldSamples = samplesForMetric(old, metric, undefined, { includeHistograms: false });
  const newSamples = samplesForMetric(result, metric, undefined, { includeHistograms: false });
  if (!oldSamples || !newSamples || !isNonEmpty(oldSamples.values) || !isNonEmpty(newSamples.values)) {
    const verdict: Verdict =
      previousValue === null || currentValue === null || direction === 'none' ? 'n/a' : previousValue === currentValue ? 'same' : 'unknown';
    return {
      ...base,
      p_value: null,
      test: null,
      n_previous: oldSamples?.values.length ?? null,
      n_current: newSamples?.values.length ?? null,
      verdict,
    };
  }
  const test = mannWhitneyU(oldSamples.values, newSamples.values);
  return {
    ...base,
    p_value: test.pValue,
    test: test.method,
    n_previous: test.n1,
    n_current: test.n2,
    verdict: judge(direction, test.pValue < alpha, previousValue, currentValue),
  };
}

function judge(direction: Direction, significant: boolean, previous: number | null, current: number | null): Verdict {
  if (direction === 'none' || previous === null || current === null) return 'n/a';
  if (!significant || previous === current) return 'same';
  const increased = current > previous;
  return increased === (direction === 'higher') ? 'better' : 'worse';
}

export interface Regression {
  readonly result: string;
  readonly metric: MetricComparison;
}

/** Significant changes for the worse larger than `thresholdPercent` (the `--threshold` check). */
export function regressionsBeyond(comparison: RunComparison, thresholdPercent: number): Regression[] {
  const regressions: Regression[] = [];
  for (const result of comparison.matched) {
    for (const metric of result.metrics) {
      if (metric.verdict === 'worse' && metric.delta_percent !== null && Math.abs(metric.delta_percent) > thresholdPercent) {
        regressions.push({ result: result.key, metric });
      }
    }
  }
  return regressions;
}

export interface VerdictCounts {
  readonly better: number;
  readonly worse: number;
  readonly same: number;
  readonly unknown: number;
}

export function countVerdicts(comparison: RunComparison): VerdictCounts {
  const all = comparison.matched.flatMap((result) => result.metrics);
  const count = (verdict: Verdict) => all.filter((metric) => metric.verdict === verdict).length;
  return { better: count('better'), worse: count('worse'), same: count('same'), unknown: count('unknown') };
}
