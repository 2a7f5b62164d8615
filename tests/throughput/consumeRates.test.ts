import { ConsumeBoard, ConsumeControl } from '../../src/throughput/consumeBoard';
import { parseStatCpuMs } from '../../src/measure/threadCpu';
import { boundOf, consumeWindow, cpuFigures, depthDuring, isSteady, type DepthSample } from '../../src/throughput/consumeRates';

const ms = (value: number): bigint => BigInt(value) * 1_000_000n;
const sample = (atMs: number, ready: number, consumers = 1): DepthSample => ({ atNs: ms(atMs), ready, consumers });

describe('a consume window', () => {
  it('is the consumers rate between the readings at its edges, and the producers rate beside it', () => {
    const window = consumeWindow(
      { atNs: ms(1000), delivered: 5000, published: 9000 },
      { atNs: ms(3000), delivered: 105_000, published: 99_000 },
      256,
      [],
    );
    expect(window).toMatchObject({
      startedNs: ms(1000),
      endedNs: ms(3000),
      durationMs: 2000,
      delivered: 100_000,
      consumeRateMsgsPerSec: 50_000,
      consumeRateMbPerSec: 12.8,
      publishRateMsgsPerSec: 45_000,
    });
  });

  it('says nothing about the queue without a sample inside it', () => {
    const window = consumeWindow({ atNs: ms(0), delivered: 0, published: 0 }, { atNs: ms(10), delivered: 1, published: 1 }, 1, [
      sample(20, 0),
    ]);
    expect(window.depth).toEqual({ samples: 0, minReady: null, maxReady: null, minConsumers: null, maxConsumers: null, ranDry: null });
  });

  it('refuses counters that went backwards and a window without duration', () => {
    expect(() => consumeWindow({ atNs: ms(0), delivered: 5, published: 0 }, { atNs: ms(10), delivered: 4, published: 0 }, 1, [])).toThrow(
      'counters went backwards',
    );
    expect(() => consumeWindow({ atNs: ms(5), delivered: 0, published: 0 }, { atNs: ms(5), delivered: 0, published: 0 }, 1, [])).toThrow(
      'a rate needs a positive duration',
    );
  });
});

describe('the queue during a window', () => {
  const samples = [sample(0, 0), sample(10, 500, 10), sample(20, 200, 10), sample(30, 900, 9), sample(40, 0)];

  it('takes the samples inside the window, edges included', () => {
    expect(depthDuring(samples, ms(10), ms(30))).toEqual({
      samples: 3,
      minReady: 200,
      maxReady: 900,
      minConsumers: 9,
      maxConsumers: 10,
      ranDry: false,
    });
  });

  it('ran dry when a sample inside it found no ready message', () => {
    expect(depthDuring(samples, ms(20), ms(40)).ranDry).toBe(true);
  });
});

describe('what bounds a set of windows', () => {
  const window = (ranDry: boolean | null) => ({
    depth: { samples: 1, minReady: 0, maxReady: 0, minConsumers: 1, maxConsumers: 1, ranDry },
  });

  it('is the consumers when the queue never ran dry, the producers when it did once', () => {
    expect(boundOf([window(false), window(false)])).toBe('consumers');
    expect(boundOf([window(false), window(true), window(null)])).toBe('producers');
  });

  it('is unknown when a window had no sample', () => {
    expect(boundOf([window(false), window(null)])).toBe('unknown');
  });
});

