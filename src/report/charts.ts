/**
 * The report's charts: Vega-Lite specs built from the chart rows (pure; throughputCharts.ts,
 * recoveryChart.ts, trendChart.ts), rendered to SVG in Node by Vega's headless view (no canvas,
 * no native build). A chart with no data is not produced.
 */
import * as vega from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';
import type { HistoryEntry } from '../results/history';
import type { RawResult } from '../results/rawResult';
import { recoveryReplicates } from '../results/recoveryDetails';
import { PALETTE, type ChartSpec } from './chartSpec';
import { clientConfigurations, configurationOf } from './clientFigures';
import { clientsSideBySide } from './clientsChart';
import { recoveryScenarios } from './glance';
import { recoveryByScenario } from './recoveryChart';
import { boundNote } from './recoveryFloor';
import { recoveryTimelineCharts, TIMELINE_CHART_PREFIX } from './recoveryTimeline';
import { vegaTextWidth } from './textWidth';
import { consumerScalability, latencyPercentiles, throughputByThreads } from './throughputCharts';
import { historyTrend } from './trendChart';

export type { ChartSpec } from './chartSpec';

export const CHART_IDS = [
  'throughput-by-threads',
  'latency-percentiles',
  'consumer-scalability',
  'recovery-by-scenario',
  'clients-side-by-side',
  'history-trend',
] as const;

/** Titles and captions of kept charts (a chart kept from an earlier report has no spec to take them from). */
export const CHART_TITLES: Readonly<Record<(typeof CHART_IDS)[number], { readonly title: string; readonly caption: string }>> = {
  'throughput-by-threads': {
    title: 'Publish throughput by publisher threads',
    caption: 'Messages per second published, by publisher threads; higher is better.',
  },
  'latency-percentiles': {
    title: 'Latency percentiles by kind',
    caption: 'Publish-call time, publish → confirm and end-to-end latency, each on its own axis; lower is better.',
  },
  'consumer-scalability': {
    title: 'Consumer scalability',
    caption: 'Produce and consume rates, and consumer start-up time, by number of consumers.',
  },
  'recovery-by-scenario': {
    title: 'Recovery times by scenario',
    caption: 'Detection, propagation, full recovery and recovery after removal per scenario; red ticks are the targets.',
  },
  'clients-side-by-side': {
    title: 'Clients side by side',
    caption: 'Each key figure per client configuration, each panel on its own axis.',
  },
  'history-trend': { title: 'History trend of key metrics', caption: 'Key metrics run by run, oldest to newest.' },
};

/** Charts drawn once per configuration (their ids start with one of these), after the fixed ones of their kind. */
export const PER_CONFIGURATION_CHART_PREFIXES = [TIMELINE_CHART_PREFIX] as const;

export function chartFileName(id: string): string {
  return `chart-${id}.svg`;
}

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
    labelLimit: 0,
    symbolType: 'square',
  },
  header: { labelFontSize: 12, labelFontWeight: 600, labelAngle: 0, labelOrient: 'top', labelAnchor: 'start', labelAlign: 'left' },
  range: { category: PALETTE },
  view: { stroke: null },
} as const;

/**
 * The recovery scenarios that get a timeline: with several client configurations (a shoot-out:
 * 5 scenarios × 10 configurations would be 50 charts), only the first in the registry's order
 * (amqplib, defaults, when it ran); the clients' figures are side by side in their own section.
 */
export function timelineResults(results: readonly RawResult[]): RawResult[] {
  const scenarios = recoveryScenarios(results).map(({ result }) => result);
  const configurations = clientConfigurations(scenarios);
  if (configurations.length < 2) return scenarios;
  return scenarios.filter((result) => configurationOf(result)?.label === configurations[0]!.label);
}

/** Every chart the data allows, in report order. */
export function buildChartSpecs(results: readonly RawResult[], historyRuns: readonly HistoryEntry[]): ChartSpec[] {
  return [
    throughputByThreads(results),
    latencyPercentiles(results),
    consumerScalability(results),
    recoveryByScenario(results),
    // One per recovery scenario (ids `recovery-timeline-…`), right after the scenarios' overview.
    ...recoveryTimelineCharts(timelineResults(results), (result) => {
      // In a shoot-out the caption names the one client configuration drawn.
      const client = clientConfigurations(results).length > 1 ? `${configurationOf(result)?.label ?? ''}: ` : '';
      return `${client}${boundNote(result, results, machineCpuCount(results))}`;
    }),
    clientsSideBySide(results),
    historyTrend(historyRuns),
  ].filter((chart): chart is ChartSpec => chart !== undefined);
}

/** The cores the recovery results say they ran on (`details.machine`); null when none says (results of older runs). */
function machineCpuCount(results: readonly RawResult[]): number | null {
  for (const result of results)
    for (const details of recoveryReplicates(result).replicates) if (details.machine !== undefined) return details.machine.cpu_count;
  return null;
}

/** The comment a chart's SVG carries after its root tag, naming the run it was drawn for. */
const DRAWN_FOR = /<!-- amqp-bench: drawn for run (\S+) -->/;

/** `<svg …><!-- amqp-bench: drawn for run run_… -->…`: a kept chart can say which run it shows. */
export function markDrawnFor(svg: string, runId: string): string {
  return svg.replace(/^(<svg\b[^>]*>)/, `$1<!-- amqp-bench: drawn for run ${runId.replace(/-->/g, '')} -->`);
}

/** The run a chart's SVG was drawn for, or null when it does not say (drawn before charts said so). */
export function drawnFor(svg: string): string | null {
  return DRAWN_FOR.exec(svg)?.[1] ?? null;
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
