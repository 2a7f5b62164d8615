/**
 * The report of one `bench load` run: a Markdown section (figures, accounting, fault windows) and
 * a time-series chart (rates and end-to-end p99 per point, each fault window shaded). The chart
 * spec and the Markdown are pure; `writeLoadReport` renders and writes them.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { TopLevelSpec } from 'vega-lite';
import { latenessOfRun } from '../load/lateness';
import type { LoadResult } from '../load/result';
import type { FleetSection } from '../fleet/merge';
import { fleetSectionMarkdown } from './fleetReport';
import { PALETTE, PLOT_WIDTH_PX } from './chartSpec';
import { figureCell as cell } from './markdown';
import { renderSvg } from './charts';

export const LOAD_CHART_FILE = 'timeseries.svg';

/** Rates (msg/s) and e2e p99 over time, fault windows as shaded rectangles (from their recorded injection to removal). */
export function loadChartSpec(result: LoadResult): TopLevelSpec {
  const perSecond = 1000 / result.interval_ms;
  const rows = result.timeseries.flatMap((point) => [
    { t_s: point.t_s, series: 'published', rate: point.published * perSecond },
    { t_s: point.t_s, series: 'consumed', rate: point.consumed * perSecond },
    ...(result.workload.confirmWindow > 0 ? [{ t_s: point.t_s, series: 'confirmed', rate: point.confirmed * perSecond }] : []),
  ]);
  const latency = result.timeseries.map((point) => ({
    t_s: point.t_s,
    e2e_p99_ms: point.e2e_p99_ms,
    connections_up: point.connections_up,
  }));
  const windows = result.faults.map((fault) => ({
    fault: fault.text,
    from_s: (fault.injectedAtMs ?? fault.plannedAtMs) / 1000,
    to_s: (fault.removedAtMs ?? fault.plannedAtMs + fault.plannedLengthMs) / 1000,
  }));
  const faultLayer = {
    data: { values: windows.length > 0 ? windows : [{ fault: 'none', from_s: 0, to_s: 0 }] },
    mark: { type: 'rect' as const, color: '#e45756', opacity: windows.length > 0 ? 0.15 : 0 },
    encoding: { x: { field: 'from_s', type: 'quantitative' as const }, x2: { field: 'to_s' }, tooltip: [{ field: 'fault' }] },
  };
  const x = { field: 't_s', type: 'quantitative' as const, title: 'seconds from the start' };
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
    title: `${result.workload.name}: rates and end-to-end p99 per ${result.interval_ms / 1000} s (fault windows shaded)`,
    vconcat: [
      {
        width: PLOT_WIDTH_PX,
        height: 160,
        layer: [
          faultLayer,
          {
            data: { values: rows },
            mark: { type: 'line', interpolate: 'step-before' },
            encoding: {
              x,
              y: { field: 'rate', type: 'quantitative', title: 'msg/s' },
              color: { field: 'series', type: 'nominal', scale: { range: PALETTE } },
            },
          },
        ],
      },
      {
        width: PLOT_WIDTH_PX,
        height: 120,
        layer: [
          faultLayer,
          {
            data: { values: latency },
            mark: { type: 'line', point: true, color: PALETTE[3] },
            encoding: { x, y: { field: 'e2e_p99_ms', type: 'quantitative', title: 'e2e p99 (ms)' } },
          },
        ],
      },
    ],
  };
}

