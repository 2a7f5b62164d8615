import * as hdr from 'hdr-histogram-js';
import { noiseBandPercent } from '../../src/measure/predictionInterval';
import type { NonEmptyArray } from '../../src/measure/statistics';
import { compareEnvironments, compareRuns, resultKey, type ComparableRun } from '../../src/results/compare';
import { countVerdicts, regressionsBeyond } from '../../src/results/gate';
import { minimumEffectsFrom } from '../../src/minimumEffects';
import { environment, publishResult, rawResult, recoveryResult } from './helpers';

const runOf = (runId: string, results: ComparableRun['results'], env: Record<string, unknown> = environment()): ComparableRun => ({
  run_id: runId,
  started_at: '2025-01-31T12:00:00.000Z',
  environment: env,
  results,
});

const metricOf = (comparison: ReturnType<typeof compareRuns>, key: string, metric: string) =>
  comparison.matched.find((result) => result.key === key)!.metrics.find((m) => m.metric === metric)!;

/** A throughput-like result with replicates (and samples that must never be tested). */
const replicated = (rates: number[], latencies: number[], extra: Partial<Parameters<typeof rawResult>[0]> = {}) =>
  rawResult({
    name: 'publish_throughput',
    parameters: { threads: 10, mode: 'plain' },
    metrics: {
      throughput_msgs_per_sec: { value: median(rates), unit: 'msg/s', direction: 'higher' },
      publish_latency_p99_ms: { value: median(latencies), unit: 'ms', direction: 'lower' },
      errors: { value: 0, unit: 'count', direction: 'lower' },
      messages_total: { value: 5000, unit: 'count', direction: 'none' },
    },
    replicates: { throughput_msgs_per_sec: rates, publish_latency_p99_ms: latencies, errors: rates.map(() => 0) },
    ...extra,
  });

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

const key = 'publish_throughput{mode=plain, threads=10}';

