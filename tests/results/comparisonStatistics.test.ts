/**
 * The statistics behind the comparison, pinned to reference implementations' published values:
 * scipy 1.17.1 (`scipy.stats.t`, `scipy.stats.norm`, `scipy.stats.false_discovery_control`, which
 * documents agreement with R's `p.adjust(p, "BH")`), the example of Benjamini & Hochberg (1995),
 * R's `wilcox.test(conf.int = TRUE)` as published by the PHUSE CAMIS project, and a brute-force
 * enumeration of the rank-sum distribution (itertools, by hand) for the exact intervals.
 */
import { logGamma, normalQuantile, regularizedIncompleteBeta, studentTQuantile, studentTSurvival } from '../../src/measure/distributions';
import { hodgesLehmannShift } from '../../src/measure/hodgesLehmann';
import { benjaminiHochberg } from '../../src/measure/multipleTesting';
import { mean, noiseBandPercent, predictionTest, standardDeviation } from '../../src/measure/predictionInterval';
import { exactUCounts, mannWhitneyU, type NonEmptyArray } from '../../src/measure/statistics';

const sample = (...values: number[]) => values as unknown as NonEmptyArray<number>;

describe("Student's t and the normal quantile match scipy.stats", () => {
  it.each([
    [2, 1, 0.14758361765043326],
    [2, 2, 0.09175170953613698],
    [1.5, 4, 0.104],
    [3, 9, 0.007478181955207111],
    [0.5, 3, 0.3257239824240755],
    [10, 5, 8.547378787148181e-5],
    [40, 2, 0.0003122073360923703],
  ])('t.sf(%p, df=%p) = %p', (t, df, expected) => {
    expect(studentTSurvival(t, df) / expected).toBeCloseTo(1, 12);
    // Symmetry: the lower tail of -t.
    expect(studentTSurvival(-t, df)).toBeCloseTo(1 - expected, 14);
  });

  it.each([
    [0.975, 1, 12.706204736174694],
    [0.975, 2, 4.302652729749462],
    [0.975, 3, 3.1824463052837078],
    [0.975, 4, 2.7764451051977934],
    [0.975, 9, 2.262157162798205],
    [0.995, 4, 4.604094871349992],
    [0.9, 30, 1.3104150253913955],
    [0.975, 100, 1.9839715185235518],
  ])('t.ppf(%p, df=%p) = %p', (p, df, expected) => {
    expect(studentTQuantile(p, df)).toBeCloseTo(expected, 11);
    expect(studentTQuantile(1 - p, df)).toBeCloseTo(-expected, 11);
  });

  it.each([
    [0.975, 1.959963984540054],
    [0.995, 2.5758293035489004],
    [0.5, 0],
    [0.001, -3.090232306167813],
    [1e-10, -6.361340902404056],
    [0.8, 0.8416212335729143],
  ])('norm.ppf(%p) = %p', (p, expected) => {
    expect(normalQuantile(p)).toBeCloseTo(expected, 12);
  });

  it('has exact small cases and says what it needs', () => {
    expect(Math.exp(logGamma(5))).toBeCloseTo(24, 10);
    expect(Math.exp(logGamma(0.5))).toBeCloseTo(Math.sqrt(Math.PI), 13);
    // I_x(1, 1) = x; I_x(a, 1) = x^a.
    expect(regularizedIncompleteBeta(0.3, 1, 1)).toBeCloseTo(0.3, 14);
    expect(regularizedIncompleteBeta(0.5, 3, 1)).toBeCloseTo(0.125, 14);
    // t with 1 df is Cauchy: P(T >= 1) = 1/4.
    expect(studentTSurvival(1, 1)).toBeCloseTo(0.25, 14);
    expect(() => studentTQuantile(1, 3)).toThrow('studentTQuantile needs p strictly between 0 and 1; got 1');
    expect(() => studentTSurvival(1, 0)).toThrow("Student's t needs degrees of freedom > 0; got 0");
  });
});

