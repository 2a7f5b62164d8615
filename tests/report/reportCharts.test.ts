/**
 * The report's charts across runs: a chart this run has no data for is removed, unless the run
 * failed, when the earlier one is kept and the report says which run it shows.
 */
import fs from 'node:fs';
import path from 'node:path';
import { buildRunArchive } from '../../src/results/archive';
import { drawnFor, markDrawnFor } from '../../src/report/charts';
import { writeCharts, writeReport } from '../../src/report/render';
import { environment, realisticResults, tempDir } from '../results/helpers';

describe('charts of an earlier report', () => {
  let root: string;
  beforeEach(() => {
    root = tempDir('report-charts');
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  it('removes charts of an earlier report that this one has no data for', async () => {
    const out = path.join(root, 'out');
    fs.mkdirSync(out);
    fs.writeFileSync(path.join(out, 'chart-consumer-scalability.svg'), '<svg/>');
    const outcome = await writeCharts(
      out,
      realisticResults().filter((result) => result.name === 'publish_throughput'),
      [],
      { runId: 'run_20250131_120000_abcd1234' },
    );
    expect(outcome.charts.map((chart) => chart.file)).toEqual(['chart-throughput-by-threads.svg', 'chart-latency-percentiles.svg']);
    expect(fs.readdirSync(out).sort()).toEqual(['chart-latency-percentiles.svg', 'chart-throughput-by-threads.svg']);
  });

  it('keeps, when the run failed, the earlier charts it has no data for, and says which run they show', async () => {
    const out = path.join(root, 'out');
    fs.mkdirSync(out);
    const earlier = markDrawnFor('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"></svg>', 'run_20250130_090000_abcd1234');
    fs.writeFileSync(path.join(out, 'chart-recovery-by-scenario.svg'), earlier);
    fs.writeFileSync(path.join(out, 'chart-history-trend.svg'), '<svg/>');
    const publishOnly = realisticResults().filter((result) => result.name === 'publish_throughput');
    const outcome = await writeCharts(out, publishOnly, [], { runId: 'run_20250131_120000_abcd1234', keepEarlierCharts: true });
    expect(outcome.charts.map((chart) => [chart.file, chart.earlier_run])).toEqual([
      ['chart-throughput-by-threads.svg', null],
      ['chart-latency-percentiles.svg', null],
      ['chart-recovery-by-scenario.svg', 'run_20250130_090000_abcd1234'],
      ['chart-history-trend.svg', 'an earlier run'],
    ]);
    expect(fs.readFileSync(path.join(out, 'chart-recovery-by-scenario.svg'), 'utf8')).toBe(earlier);
    expect(drawnFor(fs.readFileSync(path.join(out, 'chart-throughput-by-threads.svg'), 'utf8'))).toBe('run_20250131_120000_abcd1234');

    // Through the whole report: a failed run's report says so under each kept chart.
    const archive = buildRunArchive({
      environment: environment(),
      startedAt: new Date('2025-01-31T12:00:00Z'),
      finishedAt: new Date('2025-01-31T12:00:10Z'),
      markerExpression: null,
      testNameFilter: null,
      invokedBy: 'cli',
      jestExitCode: 1,
      interrupted: false,
      tests: [],
      suiteErrors: [{ file: 'benchmarks/bench_recovery_latency.bench.ts', message: 'broker went away' }],
      results: publishOnly,
      invalidResultFiles: [],
      warnings: [],
    });
    const { reportPath } = await writeReport({
      archive,
      archiveFile: 'run.json',
      historyRuns: [],
      comparison: null,
      comparisonNote: null,
      thresholdPercent: null,
      regressions: [],
      generatedAt: new Date(),
      warnings: [],
      reportsDir: out,
    });
    const report = fs.readFileSync(reportPath, 'utf8');
    expect(report).toContain('![Recovery times by scenario (from run_20250130_090000_abcd1234)](chart-recovery-by-scenario.svg)');
    expect(report).toContain('⚠️ **From an earlier run** (`run_20250130_090000_abcd1234`)');
    expect(fs.existsSync(path.join(out, 'chart-history-trend.svg'))).toBe(true);
  });
});
