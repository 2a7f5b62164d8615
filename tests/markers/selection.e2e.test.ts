/**
 * Runs real Jest in a child process on tests/markers/fixtures/*.fixture.ts with
 * fixtures/markerFilter.ts as setupFilesAfterEnv, and checks which tests ran and which were
 * reported as skipped for several BENCH_MARKERS values.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PROJECT_ROOT } from '../../src/config';

const CHILD_TIMEOUT_MS = 90_000;
const TEST_TIMEOUT_MS = 120_000;
const FIXTURES_DIR = path.join(__dirname, 'fixtures');

interface JestJson {
  numPassedTests: number;
  numPendingTests: number;
  numFailedTests: number;
  numTotalTests: number;
  numRuntimeErrorTestSuites: number;
  testResults: Array<{ name: string; assertionResults: Array<{ title: string; status: string }> }>;
}

interface ChildRun {
  readonly status: number | null;
  readonly stderr: string;
  readonly json: JestJson;
  /** Test title → Jest status (`passed`, `pending` for skipped, ...). */
  readonly statuses: ReadonlyMap<string, string>;
}

let workDir: string;
let configPath: string;

beforeAll(() => {
  workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'amqp-bench-markers-'));
  configPath = path.join(workDir, 'jest.config.json');
  const config = {
    rootDir: FIXTURES_DIR,
    testMatch: ['<rootDir>/**/*.fixture.ts'],
    transform: { '^.+\\.ts$': [require.resolve('ts-jest'), { diagnostics: false }] },
    testEnvironment: 'node',
    setupFilesAfterEnv: [path.join(PROJECT_ROOT, 'fixtures', 'markerFilter.ts')],
    testTimeout: 10_000,
  };
  fs.writeFileSync(configPath, JSON.stringify(config, null, 2));
});

afterAll(() => {
  fs.rmSync(workDir, { recursive: true, force: true });
});

function runJest(markers: string | undefined): ChildRun {
  const outputFile = path.join(workDir, `result-${Date.now()}-${Math.random().toString(36).slice(2)}.json`);
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.BENCH_MARKERS;
  if (markers !== undefined) env.BENCH_MARKERS = markers;
  const child = spawnSync(
    process.execPath,
    [require.resolve('jest/bin/jest'), '--config', configPath, '--runInBand', '--ci', '--json', '--outputFile', outputFile],
    { cwd: PROJECT_ROOT, env, encoding: 'utf8', timeout: CHILD_TIMEOUT_MS },
  );
  if (child.error !== undefined) throw child.error;
  if (!fs.existsSync(outputFile)) throw new Error(`jest wrote no results (exit ${child.status}):\n${child.stderr}`);
  const json = JSON.parse(fs.readFileSync(outputFile, 'utf8')) as JestJson;
  const statuses = new Map<string, string>();
  for (const file of json.testResults) for (const result of file.assertionResults) statuses.set(result.title, result.status);
  return { status: child.status, stderr: child.stderr, json, statuses };
}

/** Every fixture test and the markers it ends up with (file markers plus its own). */
const ALL_TESTS = [
  'test_fast', // benchmark.fixture.ts: @benchmark
  'test_it_plain',
  'test_slow_one', // + slow
  'test_slow_each[1]', // + slow
  'test_slow_each[2]', // + slow
  'test_publish[10-100]',
  'test_publish[300-50]', // + slow (row marker)
  'test_plain_each[1]',
  'test_plain_each[2]',
  'test_user_skipped', // test.skip: skipped whatever the expression
  'test_nested',
  'test_index[0]-a', // + slow (row marker)
  'test_index[1]-b',
  'test_stress_a', // stress.fixture.ts: @benchmark @stress
  'test_stress_concurrent',
  'test_stress_slow', // + slow
  'test_template[1-2]',
  'test_template[3-4]',
  'test_unmarked', // unmarked.fixture.ts: no markers
  'test_d', // slowTagged.fixture.ts: @slow among other tags
];

