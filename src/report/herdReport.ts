/**
 * The report of a reconnect herd (pure spec and Markdown; `writeHerdReport` renders and writes):
 * per client configuration, the connection attempts the broker side saw per 100 ms after the
 * drop, and how many connections consume again over time; a table per configuration and a row
 * per agent.
 */
import type { TopLevelSpec } from 'vega-lite';
import type { HerdRun } from '../fleet/herd/coordinator';
import { BIN_MS } from '../fleet/herd/figures';
import { describeDrop } from '../fleet/herd/target';
import { PALETTE, PLOT_WIDTH_PX } from './chartSpec';
import { figureCell as cell } from './markdown';
import { writeMarkdownWithChart } from './loadReport';

export const HERD_CHART_FILE = 'herd.svg';

const labelOf = (run: HerdRun) => `${run.client.name}:${run.client.profile}`;

/** Attempts per 100 ms (bars of each configuration side by side in time) and connections consuming again (a cumulative line). */
export function herdChartSpec(runs: readonly HerdRun[]): TopLevelSpec {
  const attempts = runs.flatMap((run) =>
    run.merged.attemptsPerBin.map((count, bin) => ({ client: labelOf(run), from_s: (bin * BIN_MS) / 1000, attempts: count })),
  );
  const back = runs.flatMap((run) => {
    const times = run.agents
      .flatMap((each) => each.report?.connections ?? [])
      .map((each) => each.consumed_again_ns)
      .filter((each): each is string => each !== null);
    return cumulativeBack(run, times);
  });
  const x = { field: 'from_s', type: 'quantitative' as const, title: 'seconds from the drop' };
  const color = { field: 'client', type: 'nominal' as const, scale: { range: PALETTE }, title: 'client' };
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
    title: `Reconnect herd: attempts the broker side saw per ${BIN_MS} ms, and connections consuming again`,
    vconcat: [
      {
        width: PLOT_WIDTH_PX,
        height: 160,
        data: { values: attempts },
        mark: { type: 'line', interpolate: 'step-after' },
        encoding: { x, y: { field: 'attempts', type: 'quantitative', title: `attempts per ${BIN_MS} ms` }, color },
      },
      {
        width: PLOT_WIDTH_PX,
        height: 120,
        data: { values: back },
        mark: { type: 'line', interpolate: 'step-after' },
        encoding: { x, y: { field: 'consuming', type: 'quantitative', title: 'consuming again' }, color },
      },
    ],
  };
}

/** The number of connections consuming again at each moment one came back. */
function cumulativeBack(run: HerdRun, consumedAgainNs: readonly string[]): { client: string; from_s: number; consuming: number }[] {
  const dropNs = BigInt(run.dropNs);
  const seconds = consumedAgainNs.map((each) => Number(BigInt(each) - dropNs) / 1e9).sort((a, b) => a - b);
  return [
    { client: labelOf(run), from_s: 0, consuming: 0 },
    ...seconds.map((from_s, index) => ({ client: labelOf(run), from_s, consuming: index + 1 })),
  ];
}

const LEVELS = '▁▂▃▄▅▆▇█';
/** At most this many characters: longer herds show the largest bin of each group. */
const SPARK_WIDTH = 60;

/**
 * Attempts per 100 ms as a small chart in text (one character per bin, scaled to the peak; a
 * long herd shows the largest bin of each group): `█▁▁▁▁` is one burst, a ramp is a spread.
 */
export function attemptsSparkline(bins: readonly number[]): string {
  const peak = Math.max(0, ...bins);
  if (peak === 0) return '–';
  const group = Math.max(1, Math.ceil(bins.length / SPARK_WIDTH));
  const grouped = Array.from({ length: Math.ceil(bins.length / group) }, (_, index) =>
    Math.max(...bins.slice(index * group, (index + 1) * group)),
  );
  const line = grouped
    .map((value) => (value === 0 ? ' ' : LEVELS[Math.min(LEVELS.length - 1, Math.ceil((value / peak) * LEVELS.length) - 1)]!))
    .join('');
  return `\`${line}\`${group > 1 ? ` (${(group * BIN_MS) / 1000} s a character)` : ''}`;
}

