/**
 * Two builds measured in one run, their replicates alternating (`bench ab`: A B B A …), compared
 * pair by pair (pure). A pair is the i-th replicate of a measurement on each side, taken back to
 * back; the first pair of every measurement is its warm-up and is not judged. Each metric is
 * judged on its pairs (a paired t test on the log-ratios, src/measure/paired.ts), the p-values of
 * every judged metric corrected together (Benjamini–Hochberg), and a verdict needs the change
 * beyond the metric's paired minimum effect (src/minimumEffects.ts) — the same verdicts, table and
 * `--threshold` gate as the comparison of two runs.
 */
import { comparePairs } from '../measure/paired';
import { median, type NonEmptyArray } from '../measure/statistics';
import { DEFAULT_MINIMUM_EFFECTS, type MinimumEffects } from '../minimumEffects';
import {
  baseOf,
  compareEnvironments,
  DEFAULT_ALPHA,
  DEFAULT_CONFIDENCE,
  indexByKey,
  resultKey,
  type ComparableResult,
  type ComparableRun,
  type RunComparison,
} from './compare';
import { withPercent, type Change, type MinimumEffect } from './judge';
import { judgeWeighed, untestedMetric, type WeighedMetric, type WeighedResult } from './verdicts';

/** Pairs of a measurement not judged: the first, which warms both builds up on it. */
export const WARMUP_PAIRS = 1;

export interface PairedCompareOptions {
  readonly alpha?: number;
  readonly confidence?: number;
  /** @default DEFAULT_MINIMUM_EFFECTS (its `paired` minimums are the ones used) */
  readonly minimumEffects?: MinimumEffects;
  /** @default WARMUP_PAIRS */
  readonly warmupPairs?: number;
  /**
   * Parameters left out of a result's identity: two adapter modules name different clients, yet
   * their results are the same measurement. @default none
   */
  readonly ignoreParameters?: readonly string[];
}

/**
 * The candidate build's side of a paired run against the baseline build's side.
 * @example comparePaired(sideA, sideB).matched[0].metrics[0].verdict // 'same'
 */
export function comparePaired(baseline: ComparableRun, candidate: ComparableRun, options: PairedCompareOptions = {}): RunComparison {
  const alpha = options.alpha ?? DEFAULT_ALPHA;
  const confidence = options.confidence ?? DEFAULT_CONFIDENCE;
  const settings = options.minimumEffects ?? DEFAULT_MINIMUM_EFFECTS;
  const warmup = options.warmupPairs ?? WARMUP_PAIRS;
  const identity = (results: readonly ComparableResult[]) => reKey(indexByKey(results), options.ignoreParameters ?? []);
  const before = identity(baseline.results);
  const after = identity(candidate.results);
  const weighed: WeighedResult[] = [];
  for (const [key, result] of after) {
    const old = before.get(key);
    if (!old) continue;
    const metrics = Object.keys(result.metrics)
      .filter((metric) => old.metrics[metric] !== undefined)
      .map((metric) => weighPairs(metric, old, result, { runId: baseline.run_id, settings, confidence, warmup }));
    weighed.push({ key, result, metrics });
  }
  const { judged, matched } = judgeWeighed(weighed, alpha);
  return {
    design: 'paired',
    previous_run_id: baseline.run_id,
    previous_started_at: baseline.started_at,
    current_run_id: candidate.run_id,
    alpha,
    confidence,
    correction: { method: 'benjamini-hochberg', judged },
    history_run_ids: [],
    minimum_effects: settings,
    same_fingerprint: baseline.environment.fingerprint === candidate.environment.fingerprint,
    environment_differences: compareEnvironments(baseline.environment, candidate.environment),
    machine_shifts: [],
    matched,
    added: [...after.keys()].filter((key) => !before.has(key)),
    removed: [...before.keys()].filter((key) => !after.has(key)),
  };
}

/** The results by their identity without `ignored` parameters. */
function reKey(index: ReadonlyMap<string, ComparableResult>, ignored: readonly string[]): Map<string, ComparableResult> {
  if (ignored.length === 0) return new Map(index);
  const keyed = new Map<string, ComparableResult>();
  for (const result of index.values()) {
    const parameters = Object.fromEntries(Object.entries(result.parameters).filter(([name]) => !ignored.includes(name)));
    keyed.set(resultKey({ name: result.name, parameters }), result);
  }
  return keyed;
}

interface PairContext {
  readonly runId: string;
  readonly settings: MinimumEffects;
  readonly confidence: number;
  readonly warmup: number;
}

function weighPairs(metric: string, old: ComparableResult, result: ComparableResult, context: PairContext): WeighedMetric {
  const now = result.metrics[metric]!;
  const base = baseOf(metric, now, old.metrics[metric]!.value, result);
  const configured = context.settings.paired[base.family];
  const minimum: MinimumEffect = { percent: configured.relativePercent, absolute: configured.absolute, source: 'paired', runs: 0 };
  if (now.direction === 'none' || base.previous === null || base.current === null)
    return untestedMetric(base, { kind: 'none', n: 0 }, null);
  const pairs = pairsOf(old.replicates?.[metric], result.replicates?.[metric], context.warmup);
  if (typeof pairs === 'string') return untestedMetric(base, { kind: 'none', n: 0 }, pairs, minimum);
  const [baselineSide, candidateSide] = pairs;
  const center = median(baselineSide);
  // What the table shows is what was judged: each side's median over its pairs (the warm-up left out).
  const shown = { ...base, ...baseOf(metric, { ...now, value: median(candidateSide) }, center, result) };
  const paired = comparePairs(baselineSide, candidateSide, context.confidence);
  const change: Change =
    paired.scale === 'ratio'
      ? {
          estimate: center * (paired.estimate - 1),
          low: center * (paired.low - 1),
          high: center * (paired.high - 1),
          confidence: paired.confidence,
          method: 'paired-t',
          scale: 'ratio',
          estimate_percent: (paired.estimate - 1) * 100,
          low_percent: (paired.low - 1) * 100,
          high_percent: (paired.high - 1) * 100,
        }
      : withPercent(
          {
            estimate: paired.estimate,
            low: paired.low,
            high: paired.high,
            confidence: paired.confidence,
            method: 'paired-t',
            scale: 'difference',
          },
          center,
        );
  return {
    ...shown,
    baseline: { kind: 'pairs', run_id: context.runId, n: paired.n, center },
    n_current: paired.n,
    test: 'paired-t',
    p_value: paired.pValue,
    change,
    minimum_effect: minimum,
    constant: paired.constant,
    untested: null,
  };
}

/** Both sides' replicates after the warm-up pairs, or why they cannot be paired. */
function pairsOf(
  baseline: readonly number[] | undefined,
  candidate: readonly number[] | undefined,
  warmup: number,
): [NonEmptyArray<number>, NonEmptyArray<number>] | string {
  if (!baseline || !candidate)
    return `measured once on ${!baseline && !candidate ? 'each side' : !baseline ? 'the baseline side' : 'the candidate side'}: no pairs (the benchmark has no replicates)`;
  if (baseline.length !== candidate.length)
    return `the sides have ${baseline.length} and ${candidate.length} values (a replicate without one): which replicates were measured together is unknown`;
  const judged = baseline.length - warmup;
  if (judged < 2) return `${Math.max(0, judged)} pair(s) after the warm-up pair: at least 2 needed`;
  if (![...baseline, ...candidate].every(Number.isFinite)) return 'a replicate value is not a finite number';
  return [baseline.slice(warmup) as unknown as NonEmptyArray<number>, candidate.slice(warmup) as unknown as NonEmptyArray<number>];
}
