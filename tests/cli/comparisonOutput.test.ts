/**
 * What the comparison prints: the terminal table of `--compare`, the threshold lines of the
 * summary, and the A/A check's verdict (pure functions on comparisons of synthetic runs).
 */
import fs from 'node:fs';
import path from 'node:path';
import { resolveAaOptions } from '../../src/cli/aaCommand';
import { summarizeAaCheck } from '../../src/cli/aaSummary';
import { getConfig } from '../../src/config';
import { formatComparison } from '../../src/cli/summary';
import { compareRuns, type ComparableRun } from '../../src/results/compare';
import { comparePaired } from '../../src/results/pairedCompare';
import { regressionsBeyond } from '../../src/results/gate';
import { describeChange } from '../../src/report/comparisonView';
import { environment, rawResult, tempDir } from '../results/helpers';

const run = (runId: string, rates: number[], latencies: number[]): ComparableRun => ({
  run_id: runId,
  started_at: '2025-01-31T12:00:00.000Z',
  environment: environment(),
  results: [
    rawResult({
      name: 'publish_throughput',
      parameters: { threads: 10, publish_mode: 'plain' },
      metrics: {
        throughput_msgs_per_sec: { value: [...rates].sort((a, b) => a - b)[2]!, unit: 'msg/s', direction: 'higher' },
        publish_latency_p99_ms: { value: [...latencies].sort((a, b) => a - b)[2]!, unit: 'ms', direction: 'lower' },
        recovery_ms: { value: 10, unit: 'ms', direction: 'lower' },
      },
      replicates: { throughput_msgs_per_sec: rates, publish_latency_p99_ms: latencies },
    }),
  ],
});

const steady = run('run_a', [1000, 1010, 990, 1005, 995], [2, 2.1, 1.9, 2.05, 1.95]);
const same = run('run_b', [1002, 1008, 992, 1003, 997], [2.02, 2.08, 1.92, 2.03, 1.97]);
const slower = run('run_c', [600, 610, 590, 605, 595], [2.02, 2.08, 1.92, 2.03, 1.97]);

describe('the terminal comparison (--compare)', () => {
  it('shows baseline, current, change with its interval, minimum effect, significance and verdict; worse first', () => {
    const text = formatComparison(compareRuns(steady, slower));
    const lines = text.split('\n');
    expect(lines[0]).toBe(
      'comparison with run_a: replicates of that run (Mann-Whitney U, Hodges-Lehmann 95% CI), else 0 earlier run(s) of its build (t prediction test, 5 needed)',
    );
    expect(lines[1]).toBe(
      '2 metrics judged, Benjamini-Hochberg corrected at FDR 0.05; a verdict also needs the change beyond the minimum effect (~ no change that counts, ? not judged)',
    );
    expect(lines[2]).toMatch(/^result \/ metric +baseline +current +change \[95% CI\] +min\. effect +significance +verdict$/);
    expect(lines[3]).toMatch(
      /^publish_throughput \(10 threads · plain\) Throughput \(msg\/s\) +1,000 msg\/s \(5 reps\) +600 msg\/s \(5 reps\) +−40\.0% \[−41\.\d%, −38\.\d%\] +±20% \(config\) +MW exact p=0\.008, q=0\.016 +worse$/,
    );
    expect(lines[4]).toMatch(/Publish latency p99 .* ~$/);
    expect(lines[5]).toMatch(/Recovery +10 ms +10 ms +0% +±30% \(config\), at least 0\.01 ms +— +\?$/);
    expect(lines[6]).toBe('0 better, 1 worse, 1 ~, 1 not judged');
  });

  it('describes a change from zero in the unit, and an unjudged one as the change of its values', () => {
    const base = compareRuns(steady, slower).matched[0]!.metrics[0]!;
    expect(
      describeChange({
        ...base,
        change: { ...base.change!, estimate: 2, low: 1, high: 3, estimate_percent: null, low_percent: null, high_percent: null },
        unit: 'count',
      }),
    ).toBe('+2 count [+1, +3]');
    expect(describeChange({ ...base, change: null, delta_percent: -12.34 })).toBe('−12.3%');
  });
});

