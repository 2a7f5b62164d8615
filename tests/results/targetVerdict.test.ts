import { describeInterval, judgeInterval, medianInterval } from '../../src/measure/intervals';
import {
  describeTargetVerdict,
  judgedSideBySide,
  judgedTarget,
  SIDE_BY_SIDE_BAND,
  targetVerdictWord,
} from '../../src/results/targetVerdict';

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

describe('a harness/bare ratio', () => {
  const spec = { metric: 'ratio_percent', comparator: '<' as const, threshold: 110, unit: '%' };

  it('is judged as any target within 80–125%', () => {
    expect(judgedSideBySide(spec, [95, 100, 104], SIDE_BY_SIDE_BAND, 'sides')).toEqual(judgedTarget(spec, [95, 100, 104]));
    expect(judgedSideBySide(spec, [80, 81, 100], SIDE_BY_SIDE_BAND, 'sides')).toMatchObject({ met: true });
    expect(judgedSideBySide(spec, [null], SIDE_BY_SIDE_BAND, 'sides')).toEqual({ ...spec, met: null });
  });

  it('says the two sides differ outside it, on the median of the pairs, with the sides in words: never met, never missed', () => {
    expect(judgedSideBySide(spec, [40, 79.9, 150], SIDE_BY_SIDE_BAND, 'harness 6.5 ms, bare 10 ms')).toEqual({
      ...spec,
      met: null,
      verdict: 'differ',
      interval: { low: 40, high: 150, confidence: 0.75, n: 3 },
      reason: 'the two sides differ: ratio 79.9% is outside 80–125%, so they did different work; harness 6.5 ms, bare 10 ms',
    });
    expect(judgedSideBySide(spec, [130, 126, 200], SIDE_BY_SIDE_BAND, 'x')).toMatchObject({ met: null, verdict: 'differ' });
  });
});

describe('the words of a verdict', () => {
  const spec = { metric: 'ratio_percent', comparator: '>' as const, threshold: 90, unit: '%' };

  it('are the same wherever a target is reported', () => {
    expect(targetVerdictWord(judgedTarget(spec, [95, 96, 97]))).toBe('met');
    expect(targetVerdictWord(judgedTarget(spec, [80, 81, 82]))).toBe('missed');
    // The consume ratio's progress line once said "missed" here while the verification said inconclusive.
    expect(targetVerdictWord(judgedTarget(spec, [85, 95]))).toBe('inconclusive');
    expect(targetVerdictWord({ ...spec, met: false })).toBe('missed');
    expect(targetVerdictWord({ ...spec, met: null })).toBe('no value');
    expect(targetVerdictWord({ ...spec, met: null, reason: 'an upper bound' })).toBe('not scored');
    expect(describeTargetVerdict(judgedTarget(spec, [85, 95]))).toBe('target > 90%: inconclusive');
    expect(describeTargetVerdict({ ...spec, comparator: '<', threshold: 110, met: null, verdict: 'differ' })).toBe(
      'target < 110%: the two sides differ',
    );
    expect(describeTargetVerdict({ metric: 'x_ms', comparator: '<', threshold: 10, unit: 'ms', met: true })).toBe('target < 10 ms: met');
  });
});
