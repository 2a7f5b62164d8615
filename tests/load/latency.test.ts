/** Percentile reporting on recorded samples: known samples give known p50, p90, p99, p99.9, p99.99 and max. */
import { latencyFiguresMs } from '../../src/load/latency';
import { LoadRecorder } from '../../src/load/recorder';
import { createLatencyHistogram, percentileMs, recordLatencyNs } from '../../src/measure/histogram';

describe('latency figures', () => {
  test('100 samples of 10, 20, ... 1000 µs', () => {
    const histogram = createLatencyHistogram();
    for (let index = 1; index <= 100; index += 1) recordLatencyNs(histogram, BigInt(index * 10_000));
    expect(latencyFiguresMs(histogram)).toEqual({ count: 100, p50: 0.5, p90: 0.9, p99: 0.99, p99_9: 1, p99_99: 1, max: 1 });
  });

  test('one slow message in 10,000 shows at p99.99 and max only', () => {
    const histogram = createLatencyHistogram();
    for (let index = 0; index < 9999; index += 1) recordLatencyNs(histogram, 1_000_000n);
    recordLatencyNs(histogram, 200_000_000n);
    const figures = latencyFiguresMs(histogram);
    expect([figures.p50, figures.p90, figures.p99, figures.p99_9]).toEqual([1, 1, 1, 1]);
    expect(figures.p99_99).toBe(1);
    expect(figures.max).toBeCloseTo(200, 0);
  });

  test('an empty histogram has no figures, never zeros', () => {
    expect(latencyFiguresMs(createLatencyHistogram())).toEqual({
      count: 0,
      p50: null,
      p90: null,
      p99: null,
      p99_9: null,
      p99_99: null,
      max: null,
    });
    expect(percentileMs(createLatencyHistogram(), 99)).toBeNull();
  });

  test('the recorder times from the intended send time and leaves the warm-up out of the run figures', () => {
    const recorder = new LoadRecorder(0n, 1_000_000_000n);
    recorder.sent(500_000_000n, 500_100_000n); // warm-up
    recorder.sent(2_000_000_000n, 2_000_300_000n);
    recorder.consumed(0, 500_000_000n, 501_000_000n);
    recorder.consumed(1, 2_000_000_000n, 2_250_000_000n);
    recorder.consumed(1, 2_000_000_000n, 2_260_000_000n); // a redelivery
    expect(recorder.publishedMeasured).toBe(1);
    expect(latencyFiguresMs(recorder.scheduleLag)).toMatchObject({ count: 1, max: 0.3 });
    const endToEnd = latencyFiguresMs(recorder.endToEndLatency);
    expect(endToEnd.count).toBe(1);
    // HDR keeps 3 significant digits: within 0.1%.
    expect(Math.abs(endToEnd.p50! - 250) / 250).toBeLessThan(0.001);
    expect(recorder.totals).toMatchObject({ published: 2, consumed: 3, duplicates: 1, consumedInWarmup: 1 });
    expect(recorder.consumedUnique).toBe(2);
  });

  test('a confirmed message never consumed counts as lost', () => {
    const recorder = new LoadRecorder(0n, 0n);
    recorder.confirmed(0, 0n, 1n);
    recorder.confirmed(70_000, 0n, 1n);
    recorder.consumed(0, 0n, 1n);
    expect(recorder.lostConfirmed()).toBe(1);
  });
});
