import { describeInterval, judgeInterval, medianInterval } from '../../src/measure/intervals';
import { judgedTarget } from '../../src/results/targetVerdict';

describe('the interval of a median', () => {
  it('is the order statistics with the coverage they give', () => {
    expect(medianInterval([3, 1, 2, 5, 4])).toEqual({ low: 1, high: 5, confidence: 0.9375, n: 5 });
    // Nine repetitions: the 2nd and 8th values cover the median 96%.
    expect(medianInterval([9, 1, 8, 2, 7, 3, 6, 4, 5])).toEqual({ low: 2, high: 8, confidence: expect.closeTo(0.9609, 3), n: 9 });
    expect(medianInterval([42])).toEqual({ low: 42, high: 42, confidence: 1, n: 1 });
    expect(medianInterval([])).toBeNull();
  });

  it('judges met, missed and inconclusive on the whole interval, and never misses on fewer than three', () => {
    const interval = (values: number[]) => medianInterval(values)!;
    expect(judgeInterval(interval([80, 85, 88]), '<', 110)).toBe('met');
    expect(judgeInterval(interval([112, 115, 130]), '<', 110)).toBe('missed');
    expect(judgeInterval(interval([92, 105, 120]), '<', 110)).toBe('inconclusive');
    expect(judgeInterval(interval([130]), '<', 110)).toBe('inconclusive');
    expect(judgeInterval(interval([130, 140]), '<', 110)).toBe('inconclusive');
    expect(judgeInterval(interval([95, 96, 97]), '>', 90)).toBe('met');
    expect(describeInterval(interval([92, 105, 120]), '%')).toBe('[92%, 120%] (3 repetitions, 75% interval of the median)');
  });
});

describe('a judged target', () => {
  const spec = { metric: 'ratio_percent', comparator: '<' as const, threshold: 110, unit: '%' };

  it('says met or missed with its interval, and why when inconclusive', () => {
    expect(judgedTarget(spec, [100, 101, 102])).toMatchObject({ met: true, verdict: 'met', interval: { low: 100, high: 102, n: 3 } });
    expect(judgedTarget(spec, [120, 121, 122])).toMatchObject({ met: false, verdict: 'missed' });
    expect(judgedTarget(spec, [100, 112.2, 120])).toMatchObject({
      met: null,
      verdict: 'inconclusive',
      reason: 'inconclusive: [100%, 120%] (3 repetitions, 75% interval of the median); its interval straddles the target',
    });
  });

  it('has no value without repetitions, and stays unscored when told so', () => {
    expect(judgedTarget(spec, [null])).toEqual({ ...spec, met: null });
    expect(judgedTarget(spec, [200, 210, 220], 'an upper bound')).toEqual({ ...spec, met: null, reason: 'an upper bound' });
  });
});
