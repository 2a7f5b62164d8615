/**
 * The report's charts: Vega-Lite specs built from the chart rows (pure), rendered to SVG in Node
 * by Vega's headless view (no canvas, no native build). A chart with no data is not produced.
 */
import * as vega from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';
import type { HistoryEntry } from '../results/history';
import type { RawResult } from '../results/rawResult';
import { vegaTextWidth } from './textWidth';
import { consumerScalabilityRows, historyTrendRows, latencyPercentileRows, recoveryRows, throughputByThreadsRows } from './chartData';

export interface ChartSpec {
  /** Stable id, also the file name stem: `chart-<id>.svg`. */
  readonly id: string;
  readonly title: string;
  /** One line saying how to read it, shown under the image in the report. */
  readonly caption: string;
  readonly spec: TopLevelSpec;
}

export const CHART_IDS = [
  'throughput-by-threads',
  'latency-percentiles',
  'consumer-scalability',
  'recovery-by-scenario',
  'history-trend',
] as const;

export function chartFileName(id: string): string {
  return `chart-${id}.svg`;
}

const PALETTE = ['#4c78a8', '#f58518', '#54a24b', '#e45756', '#72b7b2', '#b279a2', '#eeca3b', '#9d755d', '#ff9da6', '#bab0ac'];

/** One look for every chart: white background, readable fonts, light grid, legend below. */
const THEME = {
  background: 'white',
  padding: 16,
  font: 'Helvetica, Arial, sans-serif',
  title: { fontSize: 15, fontWeight: 600, subtitleFontSize: 11, subtitleColor: '#555555', anchor: 'start', offset: 14 },
  axis: {
    labelFontSize: 11,
    titleFontSize: 12,
    titleFontWeight: 500,
    gridColor: '#ececec',
    domainColor: '#999999',
    tickColor: '#999999',
    titlePadding: 8,
  },
  legend: {
    labelFontSize: 11,
    titleFontSize: 11,
    orient: 'bottom',
    direction: 'horizontal',
    columns: 2,
    labelLimit: 320,
    symbolType: 'square',
  },
  header: { labelFontSize: 12, labelFontWeight: 600, labelAngle: 0, labelOrient: 'top', labelAnchor: 'start', labelAlign: 'left' },
  range: { category: PALETTE },
  view: { stroke: null },
} as const;

function throughputByThreads(results: readonly RawResult[]): ChartSpec | undefined {
  const rows = throughputByThreadsRows(results);
  if (rows.length === 0) return undefined;
  const series = new Set(rows.map((row) => row.series)).size;
  const threads = new Set(rows.map((row) => row.threads)).size;
  const encoding = {
    x: { field: 'threads', type: 'ordinal', title: 'Publisher threads', sort: 'ascending', axis: { labelAngle: 0 } },
    xOffset: { field: 'series' },
    y: { field: 'throughput', type: 'quantitative', title: 'Throughput (msg/s)', axis: { format: '~s' } },
    color: { field: 'series', type: 'nominal', title: 'Mode · message size' },
  } as const;
  return {
    id: 'throughput-by-threads',
    title: 'Publish throughput by publisher threads',
    caption: 'Messages per second published, by number of publisher threads and mode; higher is better.',
    spec: {
      title: { text: 'Publish throughput by publisher threads', subtitle: 'messages per second, higher is better' },
      width: Math.max(420, threads * series * 34),
      height: 280,
      data: { values: rows as unknown as Record<string, unknown>[] },
      encoding,
      layer: [
        { mark: { type: 'bar', cornerRadiusEnd: 2 } },
        {
          mark: { type: 'text', dy: -6, fontSize: 9, color: '#333333' },
          encoding: { text: { field: 'throughput', type: 'quantitative', format: '.3~s' } },
        },
      ],
    } as TopLevelSpec,
  };
}

