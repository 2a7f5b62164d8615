import {
  erfc,
  isNonEmpty,
  mannWhitneyU,
  median,
  normalSurvival,
  quantile,
  sortSamples,
  rankWithTies,
  type NonEmptyArray,
} from '../../src/measure/statistics';

const seq = (n: number, step: number, offset: number): NonEmptyArray<number> =>
  Array.from({ length: n }, (_, i) => i * step + offset) as unknown as NonEmptyArray<number>;

// Reference values: scipy 1.17 `scipy.stats.mannwhitneyu(x, y)` (two-sided, method='auto',
// use_continuity=True), printed with repr() by hand.
describe('mannWhitneyU matches scipy.stats.mannwhitneyu', () => {
  it.each<[string, NonEmptyArray<number>, NonEmptyArray<number>, number, number, 'exact' | 'asymptotic']>([
    ['fully separated, exact', [1, 2, 3, 4, 5], [6, 7, 8, 9, 10], 0, 0.007936507936507936, 'exact'],
    ['mixed, exact', [19, 22, 16, 29, 24], [20, 11, 17, 12], 17, 0.1111111111111111, 'exact'],
    [
      'ties, normal approximation with tie correction',
      [1, 2, 2, 3, 4, 5, 6, 7, 8, 9],
      [3, 4, 5, 5, 6, 10, 11, 12, 13, 14, 15],
      24.5,
      0.03417126108245327,
      'asymptotic',
    ],
    ['both samples above 8, normal approximation', seq(12, 1.1, 0), seq(15, 1.1, 3.05), 45, 0.02990263602980263, 'asymptotic'],
    ['one sample of 3 against 20, exact', [0.5, 7.5, 3.2], seq(20, 0.7, 0), 17, 0.2676453980801807, 'exact'],
    ['everything tied: no evidence', [5, 5, 5], [5, 5, 5, 5], 6, 1, 'asymptotic'],
    // The largest exact case a comparison meets (8 replicates against a 700-sample history): exact, not approximated.
    ['8 against 700, exact', seq(8, 1.7, 0.3), seq(700, 0.013, 2.1), 2626, 0.7671651318410131, 'exact'],
  ])('%s', (_, x, y, u1, pValue, method) => {
    const result = mannWhitneyU(x, y);
    expect(result.u1).toBe(u1);
    expect(result.pValue).toBeCloseTo(pValue, 12);
    expect(result.method).toBe(method);
    expect([result.n1, result.n2]).toEqual([x.length, y.length]);
  });

  it('is symmetric: swapping the samples changes U1 to n1*n2-U1, not p', () => {
    const a = mannWhitneyU([19, 22, 16, 29, 24], [20, 11, 17, 12]);
    const b = mannWhitneyU([20, 11, 17, 12], [19, 22, 16, 29, 24]);
    expect(b.u1).toBe(20 - a.u1);
    expect(b.pValue).toBeCloseTo(a.pValue, 15);
  });

  it('never gives p below 0.05 with 3 samples a side (the exact minimum is 0.1)', () => {
    expect(mannWhitneyU([1, 2, 3], [4, 5, 6]).pValue).toBeCloseTo(0.1, 12);
  });

  it('refuses non-finite samples with a message naming the value', () => {
    expect(() => mannWhitneyU([1, Number.NaN], [2])).toThrow('Mann-Whitney U needs finite numbers; got NaN');
  });
});

describe('rankWithTies', () => {
  it('gives ties the average of their ranks (scipy rankdata "average")', () => {
    expect(rankWithTies([10, 20, 20, 5, 20])).toEqual({ ranks: [2, 4, 4, 1, 4], tieGroupSizes: [1, 1, 3] });
  });
});

describe('normal distribution', () => {
  // scipy.special.erfc
  it.each([
    [0.5, 0.4795001221869535],
    [3.5, 7.430983723414129e-7],
    [-1, 1.8427007929497148],
    [10, 2.0884875837625446e-45],
  ])('erfc(%p)', (x, expected) => {
    expect(erfc(x) / expected).toBeCloseTo(1, 12);
  });

  it('normalSurvival(1.959963984540054) is 0.025', () => {
    expect(normalSurvival(1.959963984540054)).toBeCloseTo(0.025, 14);
  });
});

describe('quantiles (numpy linear interpolation)', () => {
  it('interpolates between order statistics', () => {
    expect(quantile(sortSamples([1, 2, 3, 4])!, 0.5)).toBe(2.5);
    expect(quantile(sortSamples([4, 1, 3, 2])!, 0.95)).toBeCloseTo(3.85, 12);
    expect(median([7])).toBe(7);
  });

  it('sorts once, keeps the ends at q = 0 and q = 1', () => {
    const sorted = sortSamples([4, 1, 3, 2])!;
    expect([...sorted]).toEqual([1, 2, 3, 4]);
    expect(quantile(sorted, 0)).toBe(1);
    expect(quantile(sorted, 1)).toBe(4);
    expect(quantile(sortSamples([7])!, 0.95)).toBe(7);
  });

  it('has no samples to give when nothing finite was recorded', () => {
    expect(sortSamples([null, undefined, Number.NaN])).toBeNull();
  });

  it('rejects q outside [0, 1] and narrows empty arrays away', () => {
    expect(() => quantile(sortSamples([1])!, 1.5)).toThrow('quantile q must be within [0, 1]; got 1.5');
    expect(isNonEmpty([])).toBe(false);
  });
});
