/**
 * The charts' data and specs (pure), on the recorded run and tiny inputs: the trend only from
 * two runs with every point inside its axis, latency split by kind with units, one consumer
 * count drawn as bars, recovery targets labelled once and clear of the values; and every chart,
 * rendered, narrow enough for the docs site to show it at full size.
 */
import { latencyPercentileRows, recoveryRows, throughputByThreadsRows } from '../../src/report/chartData';
import { buildChartSpecs, renderSvg } from '../../src/report/charts';
import { recoveryPanel } from '../../src/report/recoveryChart';
import { consumerScalability, logTicks } from '../../src/report/throughputCharts';
import { historyTrend } from '../../src/report/trendChart';
import { historyTrendPanels, historyTrendRows, trendDomain } from '../../src/report/trendData';
import { consumersResult } from '../results/helpers';
import { recordedHistory, recordedRun } from './recorded';

/** Every mark type in a Vega-Lite spec, however nested. */
function markTypes(spec: unknown): string[] {
  if (Array.isArray(spec)) return spec.flatMap(markTypes);
  if (spec === null || typeof spec !== 'object') return [];
  const record = spec as Record<string, unknown>;
  const own =
    typeof record.mark === 'string'
      ? [record.mark]
      : typeof (record.mark as { type?: string })?.type === 'string'
        ? [(record.mark as { type: string }).type]
        : [];
  return [...own, ...Object.entries(record).flatMap(([key, value]) => (key === 'mark' ? [] : markTypes(value)))];
}

describe('the history trend', () => {
  const [first, second] = recordedHistory();

  it('is not drawn from one run', () => {
    expect(historyTrendRows([first!])).toEqual([]);
    expect(historyTrend([first!])).toBeUndefined();
  });

  it('is drawn from two runs, every point inside its panel’s axis', () => {
    const panels = historyTrendPanels([first!, second!]);
    expect(panels.map((panel) => panel.title)).toEqual([
      'Peak publish throughput (msg/s)',
      'Peak consume throughput (msg/s)',
      'TCP reset: detection (first thread) (ms)',
      'Partition: detection (first thread) (ms)',
      'Full recovery (ms)',
    ]);
    for (const panel of panels) {
      const [low, high] = panel.domain;
      for (const row of panel.rows)
        expect({ panel: panel.metric, inside: row.value > low && row.value < high }).toEqual({ panel: panel.metric, inside: true });
    }
    expect(historyTrend([first!, second!])).toBeDefined();
  });

  it('names its series in full and its runs apart', () => {
    const rows = historyTrendRows([first!, second!]);
    expect([...new Set(rows.map((row) => row.series))]).toEqual([
      'peak',
      'TCP reset · 10 threads',
      'TCP reset · 50 threads',
      'Partition · 10 threads',
      'Partition · 50 threads',
      'Latency, then reset · 10 threads',
    ]);
    expect([...new Set(rows.map((row) => row.run_label))]).toEqual(['11-22 18:53', '11-22 18:55']);
    // Two runs within the same minute are told apart by their seconds.
    const sameMinute = { ...second!, run_id: 'run_b', started_at: first!.started_at.replace(/:52\./, ':59.') };
    expect([...new Set(historyTrendRows([first!, sameMinute]).map((row) => row.run_label))]).toEqual(['11-22 18:53:52', '11-22 18:53:59']);
    // A run that failed part-way still shows what it measured, marked as such.
    const failed = { ...second!, status: 'failed' as const };
    expect([...new Set(historyTrendRows([first!, failed]).map((row) => row.run_label))]).toEqual(['11-22 18:53', '11-22 18:55 (failed)']);
  });

  it('widens its domain around the values, by the value when they are all equal', () => {
    expect(trendDomain([10, 20])).toEqual([8.5, 21.5]);
    expect(trendDomain([5, 5])).toEqual([4.5, 5.5]);
    expect(trendDomain([0.1, 10])).toEqual([0, 11.485]);
  });
});

