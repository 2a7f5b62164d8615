import { formatTimeBudget, timeBudget } from '../../src/run/timeBudget';

const test = (id: string, startedAtMs: number, durationMs: number | null) => ({
  test_id: `benchmarks/x.bench.ts::T::${id}`,
  full_name: `T ${id}`,
  status: 'passed' as const,
  duration_ms: durationMs,
  failure_message: null,
  ...(durationMs === null ? {} : { started_at: new Date(startedAtMs).toISOString() }),
});

const result = (id: string, measuredMs?: number) =>
  ({ test_id: `benchmarks/x.bench.ts::T::${id}`, ...(measuredMs === undefined ? {} : { measured_ms: measuredMs }) }) as never;

describe('where a run’s time went', () => {
  it('splits the wall time into measuring, set-up inside tests, and the time around them', () => {
    const t0 = Date.parse('2026-11-25T10:00:00.000Z');
    const budget = timeBudget({
      started_at: new Date(t0).toISOString(),
      finished_at: new Date(t0 + 100_000).toISOString(),
      // a starts after 8 s of Jest start-up; b 2 s after a ended; the run ends 10 s after b.
      tests: [test('a', t0 + 8_000, 50_000), test('b', t0 + 60_000, 30_000), test('skipped', t0, null)],
      results: [result('a', 20_000), result('a', 10_000), result('b')],
    })!;
    expect(budget).toMatchObject({
      wallMs: 100_000,
      measuredMs: 60_000, // a: 30 s of windows; b says nothing, so all of it
      testOverheadMs: 20_000,
      beforeFirstTestMs: 8_000,
      betweenTestsMs: 2_000,
      afterLastTestMs: 10_000,
      unaccountedTests: 1,
    });
    expect(budget.costliest[0]).toEqual({ test: 'a', overheadMs: 20_000, measuredMs: 30_000 });
    expect(formatTimeBudget(budget)[0]).toBe('time        100.0 s in all: measuring 60.0 s (60%), not measuring 40.0 s:');
  });

  it('says nothing for a run whose tests carry no start time (older outcomes)', () => {
    expect(
      timeBudget({ started_at: '2026-11-25T10:00:00.000Z', finished_at: '2026-11-25T10:01:00.000Z', tests: [], results: [] }),
    ).toBeNull();
  });
});
