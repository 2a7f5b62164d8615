/**
 * The benchmark reporter is harmless on runs of other projects, and what a finished benchmark
 * costs it does not grow with the run: it reads only the raw results written since the last test,
 * while every finished test is on disk at once (its e2e file covers a whole benchmark run).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { AggregatedResult, Test, TestCaseResult, TestContext } from '@jest/reporters';
import type { Config } from '@jest/types';
import { readOutcome } from '../../src/results/outcome';
import { writeRawResult } from '../../src/results/rawResult';
import { publishResult, tempDir } from '../results/helpers';

interface LoadedReporter {
  onTestFileStart(test: Test): void;
  onTestCaseResult(test: Test, testCase: unknown): void;
  onRunComplete(contexts: Set<TestContext>, results: AggregatedResult): Promise<void>;
}

/** Loaded the way Jest loads it (the .js entry registering TypeScript). */
function newReporter(root: string): LoadedReporter {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- the point is to load it as Jest does
  const Reporter = require('../../reporters/benchmark-reporter.js') as new (
    globalConfig: Config.GlobalConfig,
    options: Record<string, unknown>,
  ) => LoadedReporter;
  return new Reporter({ rootDir: root } as Config.GlobalConfig, {
    rawResultsDir: path.join(root, 'raw'),
    reportsDir: path.join(root, 'out'),
    junit: false,
  });
}

const testIn = (root: string, project: string): Test =>
  ({
    path: path.join(root, 'benchmarks', 'bench_x.bench.ts'),
    context: { config: { displayName: { name: project, color: 'white' } } },
  }) as unknown as Test;

const passed = (title: string): Partial<TestCaseResult> => ({
  ancestorTitles: ['TestX'],
  title,
  fullName: `TestX ${title}`,
  status: 'passed',
  failureMessages: [],
  duration: 1000,
});

const runOf = (project: string) =>
  ({ testResults: [{ displayName: { name: project } }], startTime: Date.now(), wasInterrupted: false }) as unknown as AggregatedResult;

describe('benchmark reporter', () => {
  let root: string;
  const ownerBefore = process.env.BENCH_PIPELINE_OWNER;
  beforeEach(() => {
    root = tempDir('reporter');
    // The run script's end: the reporter itself archives nothing here (that would start processes).
    process.env.BENCH_PIPELINE_OWNER = 'cli';
  });
  afterEach(() => {
    jest.restoreAllMocks();
    if (ownerBefore === undefined) delete process.env.BENCH_PIPELINE_OWNER;
    else process.env.BENCH_PIPELINE_OWNER = ownerBefore;
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('does nothing at all when only another project ran', async () => {
    const reporter = newReporter(root);
    const unitTest = testIn(root, 'unit');
    reporter.onTestFileStart(unitTest);
    reporter.onTestCaseResult(unitTest, passed('b'));
    await reporter.onRunComplete(new Set(), runOf('unit'));
    expect(fs.readdirSync(root)).toEqual([]);
  });

  it('reads only the raw results written since the last test, and has every finished test on disk as it goes', async () => {
    const raw = path.join(root, 'raw');
    const reporter = newReporter(root);
    const benchmark = testIn(root, 'benchmark');
    const lines: string[] = [];
    jest.spyOn(process.stderr, 'write').mockImplementation((chunk) => lines.push(String(chunk)) > 0);
    const reads = jest.spyOn(fs, 'readFileSync');
    reporter.onTestFileStart(benchmark);
    const rawFilesReadPerTest: number[] = [];
    for (let index = 1; index <= 30; index += 1) {
      writeRawResult(publishResult(index, 'plain', 1000 * index), raw);
      reads.mockClear();
      reporter.onTestCaseResult(benchmark, passed(`test_${index}`));
      rawFilesReadPerTest.push(reads.mock.calls.filter(([file]) => String(file).startsWith(raw)).length);
    }
    expect(rawFilesReadPerTest).toEqual(Array.from({ length: 30 }, () => 1));
    expect(lines.at(-1)).toMatch(/^\[bench\] ✓ TestX test_30 · 1\.0 s · publish_throughput: .* 30,000 msg\/s\n$/);
    // Were the run killed now, the outcome on disk would list every test that finished.
    expect(readOutcome(raw)?.tests.map((test) => test.full_name)).toEqual(
      Array.from({ length: 30 }, (_, index) => `TestX test_${index + 1}`),
    );

    await reporter.onRunComplete(new Set(), runOf('benchmark'));
    expect(readOutcome(raw)).toMatchObject({
      complete: true,
      tests: expect.arrayContaining([expect.objectContaining({ full_name: 'TestX test_30' })]),
    });
    // The whole outcome once at the end; its journal and the index of results written are gone.
    expect(fs.readdirSync(raw).filter((name) => name.startsWith('.'))).toEqual(['.jest-outcome.json']);
  });
});
