/**
 * The comparison section's view (pure): one row per metric with a direction, saying what it was
 * compared with (which run's replicates, or how many earlier runs), the change with its
 * confidence interval, the minimum effect it had to clear, the corrected significance and the
 * verdict; the sentences that say how it was judged; the environment differences; the
 * regressions beyond `--threshold`. The terminal table (src/cli/summary.ts) uses the same cells.
 */
import { describeMinimum, type MetricComparison, type RunComparison, type Verdict } from '../results/compare';
import { countVerdicts, type Regression, type VerdictCounts } from '../results/gate';
import { MIN_HISTORY_RUNS } from '../results/judge';
import { METRIC_FAMILIES } from '../minimumEffects';
import { formatDate, formatNumber, formatValue, humanizeMetricName } from './format';
import { resultLabel } from './labels';
import { markdownTable } from './markdown';

export interface ComparisonRow {
  readonly result: string;
  readonly metric: string;
  readonly baseline: string;
  readonly current: string;
  readonly change: string;
  readonly minimum_effect: string;
  readonly significance: string;
  readonly verdict: Verdict;
  readonly verdict_label: string;
  /** Why this verdict, in one line. */
  readonly reason: string;
}

export interface ComparisonView {
  readonly previous_run_id: string;
  readonly previous_started_at: string;
  readonly same_fingerprint: boolean;
  readonly alpha: number;
  readonly confidence_percent: number;
  /** Earlier runs of the baseline's build the comparison drew on (oldest first). */
  readonly history_run_ids: readonly string[];
  readonly environment_differences_table: string;
  readonly environment_differences: RunComparison['environment_differences'];
  readonly rows: readonly ComparisonRow[];
  readonly table: string;
  readonly counts: VerdictCounts;
  /** How the comparison judged, one sentence each (significance, correction, change, minimum effect). */
  readonly method_notes: readonly string[];
  /** Families that moved as a whole, and whether the machine did (src/results/commonMode.ts). */
  readonly machine_shift_notes: readonly string[];
  readonly design: RunComparison['design'];
  readonly added: readonly string[];
  readonly removed: readonly string[];
  readonly threshold_percent: number | null;
  readonly regressions: readonly string[];
}

const VERDICT_LABELS: Readonly<Record<Verdict, string>> = {
  better: '✅ better',
  worse: '❌ worse',
  same: '~',
  unknown: '? not judged',
  'n/a': '—',
};

const signed = (value: number, digits: number): string => `${value > 0 ? '+' : value < 0 ? '−' : '±'}${Math.abs(value).toFixed(digits)}`;

/** `+20.0% [+15.1%, +24.3%]`, or in the metric's unit when the baseline is 0: `+2 count [+1, +3]`. */
export function describeChange(metric: MetricComparison): string {
  const change = metric.change;
  // Not judged: the change of the two values, without an interval (there is nothing to base one on).
  if (change === null)
    return metric.delta_percent === null ? '—' : metric.delta_percent === 0 ? '0%' : `${signed(metric.delta_percent, 1)}%`;
  if (change.estimate_percent !== null && change.low_percent !== null && change.high_percent !== null) {
    const digits = Math.max(Math.abs(change.low_percent), Math.abs(change.high_percent)) >= 100 ? 0 : 1;
    return `${signed(change.estimate_percent, digits)}% [${signed(change.low_percent, digits)}%, ${signed(change.high_percent, digits)}%]`;
  }
  const unitValue = (value: number) => `${value > 0 ? '+' : value < 0 ? '−' : '±'}${formatNumber(Math.abs(value))}`;
  return `${unitValue(change.estimate)} ${metric.unit} [${unitValue(change.low)}, ${unitValue(change.high)}]`;
}

/** What the metric was compared with: `52,000 msg/s (6 reps)`, `51,200 msg/s (mean of 5 runs)`. */
export function describeBaseline(metric: MetricComparison): string {
  const baseline = metric.baseline;
  if (baseline.kind === 'replicates') return `${formatValue(baseline.center, metric.unit)} (${baseline.n} reps)`;
  if (baseline.kind === 'history') return `${formatValue(baseline.center, metric.unit)} (mean of ${baseline.n} runs)`;
  if (baseline.kind === 'pairs') return `${formatValue(baseline.center, metric.unit)} (${baseline.n} pairs)`;
  return formatValue(metric.previous, metric.unit);
}

