/**
 * Comparison of a run with its baseline, built to be gated on (pure: runs in, a comparison out).
 *
 * 1. Results are matched by name and parameters.
 * 2. Each metric with a direction is weighed (judge.ts): Mann–Whitney U on the replicates of
 *    this run and of the previous comparable run, or, without replicates, a t prediction test of
 *    this run's value against earlier runs of the baseline's build; the change comes with its
 *    confidence interval.
 * 3. The p-values of every judged metric are corrected together (Benjamini–Hochberg, false
 *    discovery rate α = 0.05): with dozens of metrics, some would otherwise pass α by chance.
 * 4. A metric is better or worse only when it is significant after the correction **and** its
 *    change is larger than its minimum effect (its own run-to-run noise, or its family's default).
 */
import { benjaminiHochberg } from '../measure/multipleTesting';
import { beyondMinimumEffect, weighEvidence, type Baseline, type Change, type ComparisonTest, type MinimumEffect } from './judge';
import { describeParameters } from './keyMetrics';
import { DEFAULT_MINIMUM_EFFECTS, familyOf, type MetricFamily, type MinimumEffects } from '../minimumEffects';
import { timesAreRecovery } from '../scenarios/catalogue';
import type { Category, Direction } from './rawResult';
import type { SampleSource } from './samples';

export type { Baseline, Change, ComparisonTest, MinimumEffect } from './judge';

/** False discovery rate of the Benjamini–Hochberg correction. */
export const DEFAULT_ALPHA = 0.05;
/** Confidence of every change's interval. */
export const DEFAULT_CONFIDENCE = 0.95;

