import * as hdr from 'hdr-histogram-js';
import {
  compareEnvironments,
  compareRuns,
  countVerdicts,
  regressionsBeyond,
  resultKey,
  type ComparableRun,
} from '../../src/results/compare';
import { histogramCandidates, samplesForMetric } from '../../src/results/samples';
import { environment, publishResult, rawResult, recoveryResult } from './helpers';

const runOf = (
  runId: string,
  results: ComparableRun['results'],
  env: Record<string, unknown> = environment() as unknown as Record<string, unknown>,
): ComparableRun => ({
  run_id: runId,
  started_at: '2025-01-31T12:00:00.000Z',
  environment: env,
  results,
});

const metricOf = (comparison: ReturnType<typeof compareRuns>, key: string, metric: string) =>
  comparison.matched.find((result) => result.key === key)!.metrics.find((m) => m.metric === metric)!;

describe('compareRuns', () => {
  const before = runOf('run_a', [
    rawResult({
      name: 'publish_throughput',
      parameters: { threads: 10, mode: 'plain' },
      metrics: {
        throughput_msgs_per_sec: { value: 3, unit: 'msg/s', direction: 'higher' },
        publish_latency_p99_ms: { value: 3, unit: 'ms', direction: 'lower' },
      },
      samples: { throughput_msgs_per_sec: [1, 2, 3, 4, 5], publish_latency_p99_ms: [1, 2, 3, 4, 5] },
    }),
  ]);
  const after = (rates: number[], latencies: number[]) =>
    runOf('run_b', [
      rawResult({
        name: 'publish_throughput',
        // Same parameters in another order: still the same result.
        parameters: { mode: 'plain', threads: 10 },
        metrics: {
          throughput_msgs_per_sec: { value: rates[2]!, unit: 'msg/s', direction: 'higher' },
          publish_latency_p99_ms: { value: latencies[2]!, unit: 'ms', direction: 'lower' },
        },
        samples: { throughput_msgs_per_sec: rates, publish_latency_p99_ms: latencies },
      }),
    ]);
  const key = 'publish_throughput{mode=plain, threads=10}';

  it('matches results by name and parameters, and knows which way is better', () => {
    // [1..5] vs [6..10]: exact two-sided p = 0.0079 (scipy), significant at 0.05.
    const comparison = compareRuns(before, after([6, 7, 8, 9, 10], [6, 7, 8, 9, 10]));
    const rate = metricOf(comparison, key, 'throughput_msgs_per_sec');
    expect(rate).toMatchObject({ previous: 3, current: 8, verdict: 'better', test: 'exact', n_previous: 5, n_current: 5 });
    expect(rate.delta_percent).toBeCloseTo(166.667, 3);
    expect(rate.p_value).toBeCloseTo(0.007936507936507936, 12);
    // Latency went up by as much: that is worse.
    expect(metricOf(comparison, key, 'publish_latency_p99_ms').verdict).toBe('worse');
    expect(countVerdicts(comparison)).toEqual({ better: 1, worse: 1, same: 0, unknown: 0 });
  });

  it('says ~ (same) when the change is within the noise', () => {
    const comparison = compareRuns(before, after([1.5, 2.5, 3.5, 4.5, 5.5], [2, 3, 4, 5, 6]));
    const rate = metricOf(comparison, key, 'throughput_msgs_per_sec');
    expect(rate.verdict).toBe('same');
    expect(rate.p_value).toBeGreaterThan(0.05);
    expect(rate.delta_percent).toBeCloseTo(16.667, 3);
  });

  it('shows a change without samples but does not judge it', () => {
    const old = runOf('run_a', [
      rawResult({
        name: 'x',
        metrics: { m_ms: { value: 10, unit: 'ms', direction: 'lower' }, n: { value: 5, unit: 'count', direction: 'none' } },
      }),
    ]);
    const now = runOf('run_b', [
      rawResult({
        name: 'x',
        metrics: { m_ms: { value: 12, unit: 'ms', direction: 'lower' }, n: { value: 6, unit: 'count', direction: 'none' } },
      }),
    ]);
    const comparison = compareRuns(old, now);
    expect(metricOf(comparison, 'x{}', 'm_ms')).toMatchObject({ delta_percent: 20, p_value: null, verdict: 'unknown' });
    expect(metricOf(comparison, 'x{}', 'n').verdict).toBe('n/a');
  });

  it('lists results only one run has', () => {
    const comparison = compareRuns(
      runOf('a', [rawResult({ name: 'gone' }), rawResult({ name: 'both' })]),
      runOf('b', [rawResult({ name: 'both' }), rawResult({ name: 'new', parameters: { threads: 50 } })]),
    );
    expect(comparison.added).toEqual(['new{threads=50}']);
    expect(comparison.removed).toEqual(['gone{}']);
    expect(comparison.matched.map((result) => result.key)).toEqual(['both{}']);
  });

  it('fails the threshold only on a significant regression beyond it', () => {
    // Throughput down 90% with p = 0.0079: beyond 10%, not beyond 95%.
    const worse = compareRuns(before, after([0.1, 0.2, 0.3, 0.4, 0.5], [1, 2, 3, 4, 5]));
    expect(regressionsBeyond(worse, 10).map((regression) => [regression.result, regression.metric.metric])).toEqual([
      [key, 'throughput_msgs_per_sec'],
    ]);
    expect(regressionsBeyond(worse, 95)).toEqual([]);
    // A regression without significance never fails it.
    const noisy = compareRuns(before, after([1, 2, 2.5, 3, 4], [1, 2, 3, 4, 5]));
    expect(regressionsBeyond(noisy, 1)).toEqual([]);
  });

  it('compares real-shaped recovery results on their per-thread samples', () => {
    const old = runOf('a', [recoveryResult('recovery_after_reset_peer', 10, 'manual', 2, 400)]);
    const now = runOf('b', [recoveryResult('recovery_after_reset_peer', 10, 'manual', 4, 400)]);
    const p50 = metricOf(
      compareRuns(old, now),
      resultKey({ name: 'recovery_after_reset_peer', parameters: { threads: 10, mode: 'manual' } }),
      'detection_latency_p50_ms',
    );
    // Both samples above 8: the normal approximation, as scipy chooses.
    expect(p50).toMatchObject({ verdict: 'worse', n_previous: 10, n_current: 10, test: 'asymptotic' });
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

describe('samples behind a metric', () => {
  it('finds samples under the metric name or its stem', () => {
    expect(histogramCandidates('publish_latency_p99_ms')).toEqual(['publish_latency_p99_ms', 'publish_latency_ms', 'publish_latency']);
    expect(samplesForMetric({ samples: { thread_detection_ms: [1, 2] } }, 'thread_detection_p95_ms')).toEqual({
      values: [1, 2],
      source: 'samples:thread_detection_ms',
    });
    expect(samplesForMetric({ samples: { other: [1] } }, 'thread_detection_p95_ms')).toBeUndefined();
  });

  it('recomputes values from an encoded HDR histogram', () => {
    const histogram = hdr.build({ numberOfSignificantValueDigits: 3, useWebAssembly: false });
    for (const value of [100, 100, 250, 1000]) histogram.recordValue(value);
    const encoded = { encoded: hdr.encodeIntoCompressedBase64(histogram), unit: 'us', count: 4 };
    const found = samplesForMetric({ histograms: { publish_latency: encoded } }, 'publish_latency_p50_ms');
    expect(found?.source).toBe('histogram:publish_latency');
    expect(found?.values.map(Math.round)).toEqual([100, 100, 250, 1000]);

    const publishOld = publishResult(10, 'plain', 1000);
    const withHistogram = (values: number[]) => {
      const h = hdr.build({ numberOfSignificantValueDigits: 3, useWebAssembly: false });
      values.forEach((value) => h.recordValue(value));
      return {
        ...publishOld,
        histograms: { publish_latency: { encoded: hdr.encodeIntoCompressedBase64(h), unit: 'us', count: values.length } },
      };
    };
    const slow = Array.from({ length: 50 }, (_, i) => 2000 + i * 10);
    const fast = Array.from({ length: 50 }, (_, i) => 1000 + i * 10);
    // The comparison does not treat a histogram's per-message values as replicates.
    const comparison = compareRuns(runOf('a', [withHistogram(fast)]), runOf('b', [withHistogram(slow)]));
    const p99 = comparison.matched[0]!.metrics.find((metric) => metric.metric === 'publish_latency_p99_ms')!;
    expect(p99).toMatchObject({ p_value: null, test: null });
    expect(
      samplesForMetric({ histograms: { publish_latency: encoded } }, 'publish_latency_p50_ms', undefined, { includeHistograms: false }),
    ).toBeUndefined();
  });
});
