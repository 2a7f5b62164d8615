/**
 * The end of a run as the run script and the reporter see it (`completeRun`): a run that executed
 * no test writes nothing at all; a run that failed part-way is archived and marked, and is never
 * the baseline of a comparison.
 */
import fs from 'node:fs';
import path from 'node:path';
import { readHistory } from '../../src/results/history';
import { writeOutcome, type JestOutcome, type TestOutcome } from '../../src/results/outcome';
import { completeRun, type FinalizeRunOptions } from '../../src/run/pipeline';
import { writeRawResult } from '../../src/results/rawResult';
import { expectValid } from './schemaValidator';
import { environment, realisticResults, tempDir } from './helpers';

const test = (title: string, status: TestOutcome['status']): TestOutcome => ({
  test_id: `benchmarks/bench_x.bench.ts::TestX::${title}`,
  full_name: `TestX ${title}`,
  status,
  duration_ms: status === 'skipped' ? null : 100,
  failure_message: status === 'failed' ? 'boom' : null,
});

const outcomeOf = (tests: TestOutcome[], suiteErrors: JestOutcome['suite_errors'] = []): JestOutcome => ({
  schema_version: 1,
  started_at: '2025-01-31T12:00:00.000Z',
  updated_at: '2025-01-31T12:04:00.000Z',
  complete: true,
  tests,
  suite_errors: suiteErrors,
});

/** Every file under `dir` with its bytes, to prove a step changed nothing. */
function snapshot(dir: string): Record<string, string> {
  if (!fs.existsSync(dir)) return {};
  return Object.fromEntries(
    fs
      .readdirSync(dir, { recursive: true, encoding: 'utf8' })
      .filter((name) => fs.statSync(path.join(dir, name)).isFile())
      .sort()
      .map((name) => [name, fs.readFileSync(path.join(dir, name)).toString('base64')]),
  );
}

describe('completeRun', () => {
  let root: string;
  let options: FinalizeRunOptions;
  let hour = 12;
  beforeEach(() => {
    root = tempDir('completion');
    options = {
      environment: environment(),
      startedAt: new Date(Date.UTC(2025, 0, 31, hour)),
      finishedAt: new Date(Date.UTC(2025, 0, 31, hour, 4)),
      markerExpression: 'benchmark',
      testNameFilter: null,
      invokedBy: 'cli',
      jestExitCode: 0,
      interrupted: false,
      rawResultsDir: path.join(root, 'raw'),
      reportsDir: path.join(root, 'out'),
      thresholdPercent: null,
      secrets: [],
      warn: () => undefined,
    };
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  /** A passed run archived in `out`, so there is a report, charts, an archive and a history to keep. */
  async function passedRun(): Promise<void> {
    for (const result of realisticResults()) writeRawResult(result, options.rawResultsDir);
    const completion = await completeRun({ ...options, outcome: outcomeOf([test('test_a', 'passed')]) });
    expect(completion.kind).toBe('archived');
    hour += 1;
  }

  it.each([
    ['a filter that selected no test', outcomeOf([test('test_a', 'skipped'), test('test_b', 'skipped')]), 0, 2],
    ['files that could not load', outcomeOf([], [{ file: 'benchmarks/bench_x.bench.ts', message: 'Invalid marker expression' }]), 1, 0],
  ])(
    'writes nothing for a run that executed no test (%s)',
    async (_case, outcome, jestExitCode, skipped) => {
      await passedRun();
      fs.rmSync(options.rawResultsDir, { recursive: true });
      const before = snapshot(options.reportsDir);
      const completion = await completeRun({ ...options, jestExitCode, outcome, startedAt: new Date(Date.UTC(2025, 0, 31, hour)) });
      expect(completion).toMatchObject({
        kind: 'nothing-ran',
        nothingRan: { outcomeFound: true, counts: { passed: 0, failed: 0, skipped } },
      });
      expect(snapshot(options.reportsDir)).toEqual(before);
    },
    30_000,
  );

  it('writes nothing when Jest left no outcome at all (it failed before any file ran)', async () => {
    const completion = await completeRun({ ...options, jestExitCode: 1 });
    expect(completion).toEqual({
      kind: 'nothing-ran',
      nothingRan: {
        outcomeFound: false,
        suiteErrors: [],
        counts: { passed: 0, failed: 0, skipped: 0, todo: 0, total: 0, failed_suites: 0 },
      },
    });
    expect(fs.existsSync(options.reportsDir)).toBe(false);
  }, 30_000);

  it('archives a run stopped mid-test that wrote results, though no test finished', async () => {
    for (const result of realisticResults().slice(0, 1)) writeRawResult(result, options.rawResultsDir);
    const completion = await completeRun({ ...options, interrupted: true, jestExitCode: null });
    expect(completion.kind).toBe('archived');
    if (completion.kind === 'archived') expect(completion.finalized.archive.status).toBe('interrupted');
  }, 30_000);

  it('archives a run that failed part-way, marks its history entry (failed, tests run), and never compares with it', async () => {
    await passedRun();
    const [firstRun] = readHistory(options.reportsDir).history.runs;

    writeOutcome(options.rawResultsDir, outcomeOf([test('test_a', 'passed'), test('test_b', 'failed'), test('test_c', 'skipped')]));
    const failed = await completeRun({ ...options, jestExitCode: 1, startedAt: new Date(Date.UTC(2025, 0, 31, hour)) });
    hour += 1;
    expect(failed.kind).toBe('archived');
    const failedEntry = readHistory(options.reportsDir).history.runs[1]!;
    expect(failedEntry).toMatchObject({ status: 'failed', tests_run: 2, counts: { passed: 1, failed: 1, skipped: 1 } });
    expectValid(
      'benchmark-history.schema.json',
      JSON.parse(fs.readFileSync(path.join(options.reportsDir, 'benchmark_history.json'), 'utf8')),
    );

    const next = await completeRun({
      ...options,
      outcome: outcomeOf([test('test_a', 'passed')]),
      startedAt: new Date(Date.UTC(2025, 0, 31, hour)),
    });
    if (next.kind !== 'archived') throw new Error('expected an archived run');
    expect(next.finalized.comparison?.previous_run_id).toBe(firstRun!.run_id);
    expect(readHistory(options.reportsDir).history.runs.map((run) => run.status)).toEqual(['passed', 'failed', 'passed']);
  }, 30_000);
});
