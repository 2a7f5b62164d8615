/**
 * Throughput, latency and consumer-scalability charts: Vega-Lite specs from the chart rows (pure).
 * A chart with no data is not produced; one with a single configuration is drawn as bars.
 */
import type { TopLevelSpec } from 'vega-lite';
import type { RawResult } from '../results/rawResult';
import {
  consumerScalabilityRows,
  LATENCY_KIND_TITLES,
  latencyPercentileRows,
  throughputByThreadsRows,
  type LatencyKind,
} from './chartData';
import { PLOT_WIDTH_PX, values, type ChartSpec } from './chartSpec';
import { formatValue } from './format';
import { estimateTextWidth } from './textWidth';

export function throughputByThreads(results: readonly RawResult[]): ChartSpec | undefined {
  const rows = throughputByThreadsRows(results);
  if (rows.length === 0) return undefined;
  const series = [...new Set(rows.map((row) => row.series))];
  const threads = new Set(rows.map((row) => row.threads)).size;
  const encoding = {
    x: { field: 'threads', type: 'ordinal', title: 'Publisher threads', sort: 'ascending', axis: { labelAngle: 0 } },
    xOffset: { field: 'series', sort: series },
    y: { field: 'throughput', type: 'quantitative', title: 'Throughput (msg/s)', axis: { format: '~s' } },
    color: { field: 'series', type: 'nominal', title: 'Message size · mode', sort: series, legend: { labelLimit: 0 } },
  } as const;
  return {
    id: 'throughput-by-threads',
    title: 'Publish throughput by publisher threads',
    caption:
      'Messages per second published, by number of publisher threads, message size and mode (median of the rounds); higher is better.',
    spec: {
      title: { text: 'Publish throughput by publisher threads', subtitle: 'messages per second, median of the rounds; higher is better' },
      width: Math.min(PLOT_WIDTH_PX + 80, Math.max(PLOT_WIDTH_PX, threads * series.length * 34)),
      height: 260,
      data: { values: values(rows) },
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

const KIND_ORDER: readonly LatencyKind[] = ['publish-call', 'publish-confirm', 'end-to-end', 'other'];

export function latencyPercentiles(results: readonly RawResult[]): ChartSpec | undefined {
  const rows = latencyPercentileRows(results);
  if (rows.length === 0) return undefined;
  const percentiles = [...new Set([...rows].sort((a, b) => a.order - b.order).map((row) => row.percentile))];
  // The same room for the row labels in every panel, so panel titles and plots line up.
  const labelExtent = Math.ceil(Math.max(...rows.map((row) => estimateTextWidth(row.configuration, 11)))) + 8;
  // Three different quantities, each on its own axis with its unit: the publish() call (µs),
  // publish to confirm and end-to-end (ms). Dots on a log axis (bars from zero would mislead on a
  // log scale), a row per configuration, a grey line from its lowest to its highest percentile.
  const panel = (kind: LatencyKind) => {
    const kindRows = rows.filter((row) => row.kind === kind);
    const unit = kindRows[0]!.unit;
    const configurations = [...new Set(kindRows.map((row) => row.configuration))];
    const y = {
      field: 'configuration',
      type: 'nominal',
      title: null,
      sort: configurations,
      axis: { labelLimit: 0, minExtent: labelExtent, maxExtent: labelExtent },
    } as const;
    const x = {
      field: 'latency',
      type: 'quantitative',
      title: `${unit === 'µs' ? 'microseconds' : 'milliseconds'} (log scale)`,
      scale: { type: 'log' },
      axis: { format: ',~g', values: logTicks(kindRows.map((row) => row.latency)) },
    } as const;
    return {
      title: { text: LATENCY_KIND_TITLES[kind], fontSize: 12, fontWeight: 500, anchor: 'start' },
      width: PLOT_WIDTH_PX - 60,
      height: { step: 22 },
      data: { values: values(kindRows) },
      layer: [
        {
          mark: { type: 'rule', color: '#bbbbbb', strokeWidth: 2 },
          encoding: { y, x: { ...x, aggregate: 'min' }, x2: { field: 'latency', aggregate: 'max' } },
        },
        {
          mark: { type: 'point', filled: true, size: 60, opacity: 1 },
          encoding: {
            y,
            x,
            color: { field: 'percentile', type: 'nominal', title: 'Percentile', sort: percentiles },
            tooltip: [{ field: 'configuration' }, { field: 'percentile' }, { field: 'latency', format: ',.3~r', title: unit }],
          },
        },
      ],
    };
  };
  const kinds = KIND_ORDER.filter((kind) => rows.some((row) => row.kind === kind));
  return {
    id: 'latency-percentiles',
    title: 'Latency percentiles by kind',
    caption: `${joinKinds(kinds)}${kinds.length > 1 ? ', each on its own log axis with its unit' : ' on a log axis'}, one row per configuration; lower is better.`,
    spec: {
      title: { text: 'Latency percentiles', subtitle: 'each kind on its own axis and unit (log scale); lower is better' },
      vconcat: kinds.map(panel),
      spacing: 18,
      resolve: { scale: { x: 'independent', y: 'independent' } },
    } as TopLevelSpec,
  };
}

/** `Publish-call time, publish → confirm and end-to-end latency`. */
function joinKinds(kinds: readonly LatencyKind[]): string {
  const names = kinds.map((kind, index) => {
    const name = LATENCY_KIND_TITLES[kind].replace(/ \(.*$/, '');
    return index === 0 ? name : name.charAt(0).toLowerCase() + name.slice(1);
  });
  return names.length <= 1 ? (names[0] ?? '') : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
}

/** Tick values for a log axis: the decades the values span, with 2 and 5 between when they span less than one and a half. */
export function logTicks(values: readonly number[]): number[] {
  const min = Math.min(...values);
  const max = Math.max(...values);
  const low = Math.floor(Math.log10(min));
  const high = Math.ceil(Math.log10(max));
  const steps = Math.log10(max / min) < 1.5 ? [1, 2, 5] : [1];
  const ticks: number[] = [];
  for (let exponent = low; exponent <= high; exponent += 1) {
    for (const step of steps) ticks.push(Number((step * 10 ** exponent).toPrecision(12)));
  }
  return ticks.filter((tick) => tick >= 10 ** low && tick <= 10 ** high);
}

export function consumerScalability(results: readonly RawResult[]): ChartSpec | undefined {
  const rows = consumerScalabilityRows(results);
  if (rows.length === 0) return undefined;
  const consumerCounts = [...new Set(rows.map((row) => row.consumers))];
  if (consumerCounts.length === 1) return consumerRatesBars(rows, consumerCounts[0]!);
  const panel = (name: 'throughput' | 'startup', title: string, yTitle: string) => ({
    title: { text: title, fontSize: 12, fontWeight: 500 },
    width: PLOT_WIDTH_PX / 2 - 20,
    height: 220,
    transform: [{ filter: { field: 'panel', equal: name } }],
    mark: { type: 'line', point: { size: 50, filled: true }, strokeWidth: 2 },
    encoding: {
      x: { field: 'consumers', type: 'quantitative', title: 'Consumers', axis: { format: '~s' } },
      y: { field: 'value', type: 'quantitative', title: yTitle, axis: { format: '~s' } },
      color: { field: 'series', type: 'nominal', title: null },
    },
  });
  const panels = [panel('throughput', 'Rates', 'Messages per second')];
  if (rows.some((row) => row.panel === 'startup')) panels.push(panel('startup', 'Consumer start-up', 'Milliseconds'));
  return {
    id: 'consumer-scalability',
    title: 'Consumer scalability',
    caption:
      'Produce and consume rates (higher is better) and the time for all consumers to start (lower is better), as the number of consumers grows.',
    spec: {
      title: { text: 'Consumer scalability', subtitle: 'massive consumers: rates and start-up time by number of consumers' },
      data: { values: values(rows) },
      hconcat: panels,
      resolve: { scale: { color: 'independent' } },
    } as TopLevelSpec,
  };
}

/** One consumer count: no line to draw, so the two rates as labelled bars, the start-up time in the subtitle. */
function consumerRatesBars(rows: ReturnType<typeof consumerScalabilityRows>, consumers: number): ChartSpec {
  const rates = rows.filter((row) => row.panel === 'throughput');
  const startup = rows.find((row) => row.panel === 'startup');
  const subtitle = `one configuration (${consumers} consumers), so bars rather than a line${startup ? `; consumer start-up ${formatValue(startup.value, 'ms')}` : ''}`;
  const y = { field: 'series', type: 'nominal', title: null, sort: ['produce', 'consume'] } as const;
  return {
    id: 'consumer-scalability',
    title: `Consumer rates with ${consumers} consumers`,
    caption: `Produce and consume rates with ${consumers} consumers (the only consumer count in this run; several counts are drawn as a line); higher is better.`,
    spec: {
      title: { text: `Consumer rates with ${consumers} consumers`, subtitle },
      width: PLOT_WIDTH_PX,
      height: { step: 30 },
      data: { values: values(rates) },
      layer: [
        {
          mark: { type: 'bar', cornerRadiusEnd: 2, height: { band: 0.6 } },
          encoding: {
            y,
            x: { field: 'value', type: 'quantitative', title: 'Messages per second', axis: { format: ',.0f', tickCount: 5 } },
            color: { field: 'series', type: 'nominal', legend: null, sort: ['produce', 'consume'] },
          },
        },
        {
          mark: { type: 'text', align: 'left', dx: 4, fontSize: 10, color: '#333333' },
          encoding: { y, x: { field: 'value', type: 'quantitative' }, text: { field: 'value', type: 'quantitative', format: ',.0f' } },
        },
      ],
    },
  };
}