describe('the consume board', () => {
  it('sums the delivery and publish counters of every thread, read at one moment', () => {
    const board = new ConsumeBoard({ consumerThreads: 2, producerThreads: 2 });
    board.countDelivered(0, 3);
    board.countDelivered(1);
    board.countPublished(1, 10);
    const reading = board.read();
    expect({ delivered: reading.delivered, published: reading.published }).toEqual({ delivered: 4, published: 10 });
    expect(reading.atNs).toBeGreaterThan(0n);
    expect([board.deliveredBy(0), board.deliveredBy(1), board.publishedBy(0), board.publishedBy(1)]).toEqual([3, 1, 0, 10]);
  });

  it('is shared with a view built on the same buffer (what a worker thread gets)', () => {
    const board = new ConsumeBoard({ consumerThreads: 1, producerThreads: 1 });
    const view = new ConsumeBoard(board.layout, board.buffer);
    view.countDelivered(0, 7);
    view.raise(ConsumeControl.PHASE, 2);
    expect(board.delivered()).toBe(7);
    expect(board.flag(ConsumeControl.PHASE)).toBe(2);
  });

  it('gives the producers the last depth sample plus what was published since it was asked for', () => {
    const board = new ConsumeBoard({ consumerThreads: 1, producerThreads: 1 });
    board.countPublished(0, 1000);
    expect(board.estimatedDepth()).toBe(1000);
    board.writeDepth(400, 900);
    board.countPublished(0, 50);
    expect(board.estimatedDepth()).toBe(550);
    expect(board.flag(ConsumeControl.DEPTH_SAMPLES)).toBe(1);
  });

  it('counts the start fill as published, in the total and in the depth estimate of the producers', () => {
    const board = new ConsumeBoard({ consumerThreads: 1, producerThreads: 2 });
    board.countFilled(1000);
    board.countFilled(500);
    board.countPublished(1, 20);
    expect([board.published(), board.read().published, board.publishedBy(0), board.publishedBy(1)]).toEqual([1520, 1520, 0, 20]);
    expect(board.flag(ConsumeControl.FILL_PUBLISHED)).toBe(1500);
    // A sample asked for after the fill: only what the producers published since counts on top of it.
    board.writeDepth(1490, 1510);
    expect(board.estimatedDepth()).toBe(1500);
  });

  it('refuses a thread it has no counter for, and a buffer of the wrong size', () => {
    const board = new ConsumeBoard({ consumerThreads: 1, producerThreads: 1 });
    expect(() => board.countDelivered(1)).toThrow('no consumer thread 1 on a board of 1');
    expect(() => board.countPublished(-1)).toThrow('no producer thread -1 on a board of 1');
    expect(() => new ConsumeBoard({ consumerThreads: 2, producerThreads: 1 }, board.buffer)).toThrow('board buffer has');
    expect(() => new ConsumeBoard({ consumerThreads: 0, producerThreads: 1 })).toThrow('consumerThreads must be a positive integer; got 0');
  });
});

describe('consumer CPU in a window', () => {
  it('is the share of one core and the CPU time per message between two readings', () => {
    expect(cpuFigures(1000, 1600, 3000, 60_000)).toEqual({ consumerCpuPercent: 20, cpuUsPerMessage: 10 });
    const window = consumeWindow(
      { atNs: ms(0), delivered: 0, published: 0, consumerCpuMs: 500 },
      { atNs: ms(2000), delivered: 1000, published: 0, consumerCpuMs: 2500 },
      256,
      [],
    );
    expect([window.consumerCpuPercent, window.cpuUsPerMessage]).toEqual([100, 2000]);
  });

  it('is unknown when a reading is, and per message when nothing was delivered', () => {
    expect(cpuFigures(null, 1600, 3000, 10)).toEqual({ consumerCpuPercent: null, cpuUsPerMessage: null });
    expect(cpuFigures(undefined, undefined, 3000, 10)).toEqual({ consumerCpuPercent: null, cpuUsPerMessage: null });
    expect(cpuFigures(1000, 1300, 3000, 0)).toEqual({ consumerCpuPercent: 10, cpuUsPerMessage: null });
  });

  it('reads user + system ticks from a /proc stat line, whatever the thread is called', () => {
    expect(parseStatCpuMs('42 (node) S 1 2 3 4 5 6 7 8 9 10 150 30 0 0')).toBe(1800);
    expect(parseStatCpuMs('42 (a ) b) S 1 2 3 4 5 6 7 8 9 10 7 3 0 0')).toBe(100);
    expect(parseStatCpuMs('not a stat line')).toBeNull();
  });
});

describe('a steady rate (ending the windows early)', () => {
  it('is the last `count` rates agreeing within the percentage of their median', () => {
    expect(isSteady([20_000, 25_000, 25_500], 2, 5)).toBe(true);
    expect(isSteady([25_000, 25_500, 20_000], 2, 5)).toBe(false);
    // 1000 apart on a median of 20500: 4.9%; 1100 on 20550: 5.4%.
    expect(isSteady([20_000, 21_000], 2, 5)).toBe(true);
    expect(isSteady([20_000, 21_100], 2, 5)).toBe(false);
  });

  it('needs `count` rates at least', () => {
    expect(isSteady([20_000], 2, 5)).toBe(false);
    expect(isSteady([], 1, 5)).toBe(false);
    expect(isSteady([20_000], 0, 5)).toBe(false);
  });
});
