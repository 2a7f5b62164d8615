/**
 * One metric's evidence, weighed (pure). Which test applies depends on what both sides have:
 *
 * - **replicates** on both sides (this run's and the previous comparable run's, at least two each):
 *   two-sided Mann–Whitney U on the replicates (as scipy's `mannwhitneyu`), the change as the
 *   Hodges–Lehmann shift with its confidence interval (as R's `wilcox.test(conf.int = TRUE)`), of
 *   the logarithms (a ratio) when every value is positive;
 * - otherwise, **history**: at least five earlier runs of the baseline's build (same
 *   fingerprint, passed) with a value: this run's value against the distribution of theirs
 *   (Student's t prediction test, as Bencher's t-test thresholds); the change is the distance
 *   from their mean, with its t interval;
 * - otherwise the metric is shown but not judged.
 *
 * Per-thread and per-message samples are never a test's input (see replicates.ts). The verdict
 * itself is given later (compare.ts), once the p-values of every judged metric are corrected.
 */
import { hodgesLehmannShift } from '../measure/hodgesLehmann';
import { noiseBandPercent, predictionTest } from '../measure/predictionInterval';
import { isNonEmpty, mannWhitneyU, median, type NonEmptyArray } from '../measure/statistics';
import type { MetricFamily, MinimumEffects } from '../minimumEffects';

/**
 * Earlier runs needed before their values alone can judge a metric without replicates. More than
 * the 3 that teach a minimum effect: one run's value of a latency has heavy tails (a scheduling
 * hiccup), and a t test on few runs takes any such run for a change.
 */
export const MIN_HISTORY_RUNS = 5;

/** `paired-t`: two builds measured in one run, pair by pair (pairedCompare.ts). */
export type ComparisonTest = 'mann-whitney-exact' | 'mann-whitney-asymptotic' | 'history-t' | 'paired-t';

/** What the metric was compared with. */
export type Baseline =
  | { readonly kind: 'replicates'; readonly run_id: string; readonly n: number; readonly center: number }
  | { readonly kind: 'history'; readonly run_ids: readonly string[]; readonly n: number; readonly center: number }
  /** The baseline build's side of `n` pairs measured in the same run (`run_id`: that side's run). */
  | { readonly kind: 'pairs'; readonly run_id: string; readonly n: number; readonly center: number }
  | { readonly kind: 'none'; readonly n: number };

export interface Change {
  /** Current minus baseline, in the metric's unit (for a `ratio`, the ratio applied to the baseline's center). */
  readonly estimate: number;
  readonly low: number;
  readonly high: number;
  /** The interval's real confidence (exact intervals are discrete). */
  readonly confidence: number;
  readonly method: 'hodges-lehmann-exact' | 'hodges-lehmann-asymptotic' | 'prediction-t' | 'paired-t';
  /**
   * `ratio`: the Hodges–Lehmann shift of the logarithms (metrics whose values are all positive):
   * a ratio current/baseline, so a rate can fall by at most 100% and its interval never says
   * otherwise; `difference`: the shift (or distance) in the metric's unit (metrics that can be 0).
   */
  readonly scale: 'ratio' | 'difference';
  /** The same three as a percentage of the baseline's center; null when that center is 0. */
  readonly estimate_percent: number | null;
  readonly low_percent: number | null;
  readonly high_percent: number | null;
}

export interface MinimumEffect {
  /** Smallest |change| in % of the baseline that counts. */
  readonly percent: number;
  /** Smallest |change| in the metric's unit that counts. */
  readonly absolute: number;
  /** `history`: the 95% run-to-run noise band of `runs` earlier runs; `config`: the family's setting; `paired`: the family's paired setting (bench ab). */
  readonly source: 'history' | 'config' | 'paired';
  readonly runs: number;
}

export interface Evidence {
  readonly baseline: Baseline;
  readonly n_current: number | null;
  readonly test: ComparisonTest | null;
  readonly p_value: number | null;
  readonly change: Change | null;
  readonly minimum_effect: MinimumEffect | null;
  /** Every value on both sides equal: no test can see a difference; left out of the correction. */
  readonly constant: boolean;
  /** Why there is no test, when there is none. */
  readonly untested_reason: string | null;
}

export interface MetricInput {
  readonly family: MetricFamily;
  readonly current: number | null;
  readonly currentReplicates: readonly number[] | undefined;
  readonly previousRunId: string;
  readonly previousReplicates: readonly number[] | undefined;
  /** This metric's value in the baseline build's usable runs, oldest first (the previous run among them). */
  readonly history: readonly { readonly run_id: string; readonly value: number }[];
}

export function weighEvidence(input: MetricInput, settings: MinimumEffects, confidence: number): Evidence {
  const historyValues = input.history.map((run) => run.value);
  const minimumEffect = minimumEffectOf(input.family, historyValues, settings, confidence);
  const current = input.currentReplicates;
  const previous = input.previousReplicates;
  if (current && previous && current.length >= 2 && previous.length >= 2 && isNonEmpty(current) && isNonEmpty(previous)) {
    return replicateEvidence(current, previous, input.previousRunId, minimumEffect, confidence);
  }
  if (input.current !== null && isNonEmpty(historyValues) && historyValues.length >= MIN_HISTORY_RUNS) {
    return historyEvidence(input.current, historyValues, input.history, input.currentReplicates?.length ?? 1, minimumEffect, confidence);
  }
  return {
    baseline: { kind: 'none', n: previous?.length ?? 0 },
    n_current: current?.length ?? null,
    test: null,
    p_value: null,
    change: null,
    minimum_effect: minimumEffect,
    constant: false,
    untested_reason: `no replicates on ${current ? 'the previous run' : previous ? 'this run' : 'either side'}, and ${input.history.length} earlier run(s) of the baseline's build (${MIN_HISTORY_RUNS} needed)`,
  };
}

