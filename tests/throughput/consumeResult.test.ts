import { RAW_RESULT_SCHEMA_VERSION } from '../../src/results/rawResult';
import { resolveConsumeWorkload } from '../../src/throughput/consumePlan';
import type { ConsumeOverheadOutcome, ConsumePair } from '../../src/throughput/consumeOverhead';
import type { ConsumeWindow, DepthSummary } from '../../src/throughput/consumeRates';
import { consumeOverheadResult, isCleanPair, sustainedConsumeResult } from '../../src/throughput/consumeResult';
import type { ConsumeSessionReport } from '../../src/throughput/consumeSession';
import type { SustainedConsumeOutcome } from '../../src/throughput/sustainedConsume';
import { expectValid } from '../results/schemaValidator';

const depth = (minReady: number | null, maxReady = 60_000): DepthSummary =>
  minReady === null
    ? { samples: 0, minReady: null, maxReady: null, minConsumers: null, maxConsumers: null, ranDry: null }
    : { samples: 300, minReady, maxReady, minConsumers: 10, maxConsumers: 10, ranDry: minReady === 0 };

const window = (msgsPerSec: number, minReady: number | null = 40_000): ConsumeWindow => ({
  startedNs: 0n,
  endedNs: 3_000_000_000n,
  durationMs: 3000,
  delivered: msgsPerSec * 3,
  consumeRateMsgsPerSec: msgsPerSec,
  consumeRateMbPerSec: (msgsPerSec * 256) / 1e6,
  publishRateMsgsPerSec: msgsPerSec * 0.9,
  consumerCpuPercent: 40,
  cpuUsPerMessage: 400_000 / msgsPerSec,
  depth: depth(minReady),
});

const report: ConsumeSessionReport = {
  consumers: [{ thread: 0, consumers: 10, phases: 1, delivered: 150_000 }],
  producers: [
    { producer: 0, published: 16_000, flushed: true, pauses: 3 },
    { producer: 1, published: 15_875, flushed: true, pauses: 2 },
  ],
  // With the producers' 31,875, the 150,000 of the account.
  fill: { messages: 118_125, connections: 2, fillMs: 2500 },
  depthSamples: 1200,
  errors: [],
};

const sustained = (
  windows: ConsumeWindow[],
  account = { published: 150_000, delivered: 110_000, purged: 40_000, accountMs: 120 },
): SustainedConsumeOutcome => ({
  workload: resolveConsumeWorkload({ consumers: 10 }),
  phase: { phase: 1, startupMs: 12.5, windows, windowsEnded: 'max', account },
  report,
  queue: 'q',
  connectionPrefix: 'amqp-bench-consume-x',
});

const asRawResult = (draft: ReturnType<typeof sustainedConsumeResult>) => ({
  schema_version: RAW_RESULT_SCHEMA_VERSION,
  test_id: 'benchmarks/bench_throughput.bench.ts::TestConsumeThroughput::test_sustained_consume[10-256B]',
  timestamp: '2026-01-01T00:00:00.000Z',
  fingerprint: 'abcd',
  ...draft,
});

