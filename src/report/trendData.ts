/**
 * The history trend's rows and axes (pure): key metrics run by run, one panel per metric, with a
 * y-domain computed here so every point lies inside the axes (Vega's `nice` rounding once put
 * points past the end of an axis that does not start at zero). A trend needs two runs.
 */
import type { HistoryEntry } from '../results/history';
import { KEY_METRIC_DEFINITIONS, type KeyMetric } from '../results/keyMetrics';
import { keyFigures } from '../scenarios/catalogue';
import { recoveryScenarioLabel } from './configurations';
import { formatDate } from './format';

export interface TrendRow {
  readonly run_id: string;
  readonly started_at: string;
  /** The x-axis label: `11-22 18:53` (seconds, or the run id, added only to tell runs apart; `(failed)` after a failed run). */
  readonly run_label: string;
  /** Key metric id, one panel each. */
  readonly metric: string;
  readonly series: string;
  readonly value: number;
}

export interface TrendPanel {
  readonly metric: string;
  /** `Peak publish throughput (msg/s)`: today's label, whatever label older runs stored. */
  readonly title: string;
  readonly unit: string;
  /** Inside it: every value of the panel, with a margin. */
  readonly domain: readonly [number, number];
  readonly rows: readonly TrendRow[];
}

/** The key figures the descriptors mark `trend`, in rank order. */
export const TREND_METRICS: readonly string[] = keyFigures()
  .filter((figure) => figure.trend)
  .map((figure) => figure.id);

/** A trend is drawn from this many runs with values up. */
export const MIN_TREND_RUNS = 2;

/** One line per configuration: `peak` for a peak, else the scenario and threads (`TCP reset · 10 threads`). */
function trendSeries(keyMetric: KeyMetric): string {
  if (keyMetric.id.startsWith('peak_')) return 'peak';
  return recoveryScenarioLabel({ name: keyMetric.result_name, parameters: keyMetric.parameters });
}

/** `11-22 18:53`, longer only where two runs would read the same; `(failed)` after a run that did not pass. */
function runLabels(runs: readonly HistoryEntry[]): Map<string, string> {
  const format = (run: HistoryEntry, length: number) =>
    `${formatDate(run.started_at).slice(5, length)}${run.status === 'passed' ? '' : ` (${run.status})`}`;
  for (const length of [16, 19]) {
    const labels = runs.map((run) => format(run, length));
    if (new Set(labels).size === labels.length) return new Map(runs.map((run, index) => [run.run_id, labels[index]!]));
  }
  return new Map(runs.map((run) => [run.run_id, `${format(run, 19)} ${run.run_id.slice(-8)}`]));
}

/** Key metrics of the last `maxRuns` runs of the history (the current one included), oldest first; none with fewer than two runs. */
export function historyTrendRows(runs: readonly HistoryEntry[], maxRuns = 50): TrendRow[] {
  const withValues = runs
    .slice(-maxRuns)
    .filter((run) => run.key_metrics.some((metric) => TREND_METRICS.includes(metric.id) && metric.value !== null))
    .sort((a, b) => a.started_at.localeCompare(b.started_at));
  if (withValues.length < MIN_TREND_RUNS) return [];
  const labels = runLabels(withValues);
  const rows: TrendRow[] = [];
  for (const run of withValues) {
    for (const keyMetric of run.key_metrics) {
      if (!TREND_METRICS.includes(keyMetric.id) || keyMetric.value === null) continue;
      rows.push({
        run_id: run.run_id,
        started_at: run.started_at,
        run_label: labels.get(run.run_id)!,
        metric: keyMetric.id,
        series: trendSeries(keyMetric),
        value: keyMetric.value,
      });
    }
  }
  return rows;
}

/** [min, max] widened by 15% of the range (or of the value when all are equal), never below zero for values that are not. */
export function trendDomain(values: readonly number[]): [number, number] {
  const min = Math.min(...values);
  const max = Math.max(...values);
  const margin = max > min ? (max - min) * 0.15 : Math.abs(max) * 0.1 || 1;
  const low = min - margin;
  return [min >= 0 && low < 0 ? 0 : low, max + margin];
}

/** The panels of the trend, in TREND_METRICS order, each with its domain and today's label. */
export function historyTrendPanels(runs: readonly HistoryEntry[], maxRuns = 50): TrendPanel[] {
  const rows = historyTrendRows(runs, maxRuns);
  return TREND_METRICS.flatMap((metric) => {
    const panelRows = rows.filter((row) => row.metric === metric);
    if (panelRows.length === 0) return [];
    const stored = runs.flatMap((run) => run.key_metrics).find((keyMetric) => keyMetric.id === metric);
    const label = KEY_METRIC_DEFINITIONS.find((definition) => definition.id === metric)?.label ?? stored?.label ?? metric;
    const unit = stored?.unit ?? '';
    return [
      {
        metric,
        title: unit ? `${label} (${unit})` : label,
        unit,
        domain: trendDomain(panelRows.map((row) => row.value)),
        rows: panelRows,
      },
    ];
  });
}