function expectRan(run: ChildRun, passed: readonly string[]): void {
  const expected = new Map(ALL_TESTS.map((title) => [title, passed.includes(title) ? 'passed' : 'pending']));
  expect(new Map([...run.statuses].sort())).toEqual(new Map([...expected].sort()));
  expect(run.json.numPassedTests).toBe(passed.length);
  expect(run.json.numPendingTests).toBe(ALL_TESTS.length - passed.length);
  expect(run.json.numFailedTests).toBe(0);
  expect(run.status).toBe(0);
}

describe('marker selection in a real Jest run', () => {
  test(
    'no expression runs every test; only test.skip is skipped',
    () => {
      const run = runJest(undefined);
      expectRan(
        run,
        ALL_TESTS.filter((title) => title !== 'test_user_skipped'),
      );
      expect(run.stderr).not.toContain('marker expression');
    },
    TEST_TIMEOUT_MS,
  );

  test(
    '"not slow" skips file-level, test-level and row-level slow tests',
    () => {
      const run = runJest('not slow');
      expectRan(run, [
        'test_fast',
        'test_it_plain',
        'test_publish[10-100]',
        'test_plain_each[1]',
        'test_plain_each[2]',
        'test_nested',
        'test_index[1]-b',
        'test_stress_a',
        'test_stress_concurrent',
        'test_template[1-2]',
        'test_template[3-4]',
        'test_unmarked',
      ]);
      expect(run.stderr).toContain(
        'tests/markers/fixtures/slowTagged.fixture.ts: marker expression "not slow" selects no tests (0 of 1; file markers: @slow); it is reported as skipped',
      );
    },
    TEST_TIMEOUT_MS,
  );

  test(
    '"stress" runs only the stress file and says once per file when a file selects nothing',
    () => {
      const run = runJest('stress');
      expectRan(run, ['test_stress_a', 'test_stress_concurrent', 'test_stress_slow', 'test_template[1-2]', 'test_template[3-4]']);
      const note =
        'tests/markers/fixtures/benchmark.fixture.ts: marker expression "stress" selects no tests (0 of 12; file markers: @benchmark); all 12 are reported as skipped';
      expect(run.stderr.split(note)).toHaveLength(2);
      expect(run.stderr).toContain('unmarked.fixture.ts: marker expression "stress" selects no tests (0 of 1; file markers: none)');
      expect(run.stderr).not.toContain('stress.fixture.ts: marker expression');
    },
    TEST_TIMEOUT_MS,
  );

  test(
    'the quick selection "benchmark and not slow and not stress"',
    () => {
      const run = runJest('benchmark and not slow and not stress');
      expectRan(run, [
        'test_fast',
        'test_it_plain',
        'test_publish[10-100]',
        'test_plain_each[1]',
        'test_plain_each[2]',
        'test_nested',
        'test_index[1]-b',
      ]);
    },
    TEST_TIMEOUT_MS,
  );

  test(
    '"(slow or stress) and not benchmark" reaches a slow file without @benchmark',
    () => {
      const run = runJest('(slow or stress) and not benchmark');
      expectRan(run, ['test_d']);
    },
    TEST_TIMEOUT_MS,
  );

  test(
    'a malformed expression fails every file with the message, and the run exits non-zero',
    () => {
      const run = runJest('benchmark and (');
      expect(run.status).not.toBe(0);
      expect(run.json.numRuntimeErrorTestSuites).toBe(4);
      expect(run.json.numTotalTests).toBe(0);
      expect(run.stderr).toContain(
        'MarkerExpressionError: Invalid marker expression "benchmark and (" (from BENCH_MARKERS) at column 16: expected a marker name, "not" or "(" after "(", found the end of the expression.',
      );
      expect(run.stderr).toMatch(/( +)benchmark and \(\n\1 {15}\^/);
    },
    TEST_TIMEOUT_MS,
  );

  test(
    'an unknown marker name fails the run instead of selecting nothing',
    () => {
      const run = runJest('not stres');
      expect(run.status).not.toBe(0);
      expect(run.json.numRuntimeErrorTestSuites).toBe(4);
      expect(run.stderr).toContain('unknown marker "stres" (did you mean "stress"?)');
    },
    TEST_TIMEOUT_MS,
  );
});
