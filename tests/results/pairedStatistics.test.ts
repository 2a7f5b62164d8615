import fs from 'node:fs';
import path from 'node:path';
import { comparePairs, pairedTTest } from '../../src/measure/paired';
import type { NonEmptyArray } from '../../src/measure/statistics';

const values = (list: number[]) => list as unknown as NonEmptyArray<number>;

// Reference values: scipy 1.17 `scipy.stats.ttest_rel(candidate, baseline)` (on the logarithms for a
// ratio) and its `.confidence_interval(confidence)`, printed with repr() and transformed back with exp.
describe('pairedTTest matches scipy.stats.ttest_rel / ttest_1samp', () => {
  it('gives t, the two-sided p and the interval of the mean difference', () => {
    const test = pairedTTest(values([0.1, 0.2, 0.3]));
    expect(test.t).toBeCloseTo(3.4641016151377557, 12);
    expect(test.pValue).toBeCloseTo(0.0741799002274485, 12);
    expect(test.low).toBeCloseTo(-0.04841377117503293, 12);
    expect(test.high).toBeCloseTo(0.448413771175033, 12);
    expect([test.n, test.degreesOfFreedom]).toEqual([3, 2]);
  });

  it('has exact answers where there is no spread, and says what it needs', () => {
    expect(pairedTTest(values([0.5, 0.5]))).toMatchObject({ pValue: 0, t: Infinity, low: 0.5, high: 0.5 });
    expect(pairedTTest(values([-2, -2, -2]))).toMatchObject({ pValue: 0, t: -Infinity });
    expect(pairedTTest(values([0, 0, 0]))).toMatchObject({ pValue: 1, t: 0 });
    expect(() => pairedTTest(values([1]))).toThrow('at least two pairs; got 1');
    expect(() => pairedTTest(values([1, Number.NaN]))).toThrow('finite differences; got NaN');
    expect(() => pairedTTest(values([1, 2]), 1)).toThrow('strictly between 0 and 1; got 1');
  });
});

describe('comparePairs: the candidate against the baseline, pair by pair', () => {
  it('is a ratio (the geometric mean of the pairs’ ratios) when every value is positive', () => {
    const change = comparePairs(values([100, 200, 300]), values([110, 210, 330]));
    expect(change.scale).toBe('ratio');
    expect(change.estimate).toBeCloseTo(1.0830742312633421, 12);
    expect(change.low).toBeCloseTo(1.0131696497386988, 12);
    expect(change.high).toBeCloseTo(1.1578019443527687, 12);
    expect(change.pValue).toBeCloseTo(0.035744521139839495, 12);
    expect(change.constant).toBe(false);
  });

  it('does not call a mixed pattern a change', () => {
    const change = comparePairs(values([10, 20, 30, 40, 50]), values([9, 21, 28, 41, 47]));
    expect(change.estimate).toBeCloseTo(0.9679748215680903, 12);
    expect(change.pValue).toBeCloseTo(0.33150633261548657, 12);
    expect(change.low).toBeLessThan(1);
    expect(change.high).toBeGreaterThan(1);
  });

  it('is a difference, in the values’ unit, when a value is 0 or below', () => {
    const change = comparePairs(values([1, -1, 2, 0]), values([2, 0, 2, 1]));
    expect(change.scale).toBe('difference');
    expect(change.estimate).toBeCloseTo(0.75, 12);
    expect(change.pValue).toBeCloseTo(0.0576688856224373, 12);
    expect(change.low).toBeCloseTo(-0.04561157632092694, 12);
    expect(change.high).toBeCloseTo(1.545611576320927, 12);
  });

  it('marks pairs that are equal within themselves as constant (p = 1)', () => {
    expect(comparePairs(values([0, 3, 5]), values([0, 3, 5]))).toMatchObject({ constant: true, pValue: 1, estimate: 0 });
    expect(comparePairs(values([2, 3, 5]), values([2, 3, 5]))).toMatchObject({ constant: true, pValue: 1, estimate: 1 });
  });

  it('refuses sides of different lengths', () => {
    expect(() => comparePairs(values([1, 2, 3]), values([1, 2]))).toThrow('as many baseline as candidate values; got 3 and 2');
  });

  it('on recorded replicates: a core kept busy during one side of six pairs of publish rates', () => {
    // The 10-thread plain publish rate of two recorded quick runs (tests/cli/fixtures/gate/shared-machine),
    // taken as if their replicates had been measured in pairs: the busy-core run's rates are 40% of the other's.
    const runs = ['run_20261122_202144_592b0cd2', 'run_20261122_202710_592b0cd2'].map(
      (run) =>
        JSON.parse(fs.readFileSync(path.join(__dirname, '../cli/fixtures/gate/shared-machine', `${run}.json`), 'utf8')) as {
          results: { replicates: Record<string, number[]> }[];
        },
    );
    const [quiet, busy] = runs.map((run) => values(run.results[0]!.replicates.throughput_msgs_per_sec!));
    expect(quiet).toEqual([16617, 21357, 13859, 9512, 22504, 13236]);
    const change = comparePairs(quiet!, busy!);
    expect(change.estimate).toBeCloseTo(0.39630813671488946, 12);
    expect(change.pValue).toBeCloseTo(0.010328918804615622, 12);
    expect(change.low).toBeCloseTo(0.21861302729030507, 12);
    expect(change.high).toBeCloseTo(0.7184390663867476, 12);
    const ninety = comparePairs(quiet!, busy!, 0.9);
    expect([ninety.low, ninety.high]).toEqual([expect.closeTo(0.24860511711950786, 12), expect.closeTo(0.6317655124971798, 12)]);
  });
});
