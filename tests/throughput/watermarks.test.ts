import {
  estimateDepth,
  nextProducerState,
  PHASE_NET_DRAIN_MSGS_PER_SEC,
  START_MARGIN,
  startDepthFor,
  watermarksFor,
  type ProducerState,
  type Watermarks,
} from '../../src/throughput/watermarks';

describe('watermarks', () => {
  it('keep about 128 MiB of ready messages at the high mark, within 2000..200000, the low mark at 90% of it', () => {
    expect(watermarksFor(10, 100, 256)).toEqual({ lowMessages: 180_000, highMessages: 200_000 });
    expect(watermarksFor(1, 100, 4096)).toEqual({ lowMessages: 29_491, highMessages: 32_768 });
    expect(watermarksFor(1, 1, 1024 * 1024)).toEqual({ lowMessages: 1800, highMessages: 2000 });
    expect(watermarksFor(1, 1, 0)).toEqual({ lowMessages: 180_000, highMessages: 200_000 });
  });

  it('never put the high mark below two prefetch windows per consumer (a phase start takes one each at once)', () => {
    expect(watermarksFor(100, 200, 4096)).toEqual({ lowMessages: 36_000, highMessages: 40_000 });
  });
});

describe('the depth a first phase starts at', () => {
  const marks: Watermarks = { lowMessages: 180_000, highMessages: 200_000 };

  it('is what the phase (its windows, warm-up and start-up) drains at the fastest pace seen, times the margin', () => {
    // 10 s of warm-up and windows, 0.5 s of start-up.
    expect(startDepthFor(marks, 10, 100, 10_000)).toBe(Math.ceil(START_MARGIN * PHASE_NET_DRAIN_MSGS_PER_SEC * 10.5));
    expect(startDepthFor(marks, 10, 100, 10_000)).toBeLessThan(marks.lowMessages);
  });

  it('is never above the low mark, nor below two prefetch windows per consumer', () => {
    expect(startDepthFor(marks, 10, 100, 600_000)).toBe(180_000);
    expect(startDepthFor({ lowMessages: 100_000, highMessages: 200_000 }, 100, 400, 0)).toBe(80_000);
  });
});

describe('the producers depth estimate', () => {
  it('is the last sample plus everything published since it was asked for', () => {
    expect(estimateDepth(1000, 5000, 5600)).toBe(1600);
  });

  it('never counts a negative number of messages since the sample', () => {
    expect(estimateDepth(1000, 5000, 4900)).toBe(1000);
  });

  it('is everything published before the first sample', () => {
    expect(estimateDepth(0, 0, 700)).toBe(700);
  });
});

describe('the producers hysteresis', () => {
  const marks: Watermarks = { lowMessages: 100, highMessages: 200 };
  const walk = (depths: readonly number[]): ProducerState[] => {
    let state: ProducerState = 'filling';
    return depths.map((depth) => (state = nextProducerState(state, depth, marks)));
  };

  it('fills up to the high mark, pauses until the low mark, then fills again', () => {
    expect(walk([0, 150, 199, 200, 180, 101, 100, 150, 250])).toEqual([
      'filling',
      'filling',
      'filling',
      'paused',
      'paused',
      'paused',
      'filling',
      'filling',
      'paused',
    ]);
  });

  it('pauses at once above the high mark and resumes at once below the low one', () => {
    expect(nextProducerState('filling', 10_000, marks)).toBe('paused');
    expect(nextProducerState('paused', 0, marks)).toBe('filling');
  });
});
