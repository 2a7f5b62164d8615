/**
 * The comparison section's view: one row per metric that has a direction, benchstat-style
 * (`+12%  p=0.008`, `~` when not significant), the environment differences field by field, and
 * the regressions beyond `--threshold`.
 */
import { countVerdicts, type Regression, type RunComparison, type Verdict, type VerdictCounts } from '../results/compare';
import { formatDate, formatDeltaPercent, formatPValue, formatValue, humanizeMetricName } from './format';
import { resultLabel } from './labels';
import { markdownTable } from './markdown';

export interface ComparisonRow {
  readonly result: string;
  readonly metric: string;
  readonly previous: string;
  readonly current: string;
  readonly delta: string;
  readonly p_value: string;
  readonly verdict: Verdict;
  readonly verdict_label: string;
}

export interface ComparisonView {
  readonly previous_run_id: string;
  readonly previous_started_at: string;
  readonly same_fingerprint: boolean;
  readonly alpha: number;
  readonly environment_differences_table: string;
  readonly environment_differences: RunComparison['environment_differences'];
  readonly rows: readonly ComparisonRow[];
  readonly table: string;
  readonly counts: VerdictCounts;
  readonly added: readonly string[];
  readonly removed: readonly string[];
  readonly threshold_percent: number | null;
  readonly regressions: readonly string[];
}

const VERDICT_LABELS: Readonly<Record<Verdict, string>> = {
  better: '✅ better',
  worse: '❌ worse',
  same: '~',
  unknown: '? no samples',
  'n/a': '—',
};

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
        previous: formatValue(metric.previous, metric.unit),
        current: formatValue(metric.current, metric.unit),
        delta: formatDeltaPercent(metric.delta_percent),
        p_value: metric.p_value === null ? '—' : `${formatPValue(metric.p_value)} (n=${metric.n_previous}+${metric.n_current})`,
        verdict: metric.verdict,
        verdict_label: VERDICT_LABELS[metric.verdict],
      })),
  );
  return {
    previous_run_id: comparison.previous_run_id,
    previous_started_at: formatDate(comparison.previous_started_at),
    same_fingerprint: comparison.same_fingerprint,
    alpha: comparison.alpha,
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
            ['Result', 'Metric', 'Previous', 'Current', 'Change', 'Significance', 'Verdict'],
            rows.map((row) => [row.result, row.metric, row.previous, row.current, row.delta, row.p_value, row.verdict_label]),
            [false, false, true, true, true, false, false],
          ),
    counts: countVerdicts(comparison),
    added: comparison.added,
    removed: comparison.removed,
    threshold_percent: thresholdPercent,
    regressions: regressions.map(
      (regression) =>
        `${regression.result} ${humanizeMetricName(regression.metric.metric)}: ${formatDeltaPercent(regression.metric.delta_percent)} (${formatPValue(regression.metric.p_value)})`,
    ),
  };
}
