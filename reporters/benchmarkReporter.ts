/**
 * The benchmark reporter (Jest reporter interface). Always listed in jest.config.ts, it acts only
 * on test files of the `benchmark` project, so unit runs are untouched:
 * - while the run goes on: a progress line per benchmark with its headline figure, and the test
 *   outcome file (`.jest-outcome.json` in the raw-results folder) rewritten after every test, so
 *   an interrupted run still knows what passed;
 * - at the end: junit.xml through jest-junit (benchmark tests only, key metrics as testcase
 *   properties, passwords masked, written atomically), then, on a plain `jest` run, the whole
 *   pipeline (archive, history, comparison, report). Under the run script
 *   (BENCH_PIPELINE_OWNER=cli) the script does the pipeline after Jest exits, Ctrl-C or not.
 * - a run that executed no benchmark test writes none of it (the last junit.xml, report, charts
 *   and history stay); on a plain `jest` run it says so in one line and fails the run.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { AggregatedResult, Reporter, Test, TestCaseResult, TestContext, TestResult } from '@jest/reporters';
import type { Config } from '@jest/types';
import { getConfig } from '../src/config';
import { describeError } from '../src/errors';
import { junitPropertiesFor } from '../src/results/junitProperties';
import { type JestOutcome, type SuiteError, type TestOutcome, type TestStatus, writeOutcome } from '../src/results/outcome';
import { nothingRanLine } from '../src/run/nothingRan';
import type { RawResult } from '../src/results/rawResult';
import { redactDeep, redactSecrets, secretsOf } from '../src/redact';
import { testIdIn } from '../src/results/testMatch';
import { formatValue, humanizeMetricName } from '../src/report/format';
import { collectRawResults } from '../src/results/collect';
import { commitTempFile, tempPathFor } from '../src/io/atomicFile';
import type * as Environment from '../src/environment';
import type * as Pipeline from '../src/run/pipeline';

/** Options as written in jest.config.ts; strings are accepted where Jest users write them. */
export interface BenchmarkReporterInput {
  /** Jest project (displayName) whose tests are benchmarks. @default benchmark */
  readonly project?: string;
  /** @default BENCH_RAW_DIR, else reports/.test-output */
  readonly rawResultsDir?: string;
  /** @default BENCH_REPORTS_DIR, else reports/benchmarks */
  readonly reportsDir?: string;
  /** Write junit.xml. @default true */
  readonly junit?: boolean | 'true' | 'false';
  /** Print a line per finished benchmark. @default true */
  readonly progress?: boolean | 'true' | 'false';
}

export interface BenchmarkReporterOptions {
  readonly project: string;
  readonly rawResultsDir: string;
  readonly reportsDir: string;
  readonly junit: boolean;
  readonly progress: boolean;
  /** `cli` when the run script owns the pipeline (BENCH_PIPELINE_OWNER=cli). */
  readonly pipelineOwner: 'cli' | 'reporter';
}

/** Resolves the reporter's options once (defaults from the harness config / environment). */
export function resolveBenchmarkReporterOptions(
  input: BenchmarkReporterInput = {},
  env: NodeJS.ProcessEnv = process.env,
): BenchmarkReporterOptions {
  const flag = (value: boolean | string | undefined, fallback: boolean) =>
    value === undefined ? fallback : value === true || value === 'true';
  const config = getConfig();
  return Object.freeze({
    project: input.project ?? 'benchmark',
    rawResultsDir: path.resolve(input.rawResultsDir ?? config.rawResultsDir),
    reportsDir: path.resolve(input.reportsDir ?? config.reportsDir),
    junit: flag(input.junit, true),
    progress: flag(input.progress, true),
    pipelineOwner: env.BENCH_PIPELINE_OWNER === 'cli' ? 'cli' : 'reporter',
  });
}

const STATUS: Readonly<Record<string, TestStatus>> = { passed: 'passed', failed: 'failed', todo: 'todo' };

export default class BenchmarkReporter implements Reporter {
  private readonly options: BenchmarkReporterOptions;
  private readonly secrets = secretsOf(getConfig().amqpUrl);
  private readonly startedAt = new Date();
  private readonly tests = new Map<string, TestOutcome>();
  private readonly suiteErrors = new Map<string, SuiteError>();
  private readonly seenResultFiles = new Set<string>();
  private active = false;
  private lastError: Error | undefined;

  constructor(
    private readonly globalConfig: Config.GlobalConfig,
    input: BenchmarkReporterInput = {},
  ) {
    this.options = resolveBenchmarkReporterOptions(input);
  }

