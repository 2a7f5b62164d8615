/** The benchmark reporter is harmless on runs of other projects (its e2e file covers a benchmark run). */
import fs from 'node:fs';
import path from 'node:path';
import type { AggregatedResult, Test, TestContext } from '@jest/reporters';
import type { Config } from '@jest/types';
import { tempDir } from '../results/helpers';

describe('benchmark reporter', () => {
  let root: string;
  beforeEach(() => {
    root = tempDir('reporter');
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  it('does nothing at all when only another project ran', async () => {
    // Loaded the way Jest loads it (the .js entry registering TypeScript).
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- the point is to load it as Jest does
    const Reporter = require('../../reporters/benchmark-reporter.js') as new (
      globalConfig: Config.GlobalConfig,
      options: Record<string, unknown>,
    ) => {
      onTestFileStart(test: Test): void;
      onTestCaseResult(test: Test, testCase: unknown): void;
      onRunComplete(contexts: Set<TestContext>, results: AggregatedResult): Promise<void>;
    };
    const reporter = new Reporter({ rootDir: root } as Config.GlobalConfig, {
      rawResultsDir: path.join(root, 'raw'),
      reportsDir: path.join(root, 'out'),
    });
    const unitTest = {
      path: path.join(root, 'a.test.ts'),
      context: { config: { displayName: { name: 'unit', color: 'white' } } },
    } as unknown as Test;
    reporter.onTestFileStart(unitTest);
    reporter.onTestCaseResult(unitTest, {
      ancestorTitles: ['A'],
      title: 'b',
      fullName: 'A b',
      status: 'passed',
      failureMessages: [],
      duration: 1,
    });
    await reporter.onRunComplete(new Set(), {
      testResults: [{ displayName: { name: 'unit' } }],
      startTime: Date.now(),
      wasInterrupted: false,
    } as unknown as AggregatedResult);
    expect(fs.readdirSync(root)).toEqual([]);
  });
});