describe('compareRuns: replicates', () => {
  const before = runOf('run_a', [replicated([1, 2, 3, 4, 5], [1, 2, 3, 4, 5])]);

  it('tests the replicates (Mann-Whitney), gives the Hodges-Lehmann change with its interval, and judges', () => {
    // [6..10] vs [1..5]: exact two-sided p = 0.0079 (scipy). The change is the Hodges-Lehmann shift of the
    // logarithms (R, exact, on log values): ratio 8/3 (+166.7%) [3rd smallest 1.5, 3rd largest 8] at 96.8%.
    const comparison = compareRuns(before, runOf('run_b', [replicated([6, 7, 8, 9, 10], [6, 7, 8, 9, 10])]));
    const rate = metricOf(comparison, key, 'throughput_msgs_per_sec');
    expect(rate).toMatchObject({
      previous: 3,
      current: 8,
      family: 'throughput',
      baseline: { kind: 'replicates', run_id: 'run_a', n: 5, center: 3 },
      n_current: 5,
      test: 'mann-whitney-exact',
      verdict: 'better',
      minimum_effect: { percent: 20, source: 'config' },
    });
    expect(rate.p_value).toBeCloseTo(0.007936507936507936, 12);
    expect(rate.change).toMatchObject({ method: 'hodges-lehmann-exact', scale: 'ratio' });
    expect(rate.change!.estimate_percent).toBeCloseTo(166.667, 3);
    expect(rate.change!.low_percent).toBeCloseTo(50, 10);
    expect(rate.change!.high_percent).toBeCloseTo(700, 10);
    // In the metric's unit: the ratio applied to the baseline's median (3).
    expect([rate.change!.estimate, rate.change!.low, rate.change!.high]).toEqual([
      expect.closeTo(5, 10),
      expect.closeTo(1.5, 10),
      expect.closeTo(21, 10),
    ]);
    expect(rate.change!.confidence).toBeCloseTo(0.9682539682539683, 14);
    // Latency went up by as much: worse. Errors all 0 on both sides: ~, and left out of the correction.
    expect(metricOf(comparison, key, 'publish_latency_p99_ms').verdict).toBe('worse');
    expect(metricOf(comparison, key, 'errors')).toMatchObject({ verdict: 'same', q_value: null, p_value: 1 });
    expect(metricOf(comparison, key, 'messages_total').verdict).toBe('n/a');
    // Two judged metrics: BH q = p * 2 / 2 for both.
    expect(rate.q_value).toBeCloseTo(0.007936507936507936, 12);
    expect(countVerdicts(comparison)).toEqual({ better: 1, worse: 1, same: 1, unknown: 0, judged: 2 });
  });

  it('calls a significant change smaller than the minimum effect ~ and says why', () => {
    const steady = runOf('a', [replicated([100, 101, 102, 103, 104], [1, 2, 3, 4, 5])]);
    const comparison = compareRuns(steady, runOf('b', [replicated([105, 106, 107, 108, 109], [1, 2, 3, 4, 5])]));
    const rate = metricOf(comparison, key, 'throughput_msgs_per_sec');
    expect(rate.p_value).toBeCloseTo(0.007936507936507936, 12);
    expect(rate.verdict).toBe('same');
    expect(rate.reason).toMatch(/^significant \(q = 0\.016\) but within the minimum effect of ±20% \(config\)$/);
    // A tighter minimum effect makes it a change.
    const strict = compareRuns(steady, runOf('b', [replicated([105, 106, 107, 108, 109], [1, 2, 3, 4, 5])]), {
      minimumEffects: minimumEffectsFrom({ throughput: { relative_percent: 3 } }),
    });
    expect(metricOf(strict, key, 'throughput_msgs_per_sec').verdict).toBe('better');
  });

  it('says ~ when the replicates overlap (not significant after correction)', () => {
    const comparison = compareRuns(before, runOf('b', [replicated([1.5, 2.5, 3.5, 4.5, 5.5], [1, 2, 3, 4, 5])]));
    const rate = metricOf(comparison, key, 'throughput_msgs_per_sec');
    expect(rate.verdict).toBe('same');
    expect(rate.reason).toMatch(/^not significant after correction \(q = /);
  });

  it('never tests per-thread or per-round samples: without replicates and history, a metric is not judged', () => {
    const withSamples = (values: number[]) =>
      rawResult({
        name: 'x',
        metrics: { m_ms: { value: median(values), unit: 'ms', direction: 'lower' } },
        samples: { m_ms: values },
      });
    const comparison = compareRuns(
      runOf('a', [withSamples(Array.from({ length: 50 }, (_, i) => 10 + i / 100))]),
      runOf('b', [withSamples(Array.from({ length: 50 }, (_, i) => 12 + i / 100))]),
    );
    expect(metricOf(comparison, 'x{}', 'm_ms')).toMatchObject({ verdict: 'unknown', p_value: null, test: null, change: null });
    expect(metricOf(comparison, 'x{}', 'm_ms').reason).toBe(
      "not judged: no replicates on either side, and 0 earlier run(s) of the baseline's build (5 needed)",
    );
    expect(comparison.correction.judged).toBe(0);
  });

  it('corrects every judged metric together (Benjamini-Hochberg) and the gate counts only judged regressions', () => {
    // Throughput down 35% (p = 0.0079), latency noisy (p large): q of the throughput = 0.0079 * 2 / 1.
    const worse = compareRuns(
      runOf('a', [replicated([100, 101, 102, 103, 104], [1, 3, 2, 5, 4])]),
      runOf('b', [replicated([65, 66, 67, 68, 69], [2, 1, 4, 3, 5])]),
    );
    const rate = metricOf(worse, key, 'throughput_msgs_per_sec');
    expect(rate.q_value).toBeCloseTo(2 * 0.007936507936507936, 12);
    expect(rate.verdict).toBe('worse');
    expect(regressionsBeyond(worse, 10).map((regression) => [regression.result, regression.metric.metric])).toEqual([
      [key, 'throughput_msgs_per_sec'],
    ]);
    expect(regressionsBeyond(worse, 40)).toEqual([]);
    // Better is never a regression, whatever the threshold.
    const better = compareRuns(
      runOf('a', [replicated([65, 66, 67, 68, 69], [1, 2, 3, 4, 5])]),
      runOf('b', [replicated([100, 101, 102, 103, 104], [1, 2, 3, 4, 5])]),
    );
    expect(regressionsBeyond(better, 0)).toEqual([]);
  });

  it('learns the minimum effect from the history of the baseline build (its 95% noise band)', () => {
    const history = [98, 102, 100, 104].map((value, index) => ({
      run_id: `run_h${index}`,
      results: [replicated([value, value, value], [1, 2, 3])],
    }));
    const comparison = compareRuns(
      runOf('run_h3', [replicated([103, 104, 105, 104, 103], [1, 2, 3, 4, 5])]),
      runOf('b', [replicated([88, 89, 90, 91, 92], [1, 2, 3, 4, 5])]),
      { history },
    );
    const rate = metricOf(comparison, key, 'throughput_msgs_per_sec');
    // Values 98, 102, 100, 104: band 9.096% of the mean (see the prediction test); -14% is beyond it.
    expect(rate.minimum_effect).toMatchObject({ source: 'history', runs: 4 });
    expect(rate.minimum_effect!.percent).toBeCloseTo(noiseBandPercent([98, 102, 100, 104] as unknown as NonEmptyArray<number>)!, 12);
    expect(rate.verdict).toBe('worse');
    expect(comparison.history_run_ids).toEqual(['run_h0', 'run_h1', 'run_h2', 'run_h3']);
  });
});

describe('compareRuns: history baseline (no replicates)', () => {
  const valuesOnly = (value: number) =>
    rawResult({
      name: 'recovery_after_reset_peer',
      category: 'recovery',
      parameters: { threads: 10 },
      metrics: { full_recovery_latency_ms: { value, unit: 'ms', direction: 'lower' } },
    });
  const recoveryKey = 'recovery_after_reset_peer{threads=10}';
  const history = [100, 104, 98, 102, 101].map((value, index) => ({ run_id: `run_${index}`, results: [valuesOnly(value)] }));

  it("tests this run's value against the earlier runs of the baseline build (t prediction test)", () => {
    const comparison = compareRuns(runOf('run_4', [valuesOnly(101)]), runOf('now', [valuesOnly(130)]), { history });
    const metric = metricOf(comparison, recoveryKey, 'full_recovery_latency_ms');
    // scipy: t = (130 - 101) / (s * sqrt(1 + 1/5)) = 11.839, 2 * t.sf(11.839, 4) = 0.000291395575221882.
    expect(metric).toMatchObject({
      test: 'history-t',
      family: 'recovery',
      baseline: { kind: 'history', n: 5, center: 101 },
      verdict: 'worse',
    });
    expect(metric.p_value).toBeCloseTo(0.000291395575221882, 14);
    expect(metric.change).toMatchObject({ estimate: 29, method: 'prediction-t' });
    expect(metric.change!.estimate_percent).toBeCloseTo(28.713, 3);
    // The minimum effect learned from the same runs: t(0.975, 4) * sqrt(1.2) * s / mean = 6.73%.
    expect(metric.minimum_effect).toMatchObject({ source: 'history', runs: 5, absolute: 1 });
    expect(metric.minimum_effect!.percent).toBeCloseTo(6.733538422358968, 11);
    const steady = compareRuns(runOf('run_4', [valuesOnly(101)]), runOf('now', [valuesOnly(103)]), { history });
    expect(metricOf(steady, recoveryKey, 'full_recovery_latency_ms').verdict).toBe('same');
  });

  it('needs five earlier runs before it judges (a latency of one run has heavy tails)', () => {
    const comparison = compareRuns(runOf('run_4', [valuesOnly(101)]), runOf('now', [valuesOnly(300)]), { history: history.slice(1) });
    expect(metricOf(comparison, recoveryKey, 'full_recovery_latency_ms')).toMatchObject({ verdict: 'unknown', test: null });
  });

  it('describes a change from zero in the unit (a count has no percentage) and the gate always counts it', () => {
    const counts = (value: number) =>
      rawResult({
        name: 'c',
        metrics: { errors: { value, unit: 'count', direction: 'lower' } },
        replicates: { errors: [value, value, value, value, value + 1] },
      });
    const comparison = compareRuns(runOf('a', [counts(0)]), runOf('b', [counts(3)]));
    const errors = metricOf(comparison, 'c{}', 'errors');
    expect(errors.change!.estimate_percent).toBeNull();
    expect(errors.verdict).toBe('worse');
    expect(regressionsBeyond(comparison, 1000).map((regression) => regression.metric.metric)).toEqual(['errors']);
  });
});

describe('compareRuns: matching', () => {
  it('lists results only one run has', () => {
    const comparison = compareRuns(
      runOf('a', [rawResult({ name: 'gone' }), rawResult({ name: 'both' })]),
      runOf('b', [rawResult({ name: 'both' }), rawResult({ name: 'new', parameters: { threads: 50 } })]),
    );
    expect(comparison.added).toEqual(['new{threads=50}']);
    expect(comparison.removed).toEqual(['gone{}']);
    expect(comparison.matched.map((result) => result.key)).toEqual(['both{}']);
  });

  it('matches results by name and parameters in any order', () => {
    expect(resultKey({ name: 'r', parameters: { mode: 'manual', threads: 10 } })).toBe(
      resultKey({ name: 'r', parameters: { threads: 10, mode: 'manual' } }),
    );
    const old = runOf('a', [recoveryResult('recovery_after_reset_peer', 10, 'manual', 2, 400)]);
    const now = runOf('b', [recoveryResult('recovery_after_reset_peer', 10, 'manual', 4, 400)]);
    const p50 = metricOf(
      compareRuns(old, now),
      resultKey({ name: 'recovery_after_reset_peer', parameters: { threads: 10, mode: 'manual' } }),
      'detection_latency_p50_ms',
    );
    // Per-thread samples only: shown with the change, not judged (they share one run's conditions).
    expect(p50).toMatchObject({ verdict: 'unknown', previous: 2.8, current: 5.6 });
    expect(p50.delta_percent).toBeCloseTo(100, 10);
  });
});

describe('environment differences', () => {
  it('lists each differing field with both values, ignoring capture time', () => {
    const previous = environment() as unknown as Record<string, unknown>;
    const current = environment({
      node_version: 'v22.1.0',
      fingerprint: '99999999',
      captured_at: '2030-01-01T00:00:00.000Z',
    }) as unknown as Record<string, unknown>;
    expect(compareEnvironments(previous, current)).toEqual([
      { field: 'node_version', previous: 'v20.20.2', current: 'v22.1.0' },
      { field: 'fingerprint', previous: 'abcd1234', current: '99999999' },
    ]);
    const comparison = compareRuns(runOf('a', [], previous), runOf('b', [], current));
    expect(comparison.same_fingerprint).toBe(false);
  });

  it('compares only the fields both sides recorded (a history entry keeps fewer)', () => {
    expect(
      compareEnvironments({ fingerprint: 'abcd1234', node_version: 'v20' }, environment() as unknown as Record<string, unknown>),
    ).toEqual([{ field: 'node_version', previous: 'v20', current: 'v20.20.2' }]);
  });
});

describe('samples are never replicates', () => {
  it("ignores a histogram's per-message values and a result's per-round samples", () => {
    const withHistogram = (values: number[]) => {
      const h = hdr.build({ numberOfSignificantValueDigits: 3, useWebAssembly: false });
      values.forEach((value) => h.recordValue(value));
      return {
        ...publishResult(10, 'plain', 1000),
        replicates: undefined,
        histograms: { publish_latency: { encoded: hdr.encodeIntoCompressedBase64(h), unit: 'us', count: values.length } },
      };
    };
    const slow = Array.from({ length: 50 }, (_, i) => 2000 + i * 10);
    const fast = Array.from({ length: 50 }, (_, i) => 1000 + i * 10);
    const comparison = compareRuns(runOf('a', [withHistogram(fast)]), runOf('b', [withHistogram(slow)]));
    for (const metric of ['publish_latency_p99_ms', 'throughput_msgs_per_sec'])
      expect(comparison.matched[0]!.metrics.find((each) => each.metric === metric)).toMatchObject({
        p_value: null,
        test: null,
        verdict: 'unknown',
      });
  });
});
