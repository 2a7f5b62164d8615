import { resolveWorkloadOptions } from '../../src/realistic/options';
import { accountMetrics, latencyHistograms, roundSamples, throughputMetrics } from '../../src/realistic/resultMetrics';
import { aggregateRounds, workloadFigures } from '../../src/realistic/summary';
import { producerSlices } from '../../src/realistic/workload';
import { syntheticOutcome as outcome } from './fixtures';

describe('workloadFigures', () => {
  it('times a round from the first producer start to the last producer end / last delivery', () => {
    const figures = workloadFigures(outcome());
    const measured = figures.rounds[1]!;
    expect(measured.produceSpanMs).toBe(100);
    expect(measured.produceRateMsgsPerSec).toBe(1000);
    expect(measured.drainMs).toBe(200);
    expect(measured.consumeRateMsgsPerSec).toBe(500);
    expect(measured.drainAfterPublishMs).toBe(100);
    expect(measured.latency.count).toBe(4);
    expect(measured.latency.p50).toBeCloseTo(10, 1);
    expect(measured.latency.max).toBeCloseTo(30, 1);
    expect(measured.scheduleLatency.count).toBe(1);
  });

  it('leaves warm-up rounds out of rates and latency, but not out of the accounting', () => {
    const figures = workloadFigures(outcome());
    expect(figures.measuredMessages).toBe(100);
    expect(figures.produceRateMsgsPerSec).toBe(1000);
    expect(figures.latency.count).toBe(4);
    expect(figures.account).toMatchObject({ published: 110, deliveredUnique: 110, lost: 0, baseline: 'published' });
  });

  it('aggregates rounds as messages over summed spans', () => {
    const figures = workloadFigures(outcome());
    const both = aggregateRounds(figures.rounds);
    // 110 messages over 5 ms + 100 ms of publishing.
    expect(both.produceRateMsgsPerSec).toBeCloseTo((110 / 105) * 1000, 6);
    expect(aggregateRounds([]).produceRateMsgsPerSec).toBeNull();
  });

  it('turns figures into metrics with units, samples and encoded histograms', () => {
    const figures = workloadFigures(outcome());
    const metrics = throughputMetrics(figures);
    expect(metrics.produce_throughput_msgs_per_sec).toEqual({ value: 1000, unit: 'msg/s', direction: 'higher' });
    expect(metrics.e2e_latency_p99_ms?.unit).toBe('ms');
    expect(metrics.e2e_latency_from_schedule_p50_ms?.value).toBeCloseTo(40, 0);
    expect(accountMetrics(figures.account).message_loss_percent).toEqual({ value: 0, unit: '%', direction: 'lower' });
    expect(roundSamples(figures.rounds).drain_ms).toEqual([200]);
    expect(Object.keys(latencyHistograms(figures, 'x_'))).toEqual(['x_e2e_latency', 'x_e2e_latency_from_schedule']);
  });
});

describe('producerSlices', () => {
  it('gives every producer a disjoint share of every round and a share of its pace', () => {
    const options = resolveWorkloadOptions({
      directUrl: 'amqp://x',
      consumers: 1,
      rounds: [{ messages: 5 }, { messages: 4, ratePerSecond: 100 }],
    });
    expect(producerSlices(options.rounds, 2)).toEqual([
      [
        { round: 0, start: 0, count: 3, ratePerSecond: null },
        { round: 1, start: 5, count: 2, ratePerSecond: 50 },
      ],
      [
        { round: 0, start: 3, count: 2, ratePerSecond: null },
        { round: 1, start: 7, count: 2, ratePerSecond: 50 },
      ],
    ]);
  });
});
