import { backoffDelayMs } from '../../src/client/backoff';

describe('backoffDelayMs', () => {
  const options = { initialDelayMs: 10, maxDelayMs: 500, factor: 2, jitter: 0.2 };

  it('grows exponentially and caps at the maximum', () => {
    const noJitter = { ...options, jitter: 0 };
    expect([1, 2, 3, 4, 5, 6, 7, 8].map((attempt) => backoffDelayMs(noJitter, attempt))).toEqual([10, 20, 40, 80, 160, 320, 500, 500]);
  });

  it('spreads symmetrically by the jitter fraction', () => {
    expect(backoffDelayMs(options, 3, () => 0)).toBe(32);
    expect(backoffDelayMs(options, 3, () => 0.5)).toBe(40);
    expect(backoffDelayMs(options, 3, () => 1)).toBe(48);
  });
});