  onTestFileStart(test: Test): void {
    if (!this.isBenchmark(test.context.config)) return;
    if (!this.active) {
      this.active = true;
      this.saveOutcome(false);
    }
  }

  onTestCaseResult(test: Test, testCase: TestCaseResult): void {
    if (!this.isBenchmark(test.context.config)) return;
    const outcome = this.outcomeOf(test.path, testCase);
    this.tests.set(outcome.test_id, outcome);
    this.saveOutcome(false);
    if (this.options.progress) this.printProgress(outcome);
  }

  onTestFileResult(test: Test, testResult: TestResult): void {
    if (!this.isBenchmark(test.context.config)) return;
    // The file's final word: also the tests that never started (skipped, todo).
    for (const testCase of testResult.testResults) {
      const outcome = this.outcomeOf(test.path, testCase);
      this.tests.set(outcome.test_id, outcome);
    }
    const file = this.relative(test.path);
    if (testResult.testExecError || (testResult.failureMessage && testResult.testResults.length === 0)) {
      const message = testResult.testExecError?.message ?? testResult.failureMessage ?? 'test file failed to run';
      this.suiteErrors.set(file, { file, message: redactSecrets(stripAnsi(message), this.secrets).slice(0, 4000) });
    }
    this.saveOutcome(false);
  }

  async onRunComplete(contexts: Set<TestContext>, results: AggregatedResult): Promise<void> {
    const benchmarkResults = results.testResults.filter((result) => result.displayName?.name === this.options.project);
    if (!this.active && benchmarkResults.length === 0) return;
    this.saveOutcome(true);
    const nothingRan = nothingRanLine(this.currentOutcome(true), this.freshResultCount());
    if (nothingRan !== null) {
      // The run script says this itself, with what it puts back; a plain `jest` run hears it here,
      // and fails: a run that executed no test must never look like one that passed.
      if (this.options.pipelineOwner === 'reporter') {
        this.lastError = new Error(`benchmark reporter: ${nothingRan}`);
        process.stderr.write(`[bench] ${nothingRan}\n`);
      }
      return;
    }
    try {
      if (this.options.junit) await this.writeJunit(contexts, results, benchmarkResults);
      if (this.options.pipelineOwner === 'reporter') await this.runPipeline(results);
    } catch (error) {
      this.lastError = new Error(`benchmark reporter: ${describeError(error)}`);
      process.stderr.write(`bench: ${redactSecrets(this.lastError.message, this.secrets)}\n`);
    }
  }

  getLastError(): Error | undefined {
    return this.lastError;
  }

  private isBenchmark(config: Config.ProjectConfig): boolean {
    return config.displayName?.name === this.options.project;
  }

  private relative(testPath: string): string {
    return path.relative(this.globalConfig.rootDir, testPath).split(path.sep).join('/');
  }

  private outcomeOf(testPath: string, testCase: TestCaseResult): TestOutcome {
    const failure = testCase.failureMessages[0];
    return {
      test_id: testIdIn(this.globalConfig.rootDir, testPath, testCase.ancestorTitles, testCase.title),
      full_name: testCase.fullName,
      status: STATUS[testCase.status] ?? 'skipped',
      duration_ms: testCase.duration ?? null,
      // When it started: with the durations, where a run's time went (src/run/timeBudget.ts).
      ...(typeof testCase.startAt === 'number' ? { started_at: new Date(testCase.startAt).toISOString() } : {}),
      failure_message: failure ? redactSecrets(stripAnsi(failure), this.secrets).slice(0, 4000) : null,
    };
  }

  private saveOutcome(complete: boolean): void {
    try {
      writeOutcome(this.options.rawResultsDir, this.currentOutcome(complete));
    } catch (error) {
      process.stderr.write(`bench: could not write the test outcome: ${describeError(error)}\n`);
    }
  }

  private currentOutcome(complete: boolean): JestOutcome {
    return {
      schema_version: 1,
      started_at: this.startedAt.toISOString(),
      updated_at: new Date().toISOString(),
      complete,
      tests: [...this.tests.values()],
      suite_errors: [...this.suiteErrors.values()],
    };
  }

  /**
   * `[bench] ✓ TestX test_y[10] · 12.3 s · publish_throughput: Throughput msgs per sec 52,000 msg/s`:
   * one line per finished benchmark, with the first figure of each result it wrote (a suite's own
   * progress line, if any, says more).
   */
  private printProgress(outcome: TestOutcome): void {
    const mark = outcome.status === 'passed' ? '✓' : outcome.status === 'failed' ? '✗' : '○';
    const parts = [`[bench] ${mark} ${outcome.full_name}`];
    if (outcome.duration_ms !== null) parts.push(`${(outcome.duration_ms / 1000).toFixed(1)} s`);
    for (const result of this.newResults()) {
      const [metricName, metric] = Object.entries(result.metrics)[0] ?? [];
      parts.push(metric ? `${result.name}: ${humanizeMetricName(metricName!)} ${formatValue(metric.value, metric.unit)}` : result.name);
    }
    process.stderr.write(`${parts.join(' · ')}\n`);
  }