describe('Benjamini–Hochberg matches R p.adjust(p, "BH") (via scipy false_discovery_control)', () => {
  it('reproduces the 1995 paper: 15 p-values, 4 discoveries at q = 0.05', () => {
    const paper = [0.0001, 0.0004, 0.0019, 0.0095, 0.0201, 0.0278, 0.0298, 0.0344, 0.0459, 0.324, 0.4262, 0.5719, 0.6528, 0.759, 1];
    const adjusted = benjaminiHochberg(paper);
    const expected = [
      0.0015, 0.003, 0.0095, 0.035625, 0.0603, 0.06385714285714286, 0.06385714285714286, 0.0645, 0.07650000000000001, 0.486,
      0.5811818181818181, 0.7148749999999999, 0.7532307692307693, 0.8132142857142857, 1,
    ];
    adjusted.forEach((value, index) => expect(value).toBeCloseTo(expected[index]!, 14));
    expect(adjusted.filter((q) => q <= 0.05)).toHaveLength(4);
  });

  it('keeps the input order and handles ties, and rejects what is not a p-value', () => {
    const adjusted = benjaminiHochberg([0.01, 0.04, 0.03, 0.04, 0.2, 0.0001]);
    [0.03, 0.048, 0.048, 0.048, 0.2, 0.0006].forEach((value, index) => expect(adjusted[index]).toBeCloseTo(value, 14));
    expect(benjaminiHochberg([])).toEqual([]);
    expect(benjaminiHochberg([0.3])).toEqual([0.3]);
    expect(() => benjaminiHochberg([0.1, 1.2])).toThrow('a p-value must lie within [0, 1]; got 1.2');
  });
});

describe('Hodges–Lehmann shift and its interval match R wilcox.test(conf.int = TRUE)', () => {
  // Kirkwood & Sterne, Essentials of medical statistics, table 30.4: birth weights (kg) of children
  // of heavy smokers (x) and non-smokers (y). Ties, so R uses the normal approximation; PHUSE CAMIS
  // publishes R's {stats} interval (-0.77, -0.090) and p = 0.01001 (continuity correction).
  const smokers = sample(3.18, 2.74, 2.9, 3.27, 3.65, 3.42, 3.23, 2.86, 3.6, 3.65, 3.69, 3.53, 2.38, 2.34);
  const nonSmokers = sample(3.99, 3.89, 3.6, 3.73, 3.31, 3.7, 4.08, 3.61, 3.83, 3.41, 4.13, 3.36, 3.54, 3.51, 2.71);

  it('asymptotic (ties): the published interval and p-value', () => {
    const shift = hodgesLehmannShift(smokers, nonSmokers);
    expect(shift.method).toBe('asymptotic');
    expect(shift.low).toBeCloseTo(-0.77, 10);
    expect(shift.high).toBeCloseTo(-0.09, 10);
    expect(shift.estimate).toBeCloseTo(-0.425, 10);
    expect(shift.confidence).toBe(0.95);
    expect(mannWhitneyU(smokers, nonSmokers).pValue).toBeCloseTo(0.01001, 5);
  });

  it('exact (no ties): Hollander & Wolfe permeability data, estimate 0.305, against an enumeration', () => {
    const term = sample(0.8, 0.83, 1.89, 1.04, 1.45, 1.38, 1.91, 1.64, 0.73, 1.46);
    const early = sample(1.15, 0.88, 0.9, 0.74, 1.21);
    const shift = hodgesLehmannShift(term, early);
    expect(shift).toMatchObject({ method: 'exact', n1: 10, n2: 5 });
    expect(shift.estimate).toBeCloseTo(0.305, 12);
    // Enumerated: qu = 12 of 50 differences, achieved confidence 1 - 2 * P(U <= 11) = 0.96004.
    expect(shift.low).toBeCloseTo(-0.15, 12);
    expect(shift.high).toBeCloseTo(0.76, 12);
    expect(shift.confidence).toBeCloseTo(0.9600399600399601, 14);
  });

  it.each<[string, NonEmptyArray<number>, NonEmptyArray<number>, number, number, number, number]>([
    ['separated 5 vs 5', sample(6, 7, 8, 9, 10), sample(1, 2, 3, 4, 5), 5, 2, 8, 0.9682539682539683],
    ['6 vs 4', sample(1.1, 2.3, 0.7, 5.2, 3.3, 4.4), sample(0.2, 1.7, 2.9, 0.4), 1.55, -1, 4.2, 0.9619047619047619],
    // Too few values for 95%: the widest interval there is, and the confidence it really has.
    ['2 vs 2', sample(1, 2), sample(3, 4), -2, -3, -1, 0.6666666666666667],
  ])('exact interval, %s (brute force)', (_, x, y, estimate, low, high, confidence) => {
    const shift = hodgesLehmannShift(x, y);
    expect(shift.method).toBe('exact');
    expect([shift.estimate, shift.low, shift.high]).toEqual([
      expect.closeTo(estimate, 12),
      expect.closeTo(low, 12),
      expect.closeTo(high, 12),
    ]);
    expect(shift.confidence).toBeCloseTo(confidence, 14);
  });

  it('is antisymmetric, and refuses what it cannot use', () => {
    const forward = hodgesLehmannShift(sample(6, 7, 8, 9, 10), sample(1, 2, 3, 4, 5));
    const backward = hodgesLehmannShift(sample(1, 2, 3, 4, 5), sample(6, 7, 8, 9, 10));
    expect([backward.estimate, backward.low, backward.high]).toEqual([-forward.estimate, -forward.high, -forward.low]);
    const constant = hodgesLehmannShift(sample(0, 0, 0), sample(0, 0, 0));
    expect([constant.estimate, constant.low, constant.high]).toEqual([0, 0, 0]);
    expect(() => hodgesLehmannShift(sample(1, Number.NaN), sample(2))).toThrow('finite numbers');
    expect(() => hodgesLehmannShift(sample(1), sample(2), 1)).toThrow('confidence must lie strictly between 0 and 1; got 1');
  });

  it('counts rank arrangements exactly (sum C(n1+n2, n1), symmetric)', () => {
    const counts = [...exactUCounts(3, 4)];
    expect(counts.reduce((sum, each) => sum + each, 0)).toBe(35);
    expect(counts).toEqual([...counts].reverse());
    expect(counts.slice(0, 4)).toEqual([1, 1, 2, 3]);
  });
});

