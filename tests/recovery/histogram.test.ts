import {
  createLatencyHistogram,
  decodeHistogram,
  encodeHistogram,
  mergeHistograms,
  recordLatencyNs,
  summarizeMs,
} from '../../src/measure/histogram';

describe('latency histograms', () => {
  it('records nanosecond latencies as microseconds and summarises in ms', () => {
    const histogram = createLatencyHistogram();
    for (let ms = 1; ms <= 100; ms += 1) recordLatencyNs(histogram, BigInt(ms) * 1_000_000n);
    const summary = summarizeMs(histogram);
    expect(summary.count).toBe(100);
    expect(summary.p50).toBeCloseTo(50, 0);
    expect(summary.p99).toBeCloseTo(99, 0);
    expect(summary.max).toBeCloseTo(100, 0);
  });

  it('survives encoding and merges parts from several workers', () => {
    const a = createLatencyHistogram();
    const b = createLatencyHistogram();
    recordLatencyNs(a, 1_000_000n);
    recordLatencyNs(b, 9_000_000n);
    const merged = mergeHistograms([encodeHistogram(a), encodeHistogram(b).encoded]);
    expect(merged.totalCount).toBe(2);
    expect(summarizeMs(merged).max).toBeCloseTo(9, 1);
    expect(decodeHistogram(encodeHistogram(merged)).totalCount).toBe(2);
  });

  it('reports nulls, not zeros, for no samples', () => {
    expect(summarizeMs(createLatencyHistogram())).toEqual({ count: 0, p50: null, p95: null, p99: null, max: null, mean: null });
  });
});