function latencyPercentiles(results: readonly RawResult[]): ChartSpec | undefined {
  const rows = latencyPercentileRows(results);
  if (rows.length === 0) return undefined;
  const configurations = [...new Set(rows.map((row) => row.configuration))];
  const percentiles = [...new Set(rows.map((row) => row.percentile))].sort((a, b) => order(rows, a) - order(rows, b));
  // Microsecond publish calls and quarter-second end-to-end tails in one picture: a dot plot on a
  // log axis (dots, not bars, so the log scale does not mislead), one row per configuration, the
  // line from the lowest to the highest percentile showing the spread.
  const y = { field: 'configuration', type: 'nominal', title: null, sort: configurations, axis: { labelLimit: 340 } } as const;
  const x = {
    field: 'latency',
    type: 'quantitative',
    title: 'Latency (ms, log scale)',
    scale: { type: 'log' },
    axis: { format: '~g' },
  } as const;
  return {
    id: 'latency-percentiles',
    title: 'Latency percentiles',
    caption: 'Publish and end-to-end latency percentiles per configuration (log scale); lower is better.',
    spec: {
      title: {
        text: 'Latency percentiles',
        subtitle: 'milliseconds on a log scale, lower is better; each row spans its lowest to highest percentile',
      },
      width: 520,
      height: { step: 24 },
      data: { values: rows as unknown as Record<string, unknown>[] },
      layer: [
        {
          mark: { type: 'rule', color: '#bbb', strokeWidth: 2 },
          encoding: { y, x: { ...x, aggregate: 'min' }, x2: { field: 'latency', aggregate: 'max' } },
        },
        {
          mark: { type: 'point', filled: true, size: 70, opacity: 1 },
          encoding: {
            y,
            x,
            color: { field: 'percentile', type: 'nominal', title: 'Percentile', sort: percentiles },
            tooltip: [{ field: 'configuration' }, { field: 'percentile' }, { field: 'latency', format: ',.3~r', title: 'ms' }],
          },
        },
      ],
    } as TopLevelSpec,
  };
}

function order(rows: readonly { percentile: string; order: number }[], percentile: string): number {
  return rows.find((row) => row.percentile === percentile)?.order ?? 99;
}

function consumerScalability(results: readonly RawResult[]): ChartSpec | undefined {
  const rows = consumerScalabilityRows(results);
  if (rows.length === 0) return undefined;
  const panel = (name: 'throughput' | 'startup', title: string, yTitle: string) => ({
    title: { text: title, fontSize: 12, fontWeight: 500 },
    width: 300,
    height: 240,
    transform: [{ filter: { field: 'panel', equal: name } }],
    mark: { type: 'line', point: { size: 50, filled: true }, strokeWidth: 2 },
    encoding: {
      x: { field: 'consumers', type: 'quantitative', title: 'Consumers', axis: { format: '~s' } },
      y: { field: 'value', type: 'quantitative', title: yTitle, axis: { format: '~s' } },
      color: { field: 'series', type: 'nominal', title: null },
    },
  });
  const panels = [panel('throughput', 'Throughput', 'Throughput (msg/s)')];
  if (rows.some((row) => row.panel === 'startup')) panels.push(panel('startup', 'Consumer start-up', 'Start-up time (ms)'));
  return {
    id: 'consumer-scalability',
    title: 'Consumer scalability',
    caption: 'Produce and consume rates, and the time for all consumers to start, as the number of consumers grows.',
    spec: {
      title: { text: 'Consumer scalability', subtitle: 'massive consumers: rates (higher is better) and start-up time (lower is better)' },
      data: { values: rows as unknown as Record<string, unknown>[] },
      hconcat: panels,
      resolve: { scale: { color: 'independent' } },
    } as TopLevelSpec,
  };
}