describe('the A/A check verdict', () => {
  it('counts the flagged share of judged metrics per pair and whether the gate would have failed', () => {
    const quiet = compareRuns(steady, same);
    const loud = compareRuns(same, slower);
    const verdict = summarizeAaCheck(
      [
        { run_id: 'run_b', comparison: quiet, regressions: regressionsBeyond(quiet, 10), note: null },
        { run_id: 'run_c', comparison: loud, regressions: regressionsBeyond(loud, 10), note: null },
      ],
      10,
      5,
    );
    expect(verdict).toMatchObject({ exitCode: 1, judged: 4, flagged: 1 });
    const lines = verdict.text.split('\n');
    expect(lines).toContain('pair  run             judged  flagged                share  --threshold 10  detects');
    // The smallest slow-down each pair tells from noise: here the 20% minimum effect (the intervals are narrower).
    expect(lines).toContain('1     run_b vs run_a  2       0 (0 better, 0 worse)  0.0%   exit 0          ≥20%');
    expect(lines).toContain('2     run_c vs run_b  2       1 (0 better, 1 worse)  50.0%  exit 1 (1)      ≥20%');
    expect(verdict.detectablePercent).toBe(20);
    expect(verdict.text).toMatch(/pair 2: worse publish_throughput \(10 threads · plain\) Throughput \(msg\/s\) −40\.0% \[/);
    expect(verdict.text).toContain('false alarms: 1 of 4 judged metrics (25.0%) over 2 pair(s); limit 5% per pair');
    expect(verdict.text).toContain('--threshold 10 would have failed 1 of 2 pair(s)');
    expect(verdict.text).toContain('verdict: 1 pair(s) failed the check');
  });

  it('says when its pairs are paired runs, and how small a slow-down they tell', () => {
    const paired = comparePaired(steady, same);
    const verdict = summarizeAaCheck([{ run_id: 'paired-1', comparison: paired, regressions: [], note: null }], 0, 5, 'paired');
    const lines = verdict.text.split('\n');
    expect(lines[0]).toBe('A/A check, paired: unchanged code against itself, both sides in turns in one run (bench ab . .)');
    // Four pairs after the warm-up of both metrics, within 2%: the paired minimum effect (throughput ±5%) is the smallest slow-down told.
    expect(lines).toContain('1     paired-1  2       0 (0 better, 0 worse)  0.0%   exit 0         ≥5%');
    expect(verdict).toMatchObject({ exitCode: 0, detectablePercent: 5 });
  });

  it('passes a machine whose pairs stay quiet', () => {
    const quiet = compareRuns(steady, same);
    const verdict = summarizeAaCheck([{ run_id: 'run_b', comparison: quiet, regressions: [], note: null }], 10, 5);
    expect(verdict.exitCode).toBe(0);
    expect(verdict.text).toContain('verdict: this machine is quiet enough to gate on --threshold 10');
    const nothing = summarizeAaCheck([{ run_id: 'run_b', comparison: null, regressions: [], note: 'No earlier run that passed' }], 10, 5);
    expect(nothing.exitCode).toBe(1);
    expect(nothing.text).toContain('pair 1: No earlier run that passed');
  });
});

describe('bench aa options', () => {
  it('runs into a folder of its own, never the reports folder, and at least twice', () => {
    const root = tempDir('aa');
    try {
      const options = resolveAaOptions({ runs: '3', output: root, testName: 'TestPublishThroughput' });
      expect(options).toMatchObject({ runs: 3, thresholdPercent: 10, maxFalseAlarmPercent: 5, folder: root });
      expect(options.run).toMatchObject({
        reportsDir: path.join(root, 'reports'),
        rawResultsDir: path.join(root, 'raw'),
        markerExpression: 'benchmark and not slow and not stress and not witness',
        testNameFilter: 'TestPublishThroughput',
        thresholdPercent: null,
      });
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
    expect(() => resolveAaOptions({ runs: '1', output: '/tmp/x' })).toThrow('--runs must be a whole number of runs, 2 or more; got "1"');
    // Paired: each run is a pair of its own.
    expect(resolveAaOptions({ paired: true, runs: '1', output: root })).toMatchObject({ paired: true, runs: 1 });
    expect(resolveAaOptions({ paired: true, output: root })).toMatchObject({ paired: true, runs: 3 });
    expect(() => resolveAaOptions({ paired: true, runs: '0', output: '/tmp/x' })).toThrow(
      '--runs must be a whole number of paired runs, 1 or more; got "0"',
    );
    expect(() => resolveAaOptions({ output: path.dirname(getConfig().reportsDir), threshold: 'x' })).toThrow(
      '--threshold must be a percentage of 0 or more (e.g. 10); got "x"',
    );
    expect(() => resolveAaOptions({ output: getConfig().reportsDir })).toThrow('-o/--output must be a folder of its own for the A/A runs');
  });
});