export function describeCurrent(metric: MetricComparison): string {
  const value = formatValue(metric.current, metric.unit);
  if (metric.baseline.kind === 'pairs') return `${value} (${metric.baseline.n} pairs)`;
  return metric.n_current !== null && metric.n_current > 1 ? `${value} (${metric.n_current} reps)` : value;
}

/** `MW exact p=0.002, q=0.011`, `t 5 runs p=0.030, q=0.21`; `—` when not tested. */
export function describeSignificance(metric: MetricComparison): string {
  if (metric.p_value === null || metric.test === null) return '—';
  const test =
    metric.test === 'history-t'
      ? `t ${metric.baseline.n} runs`
      : metric.test === 'paired-t'
        ? `paired t ${metric.baseline.n} pairs`
        : metric.test === 'mann-whitney-exact'
          ? 'MW exact'
          : 'MW';
  return `${test} ${formatP('p', metric.p_value)}${metric.q_value === null ? '' : `, ${formatP('q', metric.q_value)}`}`;
}

function formatP(name: string, value: number): string {
  return value < 0.001 ? `${name}<0.001` : `${name}=${value.toFixed(3)}`;
}

export function describeMinimumEffect(metric: MetricComparison): string {
  return metric.minimum_effect === null ? '—' : describeMinimum(metric.minimum_effect, metric.unit);
}

/** The sentences under the table: how the comparison judged. */
export function methodNotes(comparison: RunComparison): string[] {
  if (comparison.design === 'paired') return pairedMethodNotes(comparison);
  const defaults = METRIC_FAMILIES.map((family) => `${family} ±${comparison.minimum_effects.families[family].relativePercent}%`).join(', ');
  const learn = comparison.minimum_effects.learnFromRuns;
  return [
    `Significance: a two-sided Mann–Whitney U test on the replicates (independent repetitions of each scenario within a run); for a metric without replicates on both sides, a t prediction test of this run's value against at least ${MIN_HISTORY_RUNS} earlier runs of the baseline's build. Per-thread and per-message samples are shown in the results, never tested: they share one run's conditions.`,
    `Correction: Benjamini–Hochberg over the ${comparison.correction.judged} judged metrics, false discovery rate α = ${comparison.alpha}; q is the adjusted p-value. Metrics whose values are all equal on both sides cannot differ and are left out.`,
    `Change: the Hodges–Lehmann estimate between the replicates, of their logarithms when all values are positive (a ratio, whose interval never falls below −100%), or, against the history, the distance from its mean; with its ${Math.round(comparison.confidence * 100)}% confidence interval, in percent of the baseline's median (mean).`,
    learn > 0
      ? `Minimum effect: a significant change counts only beyond the metric's own run-to-run noise once at least ${learn} earlier runs of the baseline's build know it (their ${Math.round(comparison.confidence * 100)}% prediction band for one more run), else beyond its family's default: ${defaults} (BENCH_MIN_EFFECTS).`
      : `Minimum effect: a significant change counts only beyond its family's minimum: ${defaults} (BENCH_MIN_EFFECTS; learning from the history is off).`,
  ];
}

/** How a paired comparison (`bench ab`) judged. */
function pairedMethodNotes(comparison: RunComparison): string[] {
  const confidence = Math.round(comparison.confidence * 100);
  const minimums = METRIC_FAMILIES.map((family) => `${family} ±${comparison.minimum_effects.paired[family].relativePercent}%`).join(', ');
  return [
    `Pairs: both builds ran in one run, taking turns replicate by replicate (A B B A …); a pair is one replicate of each, measured back to back, so whatever the machine did over the run reaches both alike. The first pair of every measurement warmed both up and is not judged; a figure measured once per side has no pairs and is not judged.`,
    `Significance: a paired t test on the pairs' log-ratios (their differences for a metric that can be 0), the analysis of a crossover design; q is the Benjamini–Hochberg adjusted p-value over the ${comparison.correction.judged} judged metrics (false discovery rate α = ${comparison.alpha}).`,
    `Change: the geometric mean of the pairs' ratios, in percent of the baseline build's median, with its ${confidence}% confidence interval.`,
    `Minimum effect: a significant change counts only beyond its family's paired minimum: ${minimums} (BENCH_MIN_EFFECTS "paired").`,
  ];
}

