import { createLatencyHistogram, decodeHistogram, encodeHistogram } from '../../src/measure/histogram';
import type { NonEmptyArray } from '../../src/measure/statistics';
import type { ResultDraft } from '../../src/results/rawResult';
import { combineReplicates, runReplicates } from '../../src/results/replicates';

const histogramOf = (valuesUs: number[]) => {
  const histogram = createLatencyHistogram();
  for (const value of valuesUs) histogram.recordValue(value);
  return encodeHistogram(histogram);
};

const draft = (rate: number, p99: number | null, errors: number, extra: Partial<ResultDraft> = {}): ResultDraft => ({
  name: 'publish_throughput',
  category: 'throughput',
  parameters: { threads: 10, mode: 'plain' },
  metrics: {
    throughput_msgs_per_sec: { value: rate, unit: 'msg/s', direction: 'higher' },
    publish_latency_p99_ms: { value: p99, unit: 'ms', direction: 'lower' },
    errors: { value: errors, unit: 'count', direction: 'lower' },
  },
  samples: { throughput_msgs_per_sec: [rate - 1, rate + 1] },
  histograms: { publish_latency: histogramOf([100, 200]) },
  targets: [{ metric: 'throughput_msgs_per_sec', comparator: '>', threshold: 1000, unit: 'msg/s', met: rate > 1000 }],
  notes: ['throughput: the median of 2 measured rounds'],
  details: { rounds: rate },
  ...extra,
});

const drafts = (...list: ResultDraft[]) => list as unknown as NonEmptyArray<ResultDraft>;

describe('combineReplicates', () => {
  it('takes the median of each metric, keeps every replicate, and totals the counts asked for', () => {
    const combined = combineReplicates(drafts(draft(900, 2, 0), draft(1300, 4, 1), draft(1100, 3, 0), draft(1000, 5, 0)), {
      totals: ['errors'],
    });
    expect(combined.metrics.throughput_msgs_per_sec).toEqual({ value: 1050, unit: 'msg/s', direction: 'higher' });
    expect(combined.metrics.publish_latency_p99_ms?.value).toBe(3.5);
    expect(combined.metrics.errors?.value).toBe(1);
    expect(combined.replicates).toEqual({
      throughput_msgs_per_sec: [900, 1300, 1100, 1000],
      publish_latency_p99_ms: [2, 4, 3, 5],
      errors: [0, 1, 0, 0],
    });
    // Samples: the spread within each replicate, concatenated in order (never tested).
    expect(combined.samples?.throughput_msgs_per_sec).toEqual([899, 901, 1299, 1301, 1099, 1101, 999, 1001]);
    // Histograms merged: every replicate's latencies.
    expect(combined.histograms?.publish_latency?.count).toBe(8);
    expect(decodeHistogram(combined.histograms!.publish_latency!).getValueAtPercentile(100)).toBeGreaterThanOrEqual(200);
    // The target is judged again on the replicates' interval (each replicate's own verdict differed): [900, 1300] straddles 1000.
    expect(combined.targets).toEqual([
      expect.objectContaining({ metric: 'throughput_msgs_per_sec', comparator: '>', threshold: 1000, met: null, verdict: 'inconclusive' }),
    ]);
    expect(combined.notes?.[0]).toMatch(/^value: the median of 4 replicates \(independent repetitions/);
    expect(combined.notes).toContain('errors: the total over the 4 replicates, not the median');
    expect(combined.notes).toContain('throughput: the median of 2 measured rounds');
    expect(combined.details).toEqual({ replicates: [{ rounds: 900 }, { rounds: 1300 }, { rounds: 1100 }, { rounds: 1000 }] });
    expect(combined.parameters).toEqual({ threads: 10, mode: 'plain' });
  });

  it('says when a replicate had no value, and never invents one', () => {
    const combined = combineReplicates(drafts(draft(900, null, 0), draft(1000, 4, 0), draft(1100, null, 0)));
    expect(combined.metrics.publish_latency_p99_ms?.value).toBe(4);
    expect(combined.replicates?.publish_latency_p99_ms).toEqual([4]);
    expect(combined.notes).toContain('publish_latency_p99_ms: 1 of 3 replicates had a value; the median is over those');
    const none = combineReplicates(drafts(draft(900, null, 0), draft(1000, null, 0)));
    expect(none.metrics.publish_latency_p99_ms?.value).toBeNull();
    expect(none.replicates?.publish_latency_p99_ms).toBeUndefined();
  });

  it('rounds combined values when asked (the suite rounds its figures)', () => {
    const combined = combineReplicates(drafts(draft(1000.4, 1, 0), draft(1001.4, 1, 0)), { round: Math.round });
    expect(combined.metrics.throughput_msgs_per_sec?.value).toBe(1001);
  });

  it('refuses drafts of different scenarios, or a metric that changes unit', () => {
    expect(() => combineReplicates(drafts(draft(1, 1, 0), draft(1, 1, 0, { parameters: { threads: 50, mode: 'plain' } })))).toThrow(
      'replicates must be of one scenario',
    );
    const otherUnit = draft(1, 1, 0);
    expect(() =>
      combineReplicates(
        drafts(draft(1, 1, 0), { ...otherUnit, metrics: { ...otherUnit.metrics, errors: { value: 0, unit: '%', direction: 'lower' } } }),
      ),
    ).toThrow('metric errors changes unit or direction between replicates (count/lower vs %/lower)');
  });
});

describe('runReplicates', () => {
  it('runs one replicate after the other, in order', async () => {
    const events: string[] = [];
    const outcomes = await runReplicates(3, async (replicate) => {
      events.push(`start ${replicate}`);
      await Promise.resolve();
      events.push(`end ${replicate}`);
      return replicate * 10;
    });
    expect(outcomes).toEqual([0, 10, 20]);
    expect(events).toEqual(['start 0', 'end 0', 'start 1', 'end 1', 'start 2', 'end 2']);
    await expect(runReplicates(0, async () => 1)).rejects.toThrow('replicates must be a whole number of at least 1; got 0');
  });
});