function replicateEvidence(
  current: NonEmptyArray<number>,
  previous: NonEmptyArray<number>,
  previousRunId: string,
  minimumEffect: MinimumEffect,
  confidence: number,
): Evidence {
  const center = median(previous);
  const baseline: Baseline = { kind: 'replicates', run_id: previousRunId, n: previous.length, center };
  const constant = [...current, ...previous].every((value) => value === current[0]);
  // Ranks do not change under the logarithm: the same test either way.
  const test = mannWhitneyU(current, previous);
  return {
    baseline,
    n_current: current.length,
    test: test.method === 'exact' ? 'mann-whitney-exact' : 'mann-whitney-asymptotic',
    p_value: constant ? 1 : test.pValue,
    change: replicateChange(current, previous, center, confidence),
    minimum_effect: minimumEffect,
    constant,
    untested_reason: null,
  };
}

/**
 * The Hodges–Lehmann change between replicates: of the logarithms when every value is positive
 * (times and rates change by factors, and the ratio's interval stays above -100%), else of the
 * values themselves.
 */
function replicateChange(current: NonEmptyArray<number>, previous: NonEmptyArray<number>, center: number, confidence: number): Change {
  const positive = [...current, ...previous].every((value) => value > 0);
  if (!positive) {
    const shift = hodgesLehmannShift(current, previous, confidence);
    const method = `hodges-lehmann-${shift.method}` as const;
    return withPercent(
      { estimate: shift.estimate, low: shift.low, high: shift.high, confidence: shift.confidence, method, scale: 'difference' },
      center,
    );
  }
  const logs = (values: NonEmptyArray<number>) => values.map(Math.log) as unknown as NonEmptyArray<number>;
  const shift = hodgesLehmannShift(logs(current), logs(previous), confidence);
  const percent = (logRatio: number) => Math.expm1(logRatio) * 100;
  return {
    estimate: center * Math.expm1(shift.estimate),
    low: center * Math.expm1(shift.low),
    high: center * Math.expm1(shift.high),
    confidence: shift.confidence,
    method: `hodges-lehmann-${shift.method}`,
    scale: 'ratio',
    estimate_percent: percent(shift.estimate),
    low_percent: percent(shift.low),
    high_percent: percent(shift.high),
  };
}

function historyEvidence(
  current: number,
  values: NonEmptyArray<number>,
  history: MetricInput['history'],
  currentCount: number,
  minimumEffect: MinimumEffect,
  confidence: number,
): Evidence {
  const test = predictionTest(values, current, confidence);
  return {
    baseline: { kind: 'history', run_ids: history.map((run) => run.run_id), n: values.length, center: test.baselineMean },
    n_current: currentCount,
    test: 'history-t',
    p_value: test.pValue,
    change: withPercent(
      { estimate: test.estimate, low: test.low, high: test.high, confidence: test.confidence, method: 'prediction-t', scale: 'difference' },
      test.baselineMean,
    ),
    minimum_effect: minimumEffect,
    constant: values.every((value) => value === current),
    untested_reason: null,
  };
}

/** The change with its figures also as % of `center` (the baseline's; null when it is 0). */
export function withPercent(change: Omit<Change, 'estimate_percent' | 'low_percent' | 'high_percent'>, center: number): Change {
  const percent = (value: number) => (center === 0 ? null : (value / Math.abs(center)) * 100);
  return { ...change, estimate_percent: percent(change.estimate), low_percent: percent(change.low), high_percent: percent(change.high) };
}

/**
 * The metric's own noise when the history knows it (at least `learnFromRuns` runs of the
 * baseline's build: the half-width of their 95% prediction interval, in %), else its family's
 * configured minimum; the family's absolute floor applies either way.
 */
export function minimumEffectOf(
  family: MetricFamily,
  historyValues: readonly number[],
  settings: MinimumEffects,
  confidence = 0.95,
): MinimumEffect {
  const configured = settings.families[family];
  if (settings.learnFromRuns >= 2 && historyValues.length >= settings.learnFromRuns && isNonEmpty(historyValues)) {
    const band = noiseBandPercent(historyValues, confidence);
    if (band !== null) return { percent: band, absolute: configured.absolute, source: 'history', runs: historyValues.length };
  }
  return { percent: configured.relativePercent, absolute: configured.absolute, source: 'config', runs: historyValues.length };
}

/** Whether a change of this size counts: non-zero, at least the absolute floor, and at least the relative minimum (when a relative size exists). */
export function beyondMinimumEffect(change: Change, minimum: MinimumEffect): boolean {
  const size = Math.abs(change.estimate);
  if (size === 0 || size < minimum.absolute) return false;
  return change.estimate_percent === null || Math.abs(change.estimate_percent) >= minimum.percent;
}