function recoveryByScenario(results: readonly RawResult[]): ChartSpec | undefined {
  const rows = recoveryRows(results);
  if (rows.length === 0) return undefined;
  const scenarios = [...new Set(rows.map((row) => row.scenario))];
  const phases = [...new Set([...rows].sort((a, b) => a.order - b.order).map((row) => row.phase))];
  // Horizontal bars, one linear panel per phase (bars from zero on a log scale mislead): 1 ms
  // detections and 400 ms recoveries each readable, every bar labelled with its value. A target
  // is drawn as a red tick on its own row when it fits the panel's scale, else named in the title.
  const panel = (phase: string) => {
    const phaseRows = rows.filter((row) => row.phase === phase);
    const maxLatency = Math.max(...phaseRows.map((row) => row.latency));
    const drawn = phaseRows.filter((row) => row.target !== null && row.target <= maxLatency * 3);
    const farTargets = [
      ...new Set(phaseRows.filter((row) => row.target !== null && row.target > maxLatency * 3).map((row) => row.target!)),
    ];
    const titleNote =
      farTargets.length > 0
        ? ` (target < ${farTargets.map((t) => (t >= 1000 ? `${t / 1000} s` : `${t} ms`)).join(', ')}: far off this scale)`
        : '';
    const y = { field: 'scenario', type: 'nominal', title: null, sort: scenarios, axis: { labelLimit: 320 } } as const;
    return {
      title: { text: `${phase}${titleNote}`, fontSize: 12, fontWeight: 500, anchor: 'start' },
      width: 520,
      height: { step: 22 },
      layer: [
        {
          data: { values: phaseRows as unknown as Record<string, unknown>[] },
          mark: { type: 'bar', cornerRadiusEnd: 2, height: { band: 0.7 } },
          encoding: {
            y,
            x: { field: 'latency', type: 'quantitative', title: 'Latency (ms)', axis: { format: ',~f' } },
            color: { field: 'scenario', type: 'nominal', sort: scenarios, legend: null },
          },
        },
        {
          data: { values: phaseRows as unknown as Record<string, unknown>[] },
          mark: { type: 'text', align: 'left', dx: 4, fontSize: 10, color: '#333' },
          encoding: { y, x: { field: 'latency', type: 'quantitative' }, text: { field: 'latency', type: 'quantitative', format: ',.3~r' } },
        },
        ...(drawn.length === 0
          ? []
          : [
              {
                data: { values: drawn as unknown as Record<string, unknown>[] },
                mark: { type: 'tick', color: '#c0392b', thickness: 2, bandSize: 18 },
                encoding: {
                  y,
                  x: { field: 'target', type: 'quantitative' },
                  tooltip: { field: 'target', type: 'quantitative', title: 'target (ms)' },
                },
              },
            ]),
      ],
    };
  };
  return {
    id: 'recovery-by-scenario',
    title: 'Recovery times by scenario',
    caption:
      'Per scenario: time from the fault to the first thread detecting it, to every thread detecting it, and to every thread recovered; red ticks are the targets.',
    spec: {
      title: {
        text: 'Recovery times by scenario',
        subtitle: 'milliseconds from the fault, lower is better; each panel has its own scale; red tick = target',
      },
      vconcat: phases.map(panel),
      resolve: { scale: { x: 'independent' } },
    } as TopLevelSpec,
  };
}

function historyTrend(runs: readonly HistoryEntry[]): ChartSpec | undefined {
  const rows = historyTrendRows(runs);
  if (rows.length === 0) return undefined;
  const metrics = [...new Set(rows.map((row) => row.metric))];
  return {
    id: 'history-trend',
    title: 'History trend of key metrics',
    caption: `Key metrics of the last ${new Set(rows.map((row) => row.run_id)).size} run(s), oldest to newest.`,
    spec: {
      title: { text: 'Key metrics over time', subtitle: 'one point per run; each panel has its own scale' },
      data: { values: rows as unknown as Record<string, unknown>[] },
      facet: { row: { field: 'metric', type: 'nominal', title: null, sort: metrics } },
      spec: {
        width: 560,
        height: 110,
        mark: { type: 'line', point: { size: 40, filled: true }, strokeWidth: 2 },
        encoding: {
          x: {
            field: 'started_at',
            type: 'temporal',
            title: 'Run start (UTC)',
            scale: { type: 'utc' },
            axis: { format: '%m-%d %H:%M', labelAngle: 0 },
          },
          y: { field: 'value', type: 'quantitative', title: null, axis: { format: '~s' }, scale: { zero: false } },
          color: { field: 'series', type: 'nominal', title: 'Series' },
        },
      },
      resolve: { scale: { y: 'independent' } },
    } as TopLevelSpec,
  };
}

/** Every chart the data allows, in report order. */
export function buildChartSpecs(results: readonly RawResult[], historyRuns: readonly HistoryEntry[]): ChartSpec[] {
  return [
    throughputByThreads(results),
    latencyPercentiles(results),
    consumerScalability(results),
    recoveryByScenario(results),
    historyTrend(historyRuns),
  ].filter((chart): chart is ChartSpec => chart !== undefined);
}

/** Renders a Vega-Lite spec to an SVG document (headless, text measured without a canvas). */
export async function renderSvg(spec: TopLevelSpec): Promise<string> {
  // Vega's documented hook for text measurement; set on every render, so it cannot be lost.
  // (exported by vega-scenegraph through vega, missing from vega's type declarations).
  (vega as unknown as { textMetrics: { width: typeof vegaTextWidth } }).textMetrics.width = vegaTextWidth;
  const vegaSpec = compile({ ...spec, config: { ...THEME, ...(spec.config ?? {}) } }).spec;
  const view = new vega.View(vega.parse(vegaSpec), { renderer: 'none' });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}