/** A result as both archives (with replicates and samples) and history entries (values only) have it. */
export interface ComparableResult extends SampleSource {
  readonly name: string;
  readonly category: Category;
  readonly parameters: Readonly<Record<string, string | number | boolean>>;
  readonly metrics: Readonly<Record<string, { readonly value: number | null; readonly unit: string; readonly direction: Direction }>>;
  readonly replicates?: Readonly<Record<string, readonly number[]>>;
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
 * `better`/`worse`: significant after correction and beyond the minimum effect; `same` (`~`):
 * not significant, or within the minimum effect; `unknown` (`?`): not judged (no replicates and
 * too short a history); `n/a`: no value on one side, or a metric without direction.
 */
export type Verdict = 'better' | 'worse' | 'same' | 'unknown' | 'n/a';

export interface MetricComparison {
  readonly metric: string;
  readonly unit: string;
  readonly direction: Direction;
  readonly family: MetricFamily;
  /** The previous comparable run's value and this run's (medians of their replicates when they have them). */
  readonly previous: number | null;
  readonly current: number | null;
  /** (current - previous) / |previous| * 100; null when previous is 0 or a value is missing. */
  readonly delta_percent: number | null;
  readonly baseline: Baseline;
  /** Replicates behind this run's value (1 without replicates); null when not judged. */
  readonly n_current: number | null;
  readonly test: ComparisonTest | null;
  readonly p_value: number | null;
  /** Benjamini–Hochberg adjusted p-value; null when the metric was not part of the correction. */
  readonly q_value: number | null;
  readonly change: Change | null;
  readonly minimum_effect: MinimumEffect | null;
  readonly verdict: Verdict;
  /** One line: why this verdict. */
  readonly reason: string;
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
  /** False discovery rate the correction holds. */
  readonly alpha: number;
  /** Confidence of the change intervals. */
  readonly confidence: number;
  readonly correction: { readonly method: 'benjamini-hochberg'; readonly judged: number };
  /** Earlier runs of the baseline's build the history test and the learned minimum effects drew on, oldest first. */
  readonly history_run_ids: readonly string[];
  readonly minimum_effects: MinimumEffects;
  readonly same_fingerprint: boolean;
  readonly environment_differences: readonly EnvironmentDifference[];
  readonly matched: readonly ResultComparison[];
  /** Results only in the current run / only in the previous one (`name{parameters}`). */
  readonly added: readonly string[];
  readonly removed: readonly string[];
}

export interface CompareOptions {
  readonly alpha?: number;
  readonly confidence?: number;
  /**
   * Usable earlier runs of the previous run's build (same fingerprint, passed), oldest first,
   * the previous run among them: the history baseline and the source of learned minimum effects.
   */
  readonly history?: readonly Pick<ComparableRun, 'run_id' | 'results'>[];
  readonly minimumEffects?: MinimumEffects;
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

type Weighed = Omit<MetricComparison, 'q_value' | 'verdict' | 'reason'> & { readonly constant: boolean; readonly untested: string | null };

export function compareRuns(previous: ComparableRun, current: ComparableRun, options: CompareOptions = {}): RunComparison {
  const alpha = options.alpha ?? DEFAULT_ALPHA;
  const confidence = options.confidence ?? DEFAULT_CONFIDENCE;
  const settings = options.minimumEffects ?? DEFAULT_MINIMUM_EFFECTS;
  const history = (options.history ?? []).slice(-settings.historyRuns);
  const historyIndex = history.map((run) => ({ run_id: run.run_id, results: indexByKey(run.results) }));
  const before = indexByKey(previous.results);
  const after = indexByKey(current.results);

  const weighed: { key: string; result: ComparableResult; metrics: Weighed[] }[] = [];
  for (const [key, result] of after) {
    const old = before.get(key);
    if (!old) continue;
    const metrics = Object.keys(result.metrics)
      .filter((metric) => old.metrics[metric] !== undefined)
      .map((metric): Weighed => {
        const now = result.metrics[metric]!;
        const then = old.metrics[metric]!;
        const base = {
          metric,
          unit: now.unit,
          direction: now.direction,
          family: familyOf(metric, now.unit, timesAreRecovery(result), now.direction),
          previous: then.value,
          current: now.value,
          delta_percent:
            then.value !== null && now.value !== null && then.value !== 0 ? ((now.value - then.value) / Math.abs(then.value)) * 100 : null,
        };
        if (now.direction === 'none' || then.value === null || now.value === null) {
          return {
            ...base,
            baseline: { kind: 'none', n: 0 },
            n_current: null,
            test: null,
            p_value: null,
            change: null,
            minimum_effect: null,
            constant: false,
            untested: null,
          };
        }
        const evidence = weighEvidence(
          {
            family: base.family,
            current: now.value,
            currentReplicates: finite(result.replicates?.[metric]),
            previousRunId: previous.run_id,
            previousReplicates: finite(old.replicates?.[metric]),
            history: historyIndex.flatMap((run) => {
              const value = run.results.get(key)?.metrics[metric]?.value;
              return typeof value === 'number' && Number.isFinite(value) ? [{ run_id: run.run_id, value }] : [];
            }),
          },
          settings,
          confidence,
        );
        const { constant, untested_reason, ...rest } = evidence;
        return { ...base, ...rest, constant, untested: untested_reason };
      });
    weighed.push({ key, result, metrics });
  }

  // One correction over every metric that was tested and could show a difference.
  const judged = weighed.flatMap((entry) => entry.metrics).filter((metric) => metric.p_value !== null && !metric.constant);
  const adjusted = new Map(judged.map((metric, index) => [metric, benjaminiHochberg(judged.map((each) => each.p_value!))[index]!]));

  return {
    previous_run_id: previous.run_id,
    previous_started_at: previous.started_at,
    current_run_id: current.run_id,
    alpha,
    confidence,
    correction: { method: 'benjamini-hochberg', judged: judged.length },
    history_run_ids: history.map((run) => run.run_id),
    minimum_effects: settings,
    same_fingerprint: previous.environment.fingerprint === current.environment.fingerprint,
    environment_differences: compareEnvironments(previous.environment, current.environment),
    matched: weighed.map(({ key, result, metrics }) => ({
      key,
      name: result.name,
      category: result.category,
      parameters: result.parameters,
      metrics: metrics.map((metric) => decide(metric, adjusted.get(metric) ?? null, alpha)),
    })),
    added: [...after.keys()].filter((key) => !before.has(key)),
    removed: [...before.keys()].filter((key) => !after.has(key)),
  };
}

function finite(values: readonly number[] | undefined): readonly number[] | undefined {
  const kept = values?.filter((value) => Number.isFinite(value));
  return kept && kept.length > 0 ? kept : undefined;
}

function decide(metric: Weighed, qValue: number | null, alpha: number): MetricComparison {
  const { constant, untested, ...rest } = metric;
  const verdictOf = (verdict: Verdict, reason: string): MetricComparison => ({ ...rest, q_value: qValue, verdict, reason });
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

/** `±20% (config)`, `±7.4% (noise of 5 runs), at least 1 ms`. */
export function describeMinimum(minimum: MinimumEffect, unit: string): string {
  const percent = `±${Number(minimum.percent.toPrecision(2))}% (${minimum.source === 'history' ? `noise of ${minimum.runs} runs` : 'config'})`;
  return minimum.absolute > 0 ? `${percent}, at least ${minimum.absolute} ${unit}` : percent;
}
