import { quantile, sortSamples } from '../../src/measure/percentiles';

describe('quantile', () => {
  it('interpolates between closest ranks like numpy', () => {
    const sorted = sortSamples([4, 1, 3, 2])!;
    expect([...sorted]).toEqual([1, 2, 3, 4]);
    expect(quantile(sorted, 0.5)).toBe(2.5);
    expect(quantile(sorted, 0.95)).toBeCloseTo(3.85, 10);
    expect(quantile(sorted, 0)).toBe(1);
    expect(quantile(sorted, 1)).toBe(4);
  });

  it('has no samples to give when nothing finite was recorded', () => {
    expect(sortSamples([null, undefined, Number.NaN])).toBeNull();
    expect(quantile(sortSamples([7])!, 0.95)).toBe(7);
  });
});
