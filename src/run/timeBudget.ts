/**
 * Where a run's wall time went (pure), from its archive: the measurement windows its results
 * report (`measured_ms`), the rest of its tests' time (set-up, warm-up, worker pools, connections,
 * queue purges, teardown), the time between tests (test files loaded, global set-up), and before
 * the first and after the last test (Jest start-up, the proxy; the archive, history and report).
 * What is not measuring is what a faster run must shrink; printed at the end of every run.
 */
import type { RunArchive } from '../results/archive';

export interface TimeBudget {
  readonly wallMs: number;
  /** Inside measurement windows (what the results report). */
  readonly measuredMs: number;
  /** Tests' own time outside their windows: set-up, warm-up, pools, connections, purges, teardown. */
  readonly testOverheadMs: number;
  /** Before the first test started: Jest start-up, global set-up (broker and proxy checks, the proxy). */
  readonly beforeFirstTestMs: number;
  /** Between tests (loading test files, their modules). */
  readonly betweenTestsMs: number;
  /** After the last test: teardown, the reporter, collecting and archiving (until the archive's end time). */
  readonly afterLastTestMs: number;
  /** The tests that spent the most outside their windows, slowest first. */
  readonly costliest: readonly { readonly test: string; readonly overheadMs: number; readonly measuredMs: number }[];
  /** Tests whose results say nothing of their windows (their whole time counts as measuring). */
  readonly unaccountedTests: number;
}

export function timeBudget(archive: Pick<RunArchive, 'started_at' | 'finished_at' | 'tests' | 'results'>): TimeBudget | null {
  const ran = archive.tests.filter((test) => test.duration_ms !== null && test.started_at !== undefined);
  if (ran.length === 0) return null;
  const startMs = Date.parse(archive.started_at);
  const endMs = Date.parse(archive.finished_at);
  const measuredByTest = new Map<string, number>();
  for (const result of archive.results)
    if (typeof result.measured_ms === 'number')
      measuredByTest.set(result.test_id, (measuredByTest.get(result.test_id) ?? 0) + result.measured_ms);
  let measuredMs = 0;
  let testOverheadMs = 0;
  let unaccountedTests = 0;
  const costs: { test: string; overheadMs: number; measuredMs: number }[] = [];
  for (const test of ran) {
    const duration = test.duration_ms!;
    const measured = measuredByTest.get(test.test_id);
    if (measured === undefined) unaccountedTests += 1;
    const inside = Math.min(duration, measured ?? duration);
    measuredMs += inside;
    testOverheadMs += duration - inside;
    costs.push({ test: test.test_id.split('::').slice(-1)[0]!, overheadMs: duration - inside, measuredMs: inside });
  }
  const starts = ran.map((test) => Date.parse(test.started_at!));
  const firstStart = Math.min(...starts);
  const lastEnd = Math.max(...ran.map((test, index) => starts[index]! + test.duration_ms!));
  const testsMs = ran.reduce((sum, test) => sum + test.duration_ms!, 0);
  return {
    wallMs: Math.max(0, endMs - startMs),
    measuredMs,
    testOverheadMs,
    beforeFirstTestMs: Math.max(0, firstStart - startMs),
    betweenTestsMs: Math.max(0, lastEnd - firstStart - testsMs),
    afterLastTestMs: Math.max(0, endMs - lastEnd),
    costliest: costs.sort((a, b) => b.overheadMs - a.overheadMs).slice(0, 5),
    unaccountedTests,
  };
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** The budget in a few lines for the end of a run. */
export function formatTimeBudget(budget: TimeBudget): string[] {
  const notMeasuring = budget.wallMs - budget.measuredMs;
  return [
    `time        ${seconds(budget.wallMs)} in all: measuring ${seconds(budget.measuredMs)} (${Math.round((100 * budget.measuredMs) / Math.max(1, budget.wallMs))}%), not measuring ${seconds(notMeasuring)}:`,
    `  before the first test ${seconds(budget.beforeFirstTestMs)} (Jest start-up, global set-up), between tests ${seconds(budget.betweenTestsMs)} (test files loading), inside tests outside their windows ${seconds(budget.testOverheadMs)} (pools, connections, warm-ups, purges, teardown), after the last test ${seconds(budget.afterLastTestMs)}`,
    ...(budget.costliest.length > 0
      ? [
          `  most set-up: ${budget.costliest.map((cost) => `${cost.test} ${seconds(cost.overheadMs)} (measuring ${seconds(cost.measuredMs)})`).join(', ')}`,
        ]
      : []),
    ...(budget.unaccountedTests > 0 ? [`  ${budget.unaccountedTests} test(s) say nothing of their windows: counted as measuring`] : []),
  ];
}
