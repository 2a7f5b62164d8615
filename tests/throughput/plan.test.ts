import { ConfigError } from '../../src/errors';
import { distributePublishers, resolvePublishWorkload, workloadLabel } from '../../src/throughput/plan';

describe('distributePublishers', () => {
  it('spreads publishers in contiguous blocks whose sizes differ by at most one', () => {
    expect(distributePublishers(10, 4)).toEqual([
      { worker: 0, firstPublisher: 0, publishers: 3 },
      { worker: 1, firstPublisher: 3, publishers: 3 },
      { worker: 2, firstPublisher: 6, publishers: 2 },
      { worker: 3, firstPublisher: 8, publishers: 2 },
    ]);
  });

  it('never makes an empty block: fewer publishers than workers means fewer blocks', () => {
    expect(distributePublishers(2, 4)).toEqual([
      { worker: 0, firstPublisher: 0, publishers: 1 },
      { worker: 1, firstPublisher: 1, publishers: 1 },
    ]);
    expect(distributePublishers(1, 1)).toEqual([{ worker: 0, firstPublisher: 0, publishers: 1 }]);
  });

  it.each([
    [100, 4],
    [300, 4],
    [900, 4],
    [7, 3],
    [5, 5],
  ])('covers every one of %i publishers exactly once over %i workers', (publishers, workers) => {
    const blocks = distributePublishers(publishers, workers);
    const covered = blocks.flatMap((block) => Array.from({ length: block.publishers }, (_, k) => block.firstPublisher + k));
    expect(covered).toEqual(Array.from({ length: publishers }, (_, k) => k));
    const sizes = blocks.map((block) => block.publishers);
    expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
    expect(blocks).toHaveLength(Math.min(publishers, workers));
  });

  it('rejects counts that are not whole numbers of at least 1', () => {
    expect(() => distributePublishers(0, 4)).toThrow('publishers must be a whole number of at least 1; got "0"');
    expect(() => distributePublishers(10, 1.5)).toThrow('workers must be a whole number of at least 1; got "1.5"');
  });
});

describe('resolvePublishWorkload', () => {
  it('fills the defaults and bounds the worker threads at four', () => {
    const workload = resolvePublishWorkload({ threads: 900, messagesPerThread: 10 });
    expect(workload).toMatchObject({
      threads: 900,
      messagesPerThread: 10,
      messageSizeBytes: 256,
      mode: 'plain',
      rounds: 5,
      warmupRounds: 1,
      workerThreads: 4,
      roundBoundMs: 60_000,
      publishBoundMs: 10_000,
      messagesPerRound: 9000,
    });
    expect(workload.assignments.map((block) => block.publishers)).toEqual([225, 225, 225, 225]);
    expect(Object.isFrozen(workload)).toBe(true);
  });

  it("runs the session's warm-up round full unless told, and never longer than a round", () => {
    expect(resolvePublishWorkload({ threads: 10, messagesPerThread: 100 }).sessionWarmupMessagesPerThread).toBe(100);
    expect(
      resolvePublishWorkload({ threads: 10, messagesPerThread: 100, sessionWarmupMessagesPerThread: 10 }).sessionWarmupMessagesPerThread,
    ).toBe(10);
    expect(
      resolvePublishWorkload({ threads: 10, messagesPerThread: 5, sessionWarmupMessagesPerThread: 10 }).sessionWarmupMessagesPerThread,
    ).toBe(5);
    expect(() => resolvePublishWorkload({ threads: 1, messagesPerThread: 5, sessionWarmupMessagesPerThread: 0 })).toThrow(
      'sessionWarmupMessagesPerThread must be',
    );
  });

  it('uses one worker thread per publisher below the bound, and honours a lower bound', () => {
    expect(resolvePublishWorkload({ threads: 2, messagesPerThread: 20 }).workerThreads).toBe(2);
    expect(resolvePublishWorkload({ threads: 10, messagesPerThread: 100, maxWorkerThreads: 1 }).workerThreads).toBe(1);
  });

  it('bounds one publish below the round: 10 s, or half a shorter round', () => {
    expect(resolvePublishWorkload({ threads: 1, messagesPerThread: 1, roundBoundMs: 8000 }).publishBoundMs).toBe(4000);
    expect(resolvePublishWorkload({ threads: 1, messagesPerThread: 1, roundBoundMs: 8000, publishBoundMs: 7000 }).publishBoundMs).toBe(
      7000,
    );
    expect(() => resolvePublishWorkload({ threads: 1, messagesPerThread: 1, roundBoundMs: 8000, publishBoundMs: 8000 })).toThrow(
      'publishBoundMs must be less than the round bound (8000 ms); got "8000"',
    );
  });

  it('names the bad field and what it expects', () => {
    expect(() => resolvePublishWorkload({ threads: -1, messagesPerThread: 10 })).toThrow(ConfigError);
    expect(() => resolvePublishWorkload({ threads: 10, messagesPerThread: 0 })).toThrow(
      'messagesPerThread must be a whole number of at least 1; got "0"',
    );
    expect(() => resolvePublishWorkload({ threads: 10, messagesPerThread: 10, messageSizeBytes: -1 })).toThrow(
      'messageSizeBytes must be a whole number of at least 0; got "-1"',
    );
    expect(() => resolvePublishWorkload({ threads: 10, messagesPerThread: 10, mode: 'fast' as never })).toThrow(
      'mode must be one of plain, confirm; got "fast"',
    );
    expect(() => resolvePublishWorkload({ threads: 10, messagesPerThread: 10, rounds: 0 })).toThrow(
      'rounds must be a whole number of at least 1; got "0"',
    );
    expect(() => resolvePublishWorkload({ threads: 10, messagesPerThread: 10, warmupRounds: -1 })).toThrow(
      'warmupRounds must be a whole number of at least 0; got "-1"',
    );
  });
});

describe('workloadLabel', () => {
  it('labels a configuration as in the test ids', () => {
    expect(workloadLabel({ threads: 10, messagesPerThread: 100, messageSizeBytes: 256, mode: 'plain' })).toBe('10x100-256B-plain');
    expect(workloadLabel({ threads: 900, messagesPerThread: 10, messageSizeBytes: 4096, mode: 'confirm' })).toBe('900x10-4KiB-confirm');
    expect(workloadLabel({ threads: 1, messagesPerThread: 1, messageSizeBytes: 1000, mode: 'plain' })).toBe('1x1-1000B-plain');
  });
});