  /** Raw results written since this run started. */
  private freshResultCount(): number {
    return collectRawResults(this.options.rawResultsDir, { modifiedSinceMs: this.startedAt.getTime() - 1000 }).results.length;
  }

  private newResults(): RawResult[] {
    const collected = collectRawResults(this.options.rawResultsDir, { modifiedSinceMs: this.startedAt.getTime() - 1000 });
    const fresh = collected.results.filter((_, index) => !this.seenResultFiles.has(collected.files[index]!));
    collected.files.forEach((file) => this.seenResultFiles.add(file));
    return fresh;
  }

  /** junit.xml for the benchmark tests only, via a temp file and a rename. */
  private async writeJunit(contexts: Set<TestContext>, results: AggregatedResult, benchmarkResults: TestResult[]): Promise<void> {
    const { default: JestJUnit } = await import('jest-junit');
    // The same module instance jest-junit requires by path (testCasePropertiesFile below).
    const properties = await import('./junitTestCaseProperties.js');
    const rawResults = collectRawResults(this.options.rawResultsDir, { modifiedSinceMs: this.startedAt.getTime() - 1000 }).results;
    fs.mkdirSync(this.options.reportsDir, { recursive: true });
    const target = path.join(this.options.reportsDir, 'junit.xml');
    const temp = tempPathFor(target);
    const junit = new JestJUnit(this.globalConfig, {
      outputFile: temp,
      suiteName: 'amqp-bench benchmarks',
      classNameTemplate: '{classname}',
      titleTemplate: '{title}',
      ancestorSeparator: ' › ',
      addFileAttribute: 'true',
      reportTestSuiteErrors: 'true',
      testCasePropertiesDirectory: __dirname,
      testCasePropertiesFile: 'junitTestCaseProperties.js',
    });
    properties.state.lookup = (testCase) => redactDeep(junitPropertiesFor(testCase, rawResults), this.secrets);
    try {
      await junit.onRunComplete?.(contexts, redactDeep({ ...results, testResults: benchmarkResults }, this.secrets));
      commitTempFile(temp, target);
    } finally {
      properties.state.lookup = undefined;
      fs.rmSync(temp, { force: true });
    }
  }

  /** A plain `jest --selectProjects benchmark` run: the reporter archives, records and reports. */
  private async runPipeline(results: AggregatedResult): Promise<void> {
    // Loaded here, not at the top: unit runs never pay for the pipeline (vega, handlebars).
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- lazy on purpose (see above)
    const { captureEnvironment } = require('../src/environment') as typeof Environment;
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- lazy on purpose (see above)
    const { completeRun } = require('../src/run/pipeline') as typeof Pipeline;
    const config = getConfig();
    const startedAt = new Date(results.startTime || this.startedAt.getTime());
    const environment = await captureEnvironment({ amqpUrl: config.amqpUrl });
    const completion = await completeRun({
      environment,
      startedAt,
      finishedAt: new Date(),
      markerExpression: config.markerExpression ?? null,
      testNameFilter: this.globalConfig.testNamePattern || null,
      invokedBy: 'jest-reporter',
      jestExitCode: null,
      interrupted: results.wasInterrupted,
      rawResultsDir: this.options.rawResultsDir,
      reportsDir: this.options.reportsDir,
      // Our own record, not the file: another `jest` run may share the raw-results folder.
      outcome: this.currentOutcome(true),
      resultsModifiedSinceMs: startedAt.getTime() - 1000,
      thresholdPercent: null,
      secrets: this.secrets,
    });
    // onRunComplete checked this already; the pipeline guards it all the same.
    if (completion.kind === 'nothing-ran') return;
    const outcome = completion.finalized;
    process.stderr.write(
      `[bench] archived ${outcome.archive.results.length} result(s) in ${outcome.archivePath}\n` +
        (outcome.reportPath ? `[bench] report: ${outcome.reportPath}\n` : ''),
    );
    if (outcome.historyError || outcome.reportError) throw new Error(outcome.historyError ?? outcome.reportError ?? '');
  }
}

function stripAnsi(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\u001b\[[0-9;]*m/g, '');
}
