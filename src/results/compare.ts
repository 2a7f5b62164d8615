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
import { weighEvidence, type Baseline, type Change, type ComparisonTest, type MinimumEffect } from './judge';
import { describeParameters } from './keyMetrics';
import { DEFAULT_MINIMUM_EFFECTS, familyOf, METRIC_FAMILIES, type MetricFamily, type MinimumEffects } from '../minimumEffects';
import { timesAreRecovery } from '../scenarios/catalogue';
import { findMachineShifts, floorChanges, isClientResult, relativeToFloor, type MachineShift } from './commonMode';
import { judgeWeighed, untestedMetric, type WeighedMetric, type WeighedResult } from './verdicts';
import type { Category, Direction } from './rawResult';
import type { SampleSource } from './samples';

export type { Baseline, Change, ComparisonTest, MinimumEffect } from './judge';
export type { MachineShift } from './commonMode';
export { describeMinimum } from './verdicts';

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
  /**
   * `sequential`: this run against an earlier one (and its build's history); `paired`: two builds
   * measured in one run, their replicates alternating (`bench ab`): `previous_*` is then the
   * baseline build's side and `current_run_id` the candidate's.
   */
  readonly design: 'sequential' | 'paired';
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
  /** Families that moved as a whole, with what the run's bare floor did meanwhile (commonMode.ts). */
  readonly machine_shifts: readonly MachineShift[];
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
export function indexByKey(results: readonly ComparableResult[]): Map<string, ComparableResult> {
  const index = new Map<string, ComparableResult>();
  for (const result of results) {
    const key = resultKey(result);
    const existing = index.get(key);
    if (!existing || (result.timestamp ?? '') >= (existing.timestamp ?? '')) index.set(key, result);
  }
  return index;
}

/** What weighing one run's metric needs: the history of the baseline's build, settings, and the machine's shift to remove. */
interface WeighContext {
  readonly previousRunId: string;
  readonly history: readonly { readonly run_id: string; readonly results: ReadonlyMap<string, ComparableResult> }[];
  readonly settings: MinimumEffects;
  readonly confidence: number;
  /** Per family, the machine's speed ratio to judge client metrics against (absent: 1, as they are). */
  readonly speedRatios?: ReadonlyMap<MetricFamily, number>;
}

/** One matched result's metrics, weighed (the current values first brought back to the previous run's machine, for a family judged relative to its floor). */
function weighResult(key: string, result: ComparableResult, old: ComparableResult, context: WeighContext): WeighedResult {
  const metrics = Object.keys(result.metrics)
    .filter((metric) => old.metrics[metric] !== undefined)
    .map((metric): WeighedMetric => {
      const now = result.metrics[metric]!;
      const then = old.metrics[metric]!;
      const base = baseOf(metric, now, then.value, result);
      if (now.direction === 'none' || then.value === null || now.value === null) return untestedMetric(base, { kind: 'none', n: 0 }, null);
      const speed = isClientResult(result) ? (context.speedRatios?.get(base.family) ?? 1) : 1;
      const adjust = (values: readonly number[]) => relativeToFloor(values, speed, now.direction === 'higher');
      const replicates = finite(result.replicates?.[metric]);
      const evidence = weighEvidence(
        {
          family: base.family,
          current: speed === 1 ? now.value : adjust([now.value])[0]!,
          currentReplicates: replicates && speed !== 1 ? adjust(replicates) : replicates,
          previousRunId: context.previousRunId,
          previousReplicates: finite(old.replicates?.[metric]),
          history: context.history.flatMap((run) => {
            const value = run.results.get(key)?.metrics[metric]?.value;
            return typeof value === 'number' && Number.isFinite(value) ? [{ run_id: run.run_id, value }] : [];
          }),
        },
        context.settings,
        context.confidence,
      );
      const { constant, untested_reason, ...rest } = evidence;
      const note = speed === 1 ? undefined : `judged relative to the bare floor (the machine at ${(speed * 100).toFixed(1)}% of its speed)`;
      return { ...base, ...rest, constant, untested: untested_reason, ...(note ? { note } : {}) };
    });
  return { key, result, metrics };
}

/** What every metric comparison starts with: names, unit, direction, family and the two values. */
export function baseOf(
  metric: string,
  now: ComparableResult['metrics'][string],
  previous: number | null,
  result: Pick<ComparableResult, 'name' | 'category'>,
): Pick<MetricComparison, 'metric' | 'unit' | 'direction' | 'family' | 'previous' | 'current' | 'delta_percent'> {
  return {
    metric,
    unit: now.unit,
    direction: now.direction,
    family: familyOf(metric, now.unit, timesAreRecovery(result), now.direction),
    previous,
    current: now.value,
    delta_percent: previous !== null && now.value !== null && previous !== 0 ? ((now.value - previous) / Math.abs(previous)) * 100 : null,
  };
}

export function compareRuns(previous: ComparableRun, current: ComparableRun, options: CompareOptions = {}): RunComparison {
  const alpha = options.alpha ?? DEFAULT_ALPHA;
  const settings = options.minimumEffects ?? DEFAULT_MINIMUM_EFFECTS;
  const history = (options.history ?? []).slice(-settings.historyRuns);
  const before = indexByKey(previous.results);
  const after = indexByKey(current.results);
  const matched = [...after].flatMap(([key, result]) => {
    const old = before.get(key);
    return old ? [{ key, result, old }] : [];
  });
  const context: WeighContext = {
    previousRunId: previous.run_id,
    history: history.map((run) => ({ run_id: run.run_id, results: indexByKey(run.results) })),
    settings,
    confidence: options.confidence ?? DEFAULT_CONFIDENCE,
  };
  const weigh = (each: WeighContext) => matched.map(({ key, result, old }) => weighResult(key, result, old, each));
  // A machine that shifted as a whole is judged once more, relative to its bare floor.
  const firstPass = weigh(context);
  const minimumPercent = Object.fromEntries(METRIC_FAMILIES.map((family) => [family, settings.families[family].relativePercent]));
  const machineShifts = findMachineShifts(firstPass, floorChanges(before, after), minimumPercent as Record<MetricFamily, number>);
  const speedRatios = new Map(
    machineShifts.filter((shift) => shift.relative_to_floor).map((shift) => [shift.family, shift.applied_speed_ratio]),
  );
  const weighed = speedRatios.size === 0 ? firstPass : weigh({ ...context, speedRatios });
  const { judged, matched: decided } = judgeWeighed(weighed, alpha);
  return {
    design: 'sequential',
    previous_run_id: previous.run_id,
    previous_started_at: previous.started_at,
    current_run_id: current.run_id,
    alpha,
    confidence: context.confidence,
    correction: { method: 'benjamini-hochberg', judged },
    history_run_ids: history.map((run) => run.run_id),
    minimum_effects: settings,
    same_fingerprint: previous.environment.fingerprint === current.environment.fingerprint,
    environment_differences: compareEnvironments(previous.environment, current.environment),
    machine_shifts: machineShifts,
    matched: decided,
    added: [...after.keys()].filter((key) => !before.has(key)),
    removed: [...before.keys()].filter((key) => !after.has(key)),
  };
}

function finite(values: readonly number[] | undefined): readonly number[] | undefined {
  const kept = values?.filter((value) => Number.isFinite(value));
  return kept && kept.length > 0 ? kept : undefined;
}
