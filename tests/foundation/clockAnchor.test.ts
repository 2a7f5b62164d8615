import { clockAnchor, epochSecondsOf } from '../../src/measure/clock';

describe('clockAnchor', () => {
  it('pairs the monotonic clock with the wall clock at a millisecond tick', () => {
    const before = Date.now();
    const anchor = clockAnchor();
    expect(anchor.epochMs).toBeGreaterThan(before);
    expect(anchor.epochMs).toBeLessThanOrEqual(Date.now());
    expect(typeof anchor.monotonicNs).toBe('bigint');
  });

  it('turns a monotonic reading into epoch seconds', () => {
    const anchor = { monotonicNs: 5_000_000_000n, epochMs: 1_700_000_000_000 };
    expect(epochSecondsOf(anchor, 5_002_500_000n)).toBeCloseTo(1_700_000_000.0025, 6);
    expect(epochSecondsOf(anchor, 4_999_000_000n)).toBeCloseTo(1_699_999_999.999, 6);
  });
});
