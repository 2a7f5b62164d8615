/**
 * One name per recovery figure, in the terminal, the report and the progress lines: detection
 * (first thread), propagation (all threads), detection spread, fault spread, full recovery, recovery after removal.
 */
import { formatSummary } from '../../src/cli/summary';
import { humanizeMetricName } from '../../src/report/format';
import { recoveryFigureName, withDerivedFigures } from '../../src/report/metricNames';
import { recoveryProgress, recoveryProgressFigures } from '../../src/report/progress';
import { rawResult } from '../results/helpers';
import { recordedRun } from './recorded';
import { figuresOf } from './support/reading';

/** A progress line's figures by name: `detection (first thread) 1.53 ms` gives `{ 'detection (first thread)': '1.53 ms' }`. */
const byName = (line: string): Record<string, string> =>
  Object.fromEntries(line.split(/[;,] /).map((part) => /^(.+?) ([\d.,?/—]+(?: ms)?)$/.exec(part)!.slice(1, 3)));

/** A terminal table's line as its columns (two spaces or more apart), and where each column ends. */
const columns = (line: string) => line.trim().split(/\s{2,}/);
const columnEnds = (line: string) =>
  [...line.matchAll(/\S+(?: \S+)*/g)].map((match) => [...line.slice(0, match.index + match[0].length)].length);

describe('recovery figure names', () => {
  it.each([
    ['error_detection_latency_ms', 'Detection (first thread)'],
    ['error_propagation_latency_ms', 'Propagation (all threads)'],
    ['detection_spread_ms', 'Detection spread'],
    ['fault_spread_ms', 'Fault spread'],
    ['rst_fault_spread_ms', 'TCP reset: fault spread'],
    ['full_recovery_latency_ms', 'Full recovery'],
    ['recovery_after_removal_ms', 'Recovery after removal'],
    ['rst_error_detection_latency_ms', 'TCP reset: detection (first thread)'],
    ['slow_network_threads_recovered', 'Slow network: threads recovered'],
  ])('%s reads %p', (metric, name) => {
    expect(humanizeMetricName(metric)).toBe(name);
  });

  it('leaves other metrics, even with a scenario-like prefix, to the general rule', () => {
    expect(recoveryFigureName('partition_count')).toBeUndefined();
    expect(humanizeMetricName('consumer_startup_ms')).toBe('Consumer startup');
    expect(humanizeMetricName('injection_api_ms')).toBe('Injection API');
  });

  it('derives the detection spread after each propagation, never writing it into the result', () => {
    const result = rawResult({
      name: 'recovery_after_reset_peer',
      metrics: {
        error_detection_latency_ms: { value: 1.5, unit: 'ms', direction: 'lower' },
        error_propagation_latency_ms: { value: 12, unit: 'ms', direction: 'lower' },
        rst_error_detection_latency_ms: { value: 2, unit: 'ms', direction: 'lower' },
        rst_error_propagation_latency_ms: { value: null, unit: 'ms', direction: 'lower' },
      },
    });
    const derived = withDerivedFigures(result);
    expect(Object.keys(derived.metrics)).toEqual([
      'error_detection_latency_ms',
      'error_propagation_latency_ms',
      'detection_spread_ms',
      'rst_error_detection_latency_ms',
      'rst_error_propagation_latency_ms',
    ]);
    expect(derived.metrics.detection_spread_ms).toEqual({ value: 10.5, unit: 'ms', direction: 'lower' });
    expect(result.metrics.detection_spread_ms).toBeUndefined();
  });
});

describe('the progress line of a recovery benchmark', () => {
  it('says detection for the first thread and propagation for all, never "detected in" the propagation', () => {
    const full = recoveryProgress({
      threads: 10,
      detected: 10,
      recovered: 10,
      detectionMs: 1.53,
      propagationMs: 18.2,
      fullRecoveryMs: 212.4,
      recoveryAfterRemovalMs: 35.2,
    });
    // The spread is derived: propagation − detection.
    expect(byName(full)).toEqual({
      detected: '10/10',
      recovered: '10/10',
      'detection (first thread)': '1.53 ms',
      'propagation (all threads)': '18.2 ms',
      'detection spread': '16.7 ms',
      'full recovery': '212.4 ms',
      'recovery after removal': '35.2 ms',
    });
    // Missing figures are dashes (no spread without a detection), an unknown count a question mark; no full recovery given, none said.
    const partial = recoveryProgress({
      threads: 50,
      detected: 49,
      recovered: null,
      detectionMs: null,
      propagationMs: 3,
      recoveryAfterRemovalMs: null,
    });
    expect(byName(partial)).toEqual({
      detected: '49/50',
      recovered: '?/50',
      'detection (first thread)': '—',
      'propagation (all threads)': '3 ms',
      'detection spread': '—',
      'recovery after removal': '—',
    });
    expect(`${full}\n${partial}`).not.toMatch(/detected in/);
  });
});