/** The Markdown section of the run. */
export function loadReportMarkdown(result: LoadResult & { readonly fleet?: FleetSection }, chartFile: string | null): string {
  const m = result.messages;
  const latencyRow = (label: string, f: LoadResult['latency_ms']['end_to_end']) =>
    `| ${label} | ${f.count} | ${cell(f.p50)} | ${cell(f.p90)} | ${cell(f.p99)} | ${cell(f.p99_9)} | ${cell(f.p99_99)} | ${cell(f.max)} |`;
  const lines = [
    `## Load: ${result.workload.name}`,
    '',
    `Client: ${result.client.label}. ${result.via_proxy ? 'Through the fault proxy.' : 'Directly to the broker.'}`,
    '',
    `Intended rate ${result.intended_rate_per_s === null ? 'as fast as possible' : `${result.intended_rate_per_s} msg/s`}; achieved ${result.achieved_rate_per_s} msg/s${result.achieved_fraction === null ? '' : ` (${(result.achieved_fraction * 100).toFixed(2)}%)`}.`,
    '',
    "Latencies in ms, timed from each message's intended send time (open loop), measured part only:",
    '',
    '| latency | n | p50 | p90 | p99 | p99.9 | p99.99 | max |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
    latencyRow('end to end', result.latency_ms.end_to_end),
    latencyRow('confirm', result.latency_ms.confirm),
    latencyRow('schedule lag (sent − intended)', result.latency_ms.schedule_lag),
    '',
    // Beside the figures, so they are never read without what the senders' own lateness put in them.
    ...lateLines(result.fleet ? result.fleet.lateness_note : latenessOfRun(result)),
    `Messages: intended ${cell(m.intended)}, published ${m.published}, unsent ${m.unsent}, publish failed (in doubt) ${m.publish_failed}, confirmed ${m.confirmed}, nacked ${m.nacked}, consumed ${m.consumed_unique} distinct (+${m.duplicates} redelivered${m.nacked_by_consumer > 0 ? `, after ${m.nacked_by_consumer} nacks by the consumers` : ''}), not consumed ${m.not_consumed}, confirmed but lost ${cell(m.lost_confirmed)}.`,
    '',
  ];
  if (result.faults.length > 0) {
    lines.push('| fault | planned | injected (ms) | removed (ms) | moment (ms) | how known |', '|---|---|---:|---:|---:|---|');
    for (const fault of result.faults)
      lines.push(
        `| ${fault.text} | ${fault.plannedAtMs / 1000}s+${fault.plannedLengthMs / 1000}s | ${cell(fault.injectedAtMs)} | ${cell(fault.removedAtMs)} | ${cell(fault.referenceAtMs)} | ${fault.record?.reference.description ?? fault.error ?? '–'} |`,
      );
    lines.push('');
  }
  if (chartFile)
    lines.push(
      `![${result.workload.name} time series](${chartFile})`,
      '',
      'Per point: published and consumed msg/s, end-to-end p99; shaded: fault windows (injection to removal, as recorded). Data: timeseries.csv.',
      '',
    );
  if (result.fleet) lines.push(fleetSectionMarkdown(result.fleet));
  lines.push(...result.notes.map((note) => `- ${note}`), '');
  return lines.join('\n');
}

/** Writes report.md and the chart into `dir`; a chart that cannot be drawn leaves the Markdown, saying so. */
export async function writeLoadReport(result: LoadResult & { readonly fleet?: FleetSection }, dir: string): Promise<void> {
  await writeMarkdownWithChart(dir, LOAD_CHART_FILE, loadChartSpec(result), (chart) => loadReportMarkdown(result, chart), 'bench load');
}

/**
 * Renders `spec` into `dir/chartFile` and writes `dir/report.md` from `markdown` (given the chart's
 * file, or null when it could not be drawn: the Markdown is written all the same, and `who` says so).
 */
export async function writeMarkdownWithChart(
  dir: string,
  chartFile: string,
  spec: TopLevelSpec,
  markdown: (chart: string | null) => string,
  who: string,
): Promise<void> {
  let chart: string | null = chartFile;
  try {
    fs.writeFileSync(path.join(dir, chartFile), await renderSvg(spec));
  } catch (error) {
    chart = null;
    process.stderr.write(`${who}: warning: chart not drawn: ${(error as Error).message}\n`);
  }
  fs.writeFileSync(path.join(dir, 'report.md'), markdown(chart));
}

function lateLines(note: string | null): string[] {
  return note === null ? [] : [`**Late sending:** ${note}.`, ''];
}