describe('latency percentiles', () => {
  const rows = latencyPercentileRows(recordedRun().results);

  it('keep publish-call time, publish → confirm and end-to-end latency apart, each with its unit', () => {
    expect([...new Set(rows.map((row) => `${row.kind} ${row.unit}`))].sort()).toEqual([
      'end-to-end ms',
      'publish-call µs',
      'publish-confirm ms',
    ]);
    const call = rows.filter((row) => row.kind === 'publish-call' && row.configuration === '100 threads · 256 B');
    // 0.003 ms p50 is 3 µs.
    expect(call.find((row) => row.percentile === 'p50')?.latency).toBeCloseTo(3, 6);
    expect([...new Set(rows.filter((row) => row.kind === 'end-to-end').map((row) => row.configuration))].sort()).toEqual([
      'Burst traffic',
      'Concurrent produce consume',
      'Massive consumers · 20 consumers',
    ]);
  });

  it('label a log axis by decade, with 2 and 5 between when it spans less than one and a half', () => {
    expect(logTicks([2, 3000])).toEqual([1, 10, 100, 1000, 10000]);
    expect(logTicks([3, 40])).toEqual([1, 2, 5, 10, 20, 50, 100]);
  });
});

describe('consumer scalability', () => {
  it('with one consumer count is a bar chart of the rates, start-up time in the subtitle', () => {
    const chart = consumerScalability(recordedRun().results)!;
    expect(chart.title).toBe('Consumer rates with 20 consumers');
    expect(markTypes(chart.spec)).toEqual(['bar', 'text']);
    expect(JSON.stringify(chart.spec)).toContain('consumer start-up 437.9 ms');
  });

  it('with several consumer counts is a line per rate', () => {
    const chart = consumerScalability([consumersResult(100, 1000, 41_000), consumersResult(500, 2000, 38_000)])!;
    expect(chart.title).toBe('Consumer scalability');
    expect(markTypes(chart.spec)).toEqual(['line', 'line']);
  });
});

describe('the recovery chart', () => {
  const rows = recoveryRows(recordedRun().results);

  it('has the four phases in the report’s names, scenarios in order', () => {
    expect([...new Set(rows.map((row) => row.phase))]).toEqual([
      'detection (first thread)',
      'propagation (all threads)',
      'full recovery',
      'recovery after removal',
    ]);
    expect([...new Set(rows.map((row) => row.scenario))][0]).toBe('TCP reset · 10 threads');
  });

  it('labels each target once, on the side of its tick with room, and names the far ones in the title', () => {
    const detection = recoveryPanel(rows.filter((row) => row.phase === 'detection (first thread)'));
    expect(detection.targetLabels.map((label) => [label.text, label.side])).toEqual([
      ['target < 10 ms', 'right'],
      ['target < 200 ms', 'left'],
    ]);
    expect(detection.domain[1]).toBeGreaterThanOrEqual(200);
    expect(detection.rows[0]!.value_label).toBe('1.22 ms');
    const fullRecovery = recoveryPanel(rows.filter((row) => row.phase === 'full recovery'));
    expect(fullRecovery.drawn).toEqual([]);
    expect(fullRecovery.farTargets).toEqual([5000]);
  });
});

describe('every chart of a recorded run', () => {
  it('series of publish throughput leave out what all configurations share', () => {
    expect([...new Set(throughputByThreadsRows(recordedRun().results).map((row) => row.series))]).toEqual([
      '256 B · confirm',
      '256 B · plain',
      '4096 B · confirm',
      '4096 B · plain',
    ]);
  });

  it('renders within 640 px, so the docs site shows it at full size', async () => {
    const charts = buildChartSpecs(recordedRun().results, recordedHistory());
    expect(charts.map((chart) => chart.id)).toEqual([
      'throughput-by-threads',
      'latency-percentiles',
      'consumer-scalability',
      'recovery-by-scenario',
      'history-trend',
    ]);
    for (const chart of charts) {
      const svg = await renderSvg(chart.spec);
      const width = Number(/^<svg[^>]*\swidth="([\d.]+)"/.exec(svg)?.[1]);
      expect({ chart: chart.id, fits: width > 300 && width <= 640 }).toEqual({ chart: chart.id, fits: true });
      expect(svg).not.toMatch(/NaN|undefined|…/);
    }
  }, 60_000);
});