describe('sustainedConsumeResult', () => {
  it('says how its windows ended when their count may vary, and not otherwise', () => {
    const steady: SustainedConsumeOutcome = {
      ...sustained([window(40_000), window(40_500)]),
      workload: resolveConsumeWorkload({ consumers: 10, minRounds: 2 }),
      phase: { phase: 1, startupMs: 12.5, windows: [window(40_000), window(40_500)], windowsEnded: 'steady' },
    };
    const result = sustainedConsumeResult(steady);
    expectValid('raw-result.schema.json', asRawResult(result));
    expect(result.details?.windows_ended).toBe('steady');
    expect(result.parameters.rounds).toBe(3);
    expect(result.notes).toContain('windows: 2 to 3, ended early: the last 2 agreed within 5% (details.windows_ended)');
    const dry = sustainedConsumeResult({
      ...steady,
      phase: { ...steady.phase, windows: [window(40_000), window(52_000, 0)], windowsEnded: 'dry' },
    });
    expect(dry.details?.windows_ended).toBe('dry');
    expect(dry.notes).toContain(
      'windows: 2 to 3, ended early: the queue ran dry in a window, so the figure is producer-bound whatever followed (details.windows_ended)',
    );
    const fixed = sustainedConsumeResult(sustained([window(40_000), window(30_000), window(50_000)]));
    expect(fixed.details?.windows_ended).toBe('max');
    expect(fixed.notes?.some((note) => note.startsWith('windows:'))).toBe(false);
  });

  it('takes the median window, keeps every window as a sample, and records the settings as parameters', () => {
    const result = sustainedConsumeResult(sustained([window(40_000), window(30_000), window(50_000)]));
    expectValid('raw-result.schema.json', asRawResult(result));
    expect(result.name).toBe('sustained_consume');
    expect(result.parameters).toEqual({
      consumers: 10,
      prefetch: 100,
      ack: 'manual',
      message_size_bytes: 256,
      consumer_threads: 1,
      producer_threads: 2,
      window_ms: 3000,
      warmup_ms: 1000,
      rounds: 3,
    });
    expect(result.metrics.consume_throughput_msgs_per_sec).toEqual({ value: 40_000, unit: 'msg/s', direction: 'higher' });
    expect(result.metrics.consume_throughput_mb_per_sec?.value).toBe(10.24);
    expect(result.metrics.producer_rate_msgs_per_sec?.value).toBe(36_000);
    expect(result.samples?.consume_throughput_msgs_per_sec).toEqual([40_000, 30_000, 50_000]);
    expect(result.metrics.producer_bound_windows?.value).toBe(0);
    expect(result.metrics.consumer_cpu_percent).toEqual({ value: 40, unit: '%', direction: 'none' });
    expect(result.metrics.consumer_cpu_us_per_msg?.value).toBe(10);
    expect(result.metrics.queue_depth_min?.value).toBe(40_000);
    expect(result.metrics.queue_depth_max?.value).toBe(60_000);
    expect(result.details?.bound).toBe('consumers');
    expect(result.notes?.join('\n')).toMatch(/bound: clean — the queue never ran dry/);
  });

  it('accounts for every message published in the session', () => {
    const exact = sustainedConsumeResult(sustained([window(40_000)]));
    expect([exact.metrics.messages_consumed?.value, exact.metrics.messages_missing?.value, exact.metrics.messages_extra?.value]).toEqual([
      110_000, 0, 0,
    ]);
    expect(exact.details?.account).toEqual({ published: 150_000, delivered: 110_000, purged: 40_000, account_ms: 120 });
    expect(exact.details?.start_fill).toEqual({ messages: 118_125, connections: 2, fill_ms: 2500 });
    expect(exact.notes?.join('\n')).toMatch(
      /the queue was filled first with exactly 118125 messages .* on 2 harness connection\(s\), checked against the broker's ready count/,
    );
    // Counted or purged: a delivery the client kept to itself is neither.
    const lossy = sustainedConsumeResult(
      sustained([window(40_000)], { published: 150_000, delivered: 109_990, purged: 40_000, accountMs: 10_000 }),
    );
    expect(lossy.metrics.messages_missing?.value).toBe(10);
    const doubled = sustainedConsumeResult(
      sustained([window(40_000)], { published: 150_000, delivered: 110_004, purged: 40_000, accountMs: 170 }),
    );
    expect(doubled.metrics.messages_extra?.value).toBe(4);
  });

  it('says the figure is producer-bound when the queue ran dry in a window', () => {
    const result = sustainedConsumeResult(sustained([window(40_000), window(20_000, 0), window(41_000)]));
    expect(result.metrics.producer_bound_windows?.value).toBe(1);
    expect(result.details?.bound).toBe('producers');
    expect(result.notes?.join('\n')).toMatch(/PRODUCER-BOUND .* not a clean throughput/);
  });

  it('says nobody knows when a window had no depth sample', () => {
    const result = sustainedConsumeResult(sustained([window(40_000), window(40_000, null)]));
    expect(result.metrics.unchecked_windows?.value).toBe(1);
    expect(result.details?.bound).toBe('unknown');
  });

  it('refuses an outcome without a window', () => {
    expect(() => sustainedConsumeResult(sustained([]))).toThrow('sustained_consume needs at least one measured window');
  });
});