describe('the figures of a recovery progress line', () => {
  it('are read from a result’s metrics by their names; a metric without a value is none', () => {
    const metric = (value: number | null) => ({ value });
    const metrics = {
      threads_detected: metric(10),
      threads_recovered: metric(9),
      error_detection_latency_ms: metric(1.5),
      error_propagation_latency_ms: metric(12),
      full_recovery_latency_ms: metric(200),
      recovery_after_removal_ms: metric(null),
    };
    expect(recoveryProgressFigures(metrics, 10)).toEqual({
      threads: 10,
      detected: 10,
      recovered: 9,
      detectionMs: 1.5,
      propagationMs: 12,
      fullRecoveryMs: 200,
      recoveryAfterRemovalMs: null,
    });
    expect(recoveryProgressFigures({}, 2)).toMatchObject({ threads: 2, detected: null, propagationMs: null });
  });
});

describe('the terminal summary', () => {
  const summaryOf = (archive: ReturnType<typeof recordedRun>): string =>
    formatSummary({
      archive,
      archivePath: '/r/run.json',
      reportPath: '/r/LATEST_REPORT.md',
      chartCount: 5,
      historyPath: null,
      historyRuns: null,
      junitPath: null,
      comparison: null,
      regressions: [],
      thresholdPercent: null,
      cwd: '/',
    });
  const text = summaryOf(recordedRun());

  it('shows the peaks, then every recovery scenario in the report’s names, then the targets with the missed one named', () => {
    const lines = text.split('\n');
    const start = lines.indexOf('key metrics');
    expect(lines.slice(start + 1, start + 4).map(columns)).toEqual([
      ['Peak publish throughput', '58,571 msg/s', '100 threads · 256 B · plain'],
      ['Peak publish bandwidth', '137.7 MB/s', '100 threads · 4096 B · plain'],
      ['Peak consume throughput', '2,474 msg/s', '20 consumers · 256 B'],
    ]);
    const [header, ...rows] = lines.slice(start + 4, start + 10).map(columns);
    expect(header).toEqual([
      'recovery, ms from the fault',
      'detection',
      'propagation',
      'detection spread',
      'fault spread',
      'full recovery',
    ]);
    expect(rows).toEqual([
      ['TCP reset · 10 threads', '1.22 ✓', '26.8', '25.6', '—', '187.6 ✓'],
      ['TCP reset · 50 threads', '1.72 ✓', '91.9', '90.2', '—', '889 ✓'],
      ['Partition · 10 threads', '93.4 ✓', '106.9', '13.5', '—', '181.2 ✓'],
      ['Partition · 50 threads', '77.1 ✓', '134.6', '57.5', '—', '522.5 ✓'],
      ['Latency, then reset · 10 threads', '2.01 ✓', '43.6', '41.6', '—', '128 ✓'],
    ]);
    // The figures line up: every row's columns end at the same places.
    expect(new Set(lines.slice(start + 5, start + 10).map((line) => String(columnEnds(line).slice(1)))).size).toBe(1);
    // The legend says what each of the report's names means, and the marks.
    const legend = lines[start + 10]!;
    for (const name of ['detection', 'propagation', 'detection spread', 'fault spread']) expect(legend).toContain(`${name} = `);
    expect(legend).toMatch(/✓ .*✗/);
    // Then the targets: met of all, and the missed one by name with its figure and bound.
    expect(lines[start + 11]).toMatch(/^targets /);
    expect(figuresOf(lines[start + 11]!)).toEqual(['16', '17']);
    expect(lines[start + 12]).toMatch(/^ {2}✗ Harness overhead: /);
    expect(figuresOf(lines[start + 12]!)).toEqual(['82.6%', '90%']);
    expect(lines[start + 13]).not.toMatch(/^ {2}✗/);
    expect(text).not.toMatch(/TCP RST|detected in/);
  });

  it('counts targets left unscored on purpose (upper bounds) apart, never as missed', () => {
    const archive = recordedRun();
    const unscoredReason = 'an upper bound: timed from the start of the injecting API call';
    const results = archive.results.map((result) =>
      result.name.startsWith('recovery_')
        ? { ...result, targets: (result.targets ?? []).map((target) => ({ ...target, met: null, reason: unscoredReason })) }
        : result,
    );
    const unscored = results.flatMap((result) => (result.targets ?? []).filter((target) => target.met === null)).length;
    const summary = summaryOf({ ...archive, results });
    const targetsLine = summary.split('\n').find((line) => line.startsWith('targets'));
    expect(unscored).toBeGreaterThan(0);
    expect(targetsLine).toMatch(new RegExp(`^targets     \\d+ of \\d+ met; ${unscored} not scored \\(upper bounds`));
    expect(summary).not.toContain(unscoredReason);
    expect(summary).not.toContain('(no value)');
  });
});
