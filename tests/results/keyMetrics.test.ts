import { extractKeyMetrics, isCleanConsume } from '../../src/results/keyMetrics';
import type { Metric, RawResult } from '../../src/results/rawResult';
import { consumersResult, rawResult } from './helpers';

const metric = (value: number, unit: string, direction: Metric['direction']): Metric => ({ value, unit, direction });

function sustainedResult(consumers: number, rate: number, producerBoundWindows = 0, uncheckedWindows = 0): RawResult {
  return rawResult({
    name: 'sustained_consume',
    category: 'throughput',
    parameters: { consumers, message_size_bytes: 256, prefetch: 100 },
    metrics: {
      consume_throughput_msgs_per_sec: metric(rate, 'msg/s', 'higher'),
      producer_bound_windows: metric(producerBoundWindows, 'count', 'lower'),
      unchecked_windows: metric(uncheckedWindows, 'count', 'lower'),
    },
  });
}

describe('peak consume throughput', () => {
  it('comes from the sustained test, never from the massive-consumer rounds', () => {
    const metrics = extractKeyMetrics([consumersResult(100, 1000, 90_000), sustainedResult(1, 30_000), sustainedResult(10, 42_000)]);
    expect(metrics.filter((keyMetric) => keyMetric.id === 'peak_consume_throughput')).toMatchObject([
      { result_name: 'sustained_consume', value: 42_000, parameters: { consumers: 10 } },
    ]);
  });

  it('leaves out producer-bound and unchecked figures: they are not a throughput', () => {
    const metrics = extractKeyMetrics([sustainedResult(1, 30_000), sustainedResult(10, 50_000, 1), sustainedResult(100, 60_000, 0, 2)]);
    expect(metrics.filter((keyMetric) => keyMetric.id === 'peak_consume_throughput').map((keyMetric) => keyMetric.value)).toEqual([30_000]);
    expect(extractKeyMetrics([sustainedResult(10, 50_000, 1)]).some((keyMetric) => keyMetric.id === 'peak_consume_throughput')).toBe(false);
  });

  it('calls a result clean only when it says so with both counts', () => {
    expect(isCleanConsume(sustainedResult(1, 1))).toBe(true);
    expect(isCleanConsume(consumersResult(100, 1000, 1))).toBe(false);
  });
});