describe('consumeOverheadResult', () => {
  const pair = (first: 'harness' | 'bare', harness: number, bare: number, dry = false): ConsumePair => ({
    first,
    harness: window(harness, dry ? 0 : 40_000),
    bare: { consumeRateMsgsPerSec: bare, durationMs: 3000, delivered: bare * 3, cpuUsPerMessage: 8, depth: depth(40_000) },
  });
  const outcome = (pairs: ConsumePair[]): ConsumeOverheadOutcome => ({
    workload: resolveConsumeWorkload({ consumers: 10, rounds: 1 }),
    bareClient: 'amqplib',
    pairs,
    report,
  });

  it('takes the median of the paired ratios and records the 90% target', () => {
    const result = consumeOverheadResult(
      outcome([pair('harness', 45_000, 50_000), pair('bare', 40_000, 50_000), pair('harness', 50_000, 50_000)]),
    );
    expectValid('raw-result.schema.json', asRawResult(result));
    expect(result.name).toBe('consume_harness_overhead');
    expect(result.samples?.ratio_percent).toEqual([90, 80, 100]);
    expect(result.metrics.ratio_percent).toEqual({ value: 90, unit: '%', direction: 'higher' });
    expect(result.metrics.harness_msgs_per_sec?.value).toBe(45_000);
    expect(result.metrics.bare_msgs_per_sec?.value).toBe(50_000);
    // Judged on the pairs' interval: [80%, 100%] straddles 90%, so inconclusive, said with the interval.
    expect(result.targets).toEqual([
      {
        metric: 'ratio_percent',
        comparator: '>',
        threshold: 90,
        unit: '%',
        met: null,
        verdict: 'inconclusive',
        interval: { low: 80, high: 100, confidence: 0.75, n: 3 },
        reason: 'inconclusive: [80%, 100%] (3 repetitions, 75% interval of the median); its interval straddles the target',
      },
    ]);
    expect(result.parameters).toMatchObject({ consumers: 10, prefetch: 100, ack: 'manual', bare_client: 'amqplib', pairs: 3 });
    // CPU per message: harness 400000 / rate µs (8.889, 10, 8) against the bare side's 8.
    expect(result.samples?.cpu_efficiency_percent).toEqual([90, 80, 100]);
    expect(result.metrics.cpu_efficiency_percent).toEqual({ value: 90, unit: '%', direction: 'higher' });
    expect(result.metrics.harness_cpu_us_per_msg?.value).toBe(8.889);
    expect(result.metrics.bare_cpu_us_per_msg?.value).toBe(8);
  });

  it('leaves producer-bound pairs out of the ratio, and says so', () => {
    const result = consumeOverheadResult(outcome([pair('harness', 45_000, 50_000), pair('bare', 10_000, 50_000, true)]));
    expect(result.samples?.ratio_percent).toEqual([90]);
    expect(result.metrics.producer_bound_pairs?.value).toBe(1);
    expect(result.notes?.join('\n')).toMatch(/1 of 2 pairs left out of the ratio/);
  });

  it('uses every pair when none is clean, and says the ratio is producer-bound', () => {
    const result = consumeOverheadResult(outcome([pair('harness', 30_000, 40_000, true)]));
    expect(result.metrics.ratio_percent?.value).toBe(75);
    // One pair below the target: noise alone never makes a miss.
    expect(result.targets?.[0]).toMatchObject({ met: null, verdict: 'inconclusive' });
    expect(result.notes?.join('\n')).toMatch(/PRODUCER-BOUND: no pair was clean/);
  });

  it('calls a pair clean only when both windows were sampled and never found the queue empty', () => {
    expect(isCleanPair(pair('harness', 1, 1))).toBe(true);
    expect(isCleanPair(pair('harness', 1, 1, true))).toBe(false);
    expect(isCleanPair({ ...pair('bare', 1, 1), bare: { ...pair('bare', 1, 1).bare, depth: depth(null) } })).toBe(false);
  });

  it('refuses an outcome without a pair', () => {
    expect(() => consumeOverheadResult(outcome([]))).toThrow('consume_harness_overhead needs at least one pair of windows');
  });
});

describe('CPU figures where the platform cannot tell', () => {
  it('are null, not zero, and stay out of the medians', () => {
    const unknown = { ...window(40_000), consumerCpuPercent: null, cpuUsPerMessage: null };
    const result = sustainedConsumeResult(sustained([unknown, unknown]));
    expect(result.metrics.consumer_cpu_percent?.value).toBeNull();
    expect(result.metrics.consumer_cpu_us_per_msg?.value).toBeNull();
    expectValid('raw-result.schema.json', asRawResult(result));
  });
});