/**
 * One sentence per family that moved as a whole: the machine's shift when the bare floor moved
 * with it (and the family judged relative to the floor), else what the floor did or that the run
 * had none.
 */
export function machineShiftNotes(comparison: RunComparison): string[] {
  return comparison.machine_shifts.map((shift) => {
    const moved = `${shift.same_way} of ${shift.metrics} ${shift.family} metrics moved the same way together (median ${signedPercent(shift.family_speed_change_percent)} in speed)`;
    if (shift.floor_speed_change_percent === null)
      return `${moved}; this run has no bare floor (the harness/bare witnesses were not selected) to tell the machine from the code: judged as they are.`;
    if (shift.relative_to_floor)
      return `The machine shifted by ${signedPercent(shift.floor_speed_change_percent)} during this run: ${moved}, and the bare floor (the library alone, harness/bare) moved with them: ${shift.family} metrics are judged relative to the floor.`;
    return `${moved}, but the bare floor moved ${signedPercent(shift.floor_speed_change_percent)}: not the machine as a whole; judged as they are.`;
  });
}

const signedPercent = (value: number): string => `${value > 0 ? '+' : value < 0 ? '−' : '±'}${Math.abs(value).toFixed(1)}%`;

export function buildComparisonView(
  comparison: RunComparison,
  thresholdPercent: number | null,
  regressions: readonly Regression[],
): ComparisonView {
  const rows: ComparisonRow[] = comparison.matched.flatMap((result) =>
    result.metrics
      .filter((metric) => metric.direction !== 'none' && metric.previous !== null && metric.current !== null)
      .map((metric) => ({
        result: resultLabel(result.name, result.parameters),
        metric: humanizeMetricName(metric.metric),
        baseline: describeBaseline(metric),
        current: describeCurrent(metric),
        change: describeChange(metric),
        minimum_effect: describeMinimumEffect(metric),
        significance: describeSignificance(metric),
        verdict: metric.verdict,
        verdict_label: VERDICT_LABELS[metric.verdict],
        reason: metric.reason,
      })),
  );
  return {
    previous_run_id: comparison.previous_run_id,
    previous_started_at: formatDate(comparison.previous_started_at),
    same_fingerprint: comparison.same_fingerprint,
    alpha: comparison.alpha,
    confidence_percent: Math.round(comparison.confidence * 100),
    history_run_ids: comparison.history_run_ids,
    environment_differences: comparison.environment_differences,
    environment_differences_table:
      comparison.environment_differences.length === 0
        ? ''
        : markdownTable(
            ['Field', 'Previous', 'Current'],
            comparison.environment_differences.map((difference) => [difference.field, difference.previous, difference.current]),
          ),
    rows,
    table:
      rows.length === 0
        ? ''
        : markdownTable(
            [
              'Result',
              'Metric',
              'Baseline',
              'Current',
              `Change [${Math.round(comparison.confidence * 100)}% CI]`,
              'Min. effect',
              'Significance',
              'Verdict',
            ],
            rows.map((row) => [
              row.result,
              row.metric,
              row.baseline,
              row.current,
              row.change,
              row.minimum_effect,
              row.significance,
              row.verdict_label,
            ]),
            [false, false, true, true, true, false, false, false],
          ),
    counts: countVerdicts(comparison),
    method_notes: methodNotes(comparison),
    machine_shift_notes: machineShiftNotes(comparison),
    design: comparison.design,
    added: comparison.added,
    removed: comparison.removed,
    threshold_percent: thresholdPercent,
    regressions: regressions.map((regression) => describeRegression(regression)),
  };
}

/** `publish_throughput{…} Throughput (msg/s): −35.2% [−41.0%, −30.1%] (MW exact p=0.002, q=0.011; minimum ±20% (config))`. */
export function describeRegression(regression: Regression): string {
  const metric = regression.metric;
  return `${regression.result} ${humanizeMetricName(metric.metric)}: ${describeChange(metric)} (${describeSignificance(metric)}; minimum ${describeMinimumEffect(metric)})`;
}
