/**
 * Which marker expression `bench run` passes to Jest: -m, else BENCH_MARKERS from the
 * environment, else the quick or full selection; a malformed one fails before anything runs,
 * naming where it came from.
 */
import { resolveRunOptions } from '../../src/cli/runOptions';
import { resolveConfig } from '../../src/config';
import { MarkerExpressionError } from '../../src/errors';

const config = resolveConfig({});

describe('the marker expression of a run', () => {
  it.each([
    [{}, {}, 'benchmark'],
    [{ quick: true }, {}, 'benchmark and not slow and not stress'],
    [{}, { BENCH_MARKERS: 'benchmark and slow' }, 'benchmark and slow'],
    [{ quick: true }, { BENCH_MARKERS: 'benchmark and not stress' }, 'benchmark and not stress'],
    [{ markers: 'stress' }, { BENCH_MARKERS: 'slow' }, 'stress'],
    [{}, { BENCH_MARKERS: '' }, 'benchmark'],
  ])('input %p with environment %p selects %p', (input, env, expected) => {
    expect(resolveRunOptions(input, config, '/', env).markerExpression).toBe(expected);
  });

  it('refuses a malformed BENCH_MARKERS by name, before anything runs', () => {
    expect(() => resolveRunOptions({}, config, '/', { BENCH_MARKERS: 'benchmark and' })).toThrow(MarkerExpressionError);
    expect(() => resolveRunOptions({}, config, '/', { BENCH_MARKERS: 'benchmark and' })).toThrow(/BENCH_MARKERS/);
    expect(() => resolveRunOptions({}, config, '/', { BENCH_MARKERS: '   ' })).toThrow(/^BENCH_MARKERS must be a marker expression/);
  });
});
