/**
 * What the run script and the reporter say when a run executed no test: why, in one line, and
 * that nothing was archived or replaced. Never "passed".
 */
import { formatNothingRan, nothingRanLine, type NothingRanInput } from '../../src/run/nothingRan';
import { countTests, type TestOutcome } from '../../src/results/outcome';

const skipped = (title: string): TestOutcome => ({
  test_id: `benchmarks/bench_x.bench.ts::TestX::${title}`,
  full_name: `TestX ${title}`,
  status: 'skipped',
  duration_ms: null,
  failure_message: null,
});

const base: NothingRanInput = {
  nothingRan: { counts: countTests([skipped('a'), skipped('b')]), outcomeFound: true, suiteErrors: [] },
  jestExitCode: 0,
  jestSignal: null,
  interrupted: false,
  markerExpression: 'benchmark',
  testNameFilter: 'no_such_test',
  reportsDir: '/work/x/reports/benchmarks',
  rawResultsDir: '/work/x/reports/.test-output',
  restoredResults: 22,
  cwd: '/work/x',
};

describe('a run that ran nothing (bench run)', () => {
  it('blames the selection only when the selection is to blame, and says what was kept', () => {
    expect(formatNothingRan(base)).toBe(
      'bench: no benchmark ran: markers "benchmark" and -t "no_such_test" selected no test (skipped: 2)\n' +
        'bench: nothing archived; the report, its charts and the history in reports/benchmarks are unchanged; 22 earlier raw result file(s) put back in reports/.test-output\n',
    );
  });

  it('says Jest failed first when it left no outcome and exited non-zero (a failed globalSetup)', () => {
    const text = formatNothingRan({
      ...base,
      jestExitCode: 1,
      restoredResults: 0,
      nothingRan: { counts: countTests([]), outcomeFound: false, suiteErrors: [] },
    });
    expect(text.split('\n')[0]).toBe(
      'bench: no benchmark ran: Jest failed before any benchmark file ran (exit code 1); its output above says why',
    );
    expect(text).not.toMatch(/selected no test|passed/);
  });

  it('names the files that could not load, and an interruption', () => {
    const suiteErrors = [{ file: 'benchmarks/bench_x.bench.ts', message: 'Cannot find module y\n  at z' }];
    expect(
      formatNothingRan({ ...base, jestExitCode: 1, nothingRan: { counts: countTests([], suiteErrors), outcomeFound: true, suiteErrors } }),
    ).toMatch(/^bench: no benchmark ran: 1 benchmark file\(s\) could not run \(benchmarks\/bench_x\.bench\.ts: Cannot find module y\); /);
    expect(formatNothingRan({ ...base, interrupted: true, jestExitCode: null, jestSignal: 'SIGINT' })).toMatch(
      /^bench: no benchmark ran: stopped \(SIGINT\) before the first benchmark finished\n/,
    );
  });
});

describe('a run that ran nothing (plain jest, the reporter)', () => {
  const outcome = (tests: TestOutcome[]) => ({
    schema_version: 1,
    started_at: '',
    updated_at: '',
    complete: true,
    tests,
    suite_errors: [],
  });

  it('is one line when no test executed and no result was written', () => {
    expect(nothingRanLine(outcome([skipped('a')]), 0)).toBe(
      'no benchmark ran: the selection (BENCH_MARKERS, -t) matched no test (skipped: 1); nothing archived, junit.xml, the report, its charts and the history are unchanged',
    );
  });

  it('is silent when a test executed, or a result was written', () => {
    expect(nothingRanLine(outcome([{ ...skipped('a'), status: 'failed' }]), 0)).toBeNull();
    expect(nothingRanLine(outcome([]), 1)).toBeNull();
  });
});
