/**
 * The history trend of the key metrics (pure spec): a panel per metric with a y-domain that holds
 * every point (trendData.ts), runs as ordered categories (evenly spaced whether a day or a minute
 * apart), each panel's own legend with labels in full. Drawn from two runs up.
 */
import type { TopLevelSpec } from 'vega-lite';
import type { HistoryEntry } from '../results/history';
import { PALETTE, PLOT_WIDTH_PX, values, type ChartSpec } from './chartSpec';
import { historyTrendPanels, type TrendPanel } from './trendData';

export function historyTrend(runs: readonly HistoryEntry[]): ChartSpec | undefined {
  const panels = historyTrendPanels(runs);
  if (panels.length === 0) return undefined;
  const runLabels = [
    ...new Set(
      panels.flatMap((panel) => [...panel.rows].sort((a, b) => a.started_at.localeCompare(b.started_at))).map((row) => row.run_label),
    ),
  ];
  const runCount = new Set(panels.flatMap((panel) => panel.rows.map((row) => row.run_id))).size;
  // One colour per series across panels (TCP reset · 10 threads is the same colour everywhere); each legend lists its own.
  const allSeries = [...new Set(panels.flatMap((panel) => panel.rows.map((row) => row.series)))];
  const panel = (trend: TrendPanel) => {
    const series = [...new Set(trend.rows.map((row) => row.series))];
    return {
      title: { text: trend.title, fontSize: 12, fontWeight: 500, anchor: 'start' },
      width: PLOT_WIDTH_PX - 40,
      height: 90,
      data: { values: values(trend.rows) },
      mark: { type: 'line', point: { size: 40, filled: true }, strokeWidth: 2, clip: true },
      encoding: {
        x: {
          field: 'run_label',
          type: 'ordinal',
          title: null,
          sort: runLabels,
          scale: { domain: runLabels },
          axis: { labelAngle: 0, labelOverlap: 'greedy' },
        },
        y: {
          field: 'value',
          type: 'quantitative',
          title: null,
          scale: { domain: [...trend.domain], nice: false, zero: false },
          axis: { format: trend.unit === 'ms' ? ',.3~r' : '~s', tickCount: 4 },
        },
        color:
          series.length === 1
            ? { value: PALETTE[0] }
            : {
                field: 'series',
                type: 'nominal',
                title: null,
                scale: { domain: allSeries, range: allSeries.map((_, index) => PALETTE[index % PALETTE.length]!) },
                legend: { values: series, orient: 'right', direction: 'vertical', columns: 1, labelLimit: 0 },
              },
        tooltip: [{ field: 'run_id' }, { field: 'series' }, { field: 'value', format: ',.4~r' }],
      },
    };
  };
  return {
    id: 'history-trend',
    title: 'History trend of key metrics',
    caption: `Key metrics of the last ${runCount} runs with results, oldest to newest (run start, UTC); each panel has its own scale.`,
    spec: {
      title: { text: 'Key metrics over time', subtitle: 'one point per run (start time, UTC); each panel has its own scale' },
      vconcat: panels.map(panel),
      spacing: 14,
      resolve: { scale: { color: 'independent', y: 'independent' }, legend: { color: 'independent' } },
    } as TopLevelSpec,
  };
}