describe('the run-level prediction test (history baseline) matches scipy', () => {
  it('is a t test of one new run against the baseline runs, with its interval', () => {
    // scipy: t = (80 - 101) / (s * sqrt(1 + 1/4)) = -7.2746; 2 * t.sf(7.2746, 3) = 0.005361161286942486.
    const test = predictionTest(sample(100, 104, 98, 102), 80);
    expect(test.pValue).toBeCloseTo(0.005361161286942486, 13);
    expect(test.estimate).toBe(-21);
    expect(test.low).toBeCloseTo(-30.186931155185395, 11);
    expect(test.high).toBeCloseTo(-11.813068844814605, 11);
    expect(test).toMatchObject({ degreesOfFreedom: 3, baselineMean: 101, n: 4 });
    expect(test.baselineStandardDeviation).toBeCloseTo(2.581988897471611, 14);
    // The noise band is the interval's half-width in % of the mean: t(0.975, 3) * sqrt(1.25) * s / 101.
    expect(noiseBandPercent(sample(100, 104, 98, 102))).toBeCloseTo(9.09597144077762, 11);
  });

  it('handles runs that all agree, and needs two runs', () => {
    expect(predictionTest(sample(5, 5, 5), 5).pValue).toBe(1);
    expect(predictionTest(sample(0, 0, 0), 1).pValue).toBe(0);
    expect(noiseBandPercent(sample(0, 0, 0))).toBeNull();
    expect(noiseBandPercent(sample(3))).toBeNull();
    expect(() => predictionTest(sample(1), 2)).toThrow('a prediction test needs at least two baseline runs; got 1');
    expect(mean(sample(1, 2, 6))).toBe(3);
    expect(standardDeviation(sample(2, 4, 4, 4, 5, 5, 7, 9))).toBeCloseTo(2.138089935299395, 14);
    expect(standardDeviation(sample(7))).toBe(0);
  });
});