export function herdMarkdown(runs: readonly HerdRun[], chartFile: string | null): string {
  const first = runs[0];
  const lines = [
    `## Reconnect herd: ${first?.merged.connections ?? 0} connections over ${first?.agents.length ?? 0} agent processes`,
    '',
    `Broker: ${first ? describeBroker(first) : '–'}.`,
    '',
    `Drop: ${first ? describeDrop(first.drop) : '–'}. Attempts: every TCP connection the herd's fault proxy accepted after the drop (one entry per agent), the broker side's view. Back: the connection's consumer received its probe again (a probe held unacked before the drop, put back by it).`,
    '',
    '| client | attempts | failed | peak per 100 ms (share of N, at) | attempts p10–p90 (s) | back p50 / p90 (s) | all back (s) | never back | closes spread (ms) |',
    '|---|---:|---:|---|---:|---:|---:|---:|---:|',
    ...runs.map((run) => {
      const m = run.merged;
      const s = (ms: number | null | undefined) => (ms === null || ms === undefined ? '–' : (ms / 1000).toFixed(2));
      return `| ${labelOf(run)} | ${m.attempts} | ${m.failedAttempts} | ${m.peakAttempts} (${(m.peakShare * 100).toFixed(0)}%, ${cell(m.peakAtMs === null ? null : m.peakAtMs / 1000)} s) | ${s(m.attemptMomentsMs?.p10)}–${s(m.attemptMomentsMs?.p90)} | ${s(m.backMs.p50)} / ${s(m.backMs.p90)} | ${s(m.allBackMs)} | ${m.neverBack} | ${cell(run.drop.spreadMs)} |`;
    }),
    '',
    `Attempts per ${BIN_MS} ms from the drop, one character a bin (scaled to each configuration's own peak):`,
    '',
    ...runs.map((run) => `- ${labelOf(run)}: ${attemptsSparkline(run.merged.attemptsPerBin)} peak ${run.merged.peakAttempts}`),
    '',
    ...(chartFile ? [`![reconnect herd](${chartFile})`, ''] : []),
    ...herdFindingLines(runs),
  ];
  for (const run of runs) {
    lines.push(
      `### ${labelOf(run)}: per agent`,
      '',
      '| agent | connections | attempts | peak per 100 ms | all back (s) | never back |',
      '|---:|---:|---:|---:|---:|---:|',
    );
    for (const each of run.agents)
      lines.push(
        `| ${each.agent} | ${each.figures.connections} | ${each.figures.attempts} | ${each.figures.peakAttempts} | ${each.figures.allBackMs === null ? '–' : (each.figures.allBackMs / 1000).toFixed(2)} | ${each.figures.neverBack} |`,
      );
    for (const each of run.absent) lines.push('', `**Missing** agent ${each.agent}: ${each.reason}`);
    lines.push('');
  }
  return lines.join('\n');
}

/** Which broker the herd stood on, and why. */
function describeBroker(run: HerdRun): string {
  return `${run.broker.kind === 'shared' ? 'the shared broker' : 'a node the harness started'} (${run.broker.why})`;
}

/** The findings of every configuration (a burst, connections never back), or that there were none. */
function herdFindingLines(runs: readonly HerdRun[]): string[] {
  const share = runs[0]?.burstShare ?? 0;
  const found = runs.flatMap((run) => (run.findings ?? []).map((finding) => `- **${labelOf(run)}**: ${finding}`));
  return [
    `### Findings`,
    '',
    `A burst is more than ${Math.round(share * 100)} % of the connections attempting within one ${BIN_MS} ms; every connection must consume again within the bound.`,
    '',
    ...(found.length > 0 ? found : ['None.']),
    '',
  ];
}

/** Writes report.md and the chart into `dir`; a chart that cannot be drawn leaves the Markdown, saying so. */
export async function writeHerdReport(runs: readonly HerdRun[], dir: string): Promise<void> {
  await writeMarkdownWithChart(dir, HERD_CHART_FILE, herdChartSpec(runs), (chart) => herdMarkdown(runs, chart), 'bench herd');
}
