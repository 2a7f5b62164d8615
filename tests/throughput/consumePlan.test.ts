import { ConfigError } from '../../src/errors';
import {
  CONSUME_WORKLOAD_DEFAULTS,
  consumeLabel,
  consumerThreadsFor,
  resolveConsumeWorkload,
  spreadNote,
} from '../../src/throughput/consumePlan';
import { startDepthFor } from '../../src/throughput/watermarks';

describe('a sustained consume workload', () => {
  it('fills in the defaults: prefetch 100, one consumer thread, two producers, 3 windows of 3 s after 1 s of warm-up', () => {
    const workload = resolveConsumeWorkload({ consumers: 10 });
    expect(workload).toEqual({
      consumers: 10,
      messageSizeBytes: 256,
      prefetch: 100,
      consumerThreads: 1,
      producerThreads: 2,
      rounds: 3,
      minRounds: 3,
      steadyWithinPercent: 5,
      windowMs: 3000,
      warmupMs: 1000,
      watermarks: { lowMessages: 180_000, highMessages: 200_000 },
      startMessages: startDepthFor({ lowMessages: 180_000, highMessages: 200_000 }, 10, 100, 10_000),
      depthSamplingMs: 10,
      consumersPerThread: [10],
      maxQueueLength: 800_000,
    });
    expect(CONSUME_WORKLOAD_DEFAULTS.windowMs).toBeGreaterThanOrEqual(3000);
    expect(Object.isFrozen(workload)).toBe(true);
  });

  it('spreads consumers over the consumer threads evenly, larger blocks first', () => {
    expect(resolveConsumeWorkload({ consumers: 10, consumerThreads: 4 }).consumersPerThread).toEqual([3, 3, 2, 2]);
  });

  it('starts the first phase at what it can drain, never above the low mark, or at the depth given to it', () => {
    expect(resolveConsumeWorkload({ consumers: 10 }).startMessages).toBeLessThan(180_000);
    expect(resolveConsumeWorkload({ consumers: 1, watermarks: { lowMessages: 10, highMessages: 20 } }).startMessages).toBe(10);
    expect(resolveConsumeWorkload({ consumers: 1, startMessages: 5000 }).startMessages).toBe(5000);
    expect(() => resolveConsumeWorkload({ consumers: 1, watermarks: { lowMessages: 10, highMessages: 20 }, startMessages: 11 })).toThrow(
      new ConfigError('startMessages', 'at most watermarks.lowMessages (10)', '11'),
    );
  });

  it('takes watermarks given to it', () => {
    const workload = resolveConsumeWorkload({ consumers: 1, watermarks: { lowMessages: 10, highMessages: 20 } });
    expect(workload.watermarks).toEqual({ lowMessages: 10, highMessages: 20 });
    expect(workload.maxQueueLength).toBe(10_000);
  });

  it.each([
    [{ consumers: 0 }, 'consumers must be a whole number of at least 1; got "0"'],
    [{ consumers: 2, consumerThreads: 3 }, 'consumerThreads must be at most the number of consumers (2); got "3"'],
    [{ consumers: 1, prefetch: 0 }, 'prefetch must be a whole number of at least 1; got "0"'],
    [{ consumers: 1, windowMs: 2.5 }, 'windowMs must be a whole number of at least 1; got "2.5"'],
    [{ consumers: 1, warmupMs: -1 }, 'warmupMs must be a whole number of at least 0; got "-1"'],
    [{ consumers: 1, rounds: 3, minRounds: 4 }, 'minRounds must be at most rounds (3); got "4"'],
    [{ consumers: 1, minRounds: 0 }, 'minRounds must be a whole number of at least 1; got "0"'],
    [{ consumers: 1, steadyWithinPercent: -1 }, 'steadyWithinPercent must be a percentage of at least 0; got "-1"'],
    [
      { consumers: 1, watermarks: { lowMessages: 10, highMessages: 10 } },
      'watermarks.highMessages must be a whole number above lowMessages (10); got "10"',
    ],
  ])('refuses %j', (input, message) => {
    expect(() => resolveConsumeWorkload(input)).toThrow(ConfigError);
    expect(() => resolveConsumeWorkload(input)).toThrow(message);
  });

  it('is labelled by consumers and message size', () => {
    expect(consumeLabel({ consumers: 10, messageSizeBytes: 256 })).toBe('10-256B');
    expect(consumeLabel({ consumers: 100, messageSizeBytes: 4096 })).toBe('100-4KiB');
  });
});

describe('consumerThreadsFor', () => {
  it('gives a library with one subscription per queue per connection one connection a consumer, and leaves others as the row names', () => {
    expect(consumerThreadsFor(10, 1, 'one')).toBe(10);
    expect(consumerThreadsFor(1, 1, 'one')).toBe(1);
    expect(consumerThreadsFor(10, 1, 'many')).toBe(1);
    expect(consumerThreadsFor(100, 2)).toBe(2);
    // The spread workload is a valid one: as many threads as consumers.
    expect(resolveConsumeWorkload({ consumers: 10, consumerThreads: consumerThreadsFor(10, 1, 'one') }).consumersPerThread).toEqual(
      Array(10).fill(1),
    );
  });

  it('says in the result why the row ran on more connections than it names', () => {
    expect(spreadNote('foo-foo-mq', 10, 1)).toMatch(
      /^foo-foo-mq keeps one subscription per queue per connection .*10 consumers on 1 connection\(s\).*10 worker threads/,
    );
  });
});
