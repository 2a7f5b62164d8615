/**
 * The benchmark reporter (Jest reporter interface). Always listed in jest.config.ts, it acts only
 * on test files of the `benchmark` project, so unit runs are untouched:
 * - while the run goes on: a progress line per benchmark with its headline figure, and each
 *   test's outcome appended to the test outcome's journal (`.jest-outcome.json` and its
 *   `.jsonl` in the raw-results folder, src/results/outcome.ts), so an interrupted run still
 *   knows what passed. What a finished test costs does not grow with the run: the outcome gets
 *   one line, and only the raw results written since the last test are read (their names come
 *   from an index `recordResult` appends to, src/results/writtenResults.ts; a test that ran and
 *   announced none has the folder listed, for results written some other way);
 * - at the end: the whole outcome written once, the run's raw results collected once for all
 *   that follows, junit.xml through jest-junit (benchmark tests only, key metrics as testcase
 *   properties, passwords masked, written atomically), then, on a plain `jest` run, the whole
 *   pipeline (archive, history, comparison, report). Under the run script
 *   (BENCH_PIPELINE_OWNER=cli) the script does the pipeline after Jest exits, Ctrl-C or not.
 * - a run that executed no benchmark test writes none of it (the last junit.xml, report, charts
 *   and history stay); on a plain `jest` run it says so in one line and fails the run.
 */
import fs from 'node:fs';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import type { AggregatedResult, Reporter, Test, TestCaseResult, TestContext, TestResult } from '@jest/reporters';
import type { Config } from '@jest/types';
import { getConfig } from '../src/config';
import { describeError } from '../src/errors';
import { junitPropertiesFor } from '../src/results/junitProperties';
import { appendOutcome, type JestOutcome, type SuiteError, type TestOutcome, type TestStatus, writeOutcome } from '../src/results/outcome';
import { nothingRanLine } from '../src/run/nothingRan';
import { removeResultIndex, startResultIndex, WrittenResults } from '../src/results/writtenResults';
import { redactDeep, redactSecrets, secretsOf } from '../src/redact';
import { testIdIn } from '../src/results/testMatch';
import { formatValue, humanizeMetricName } from '../src/report/format';
import { collectRawResults, type CollectedResults } from '../src/results/collect';
import { commitTempFile, tempPathFor } from '../src/io/atomicFile';
import type * as Environment from '../src/environment';
import type * as Pipeline from '../src/run/pipeline';
import { type BenchmarkReporterInput, type BenchmarkReporterOptions, resolveBenchmarkReporterOptions } from './reporterOptions';

const STATUS: Readonly<Record<string, TestStatus>> = { passed: 'passed', failed: 'failed', todo: 'todo' };

export default class BenchmarkReporter implements Reporter {
  private readonly options: BenchmarkReporterOptions;
  private readonly secrets = secretsOf(getConfig().amqpUrl);
  private readonly startedAt = new Date();
  private readonly tests = new Map<string, TestOutcome>();
  private readonly suiteErrors = new Map<string, SuiteError>();
  private readonly written: WrittenResults;
  private active = false;
  private lastError: Error | undefined;

  constructor(
    private readonly globalConfig: Config.GlobalConfig,
    input: BenchmarkReporterInput = {},
  ) {
    this.options = resolveBenchmarkReporterOptions(input);
    this.written = new WrittenResults(this.options.rawResultsDir, this.startedAt.getTime() - 1000);
  }

  onTestFileStart(test: Test): void {
    if (!this.isBenchmark(test.context.config)) return;
    if (!this.active) {
      this.active = true;
      // Jest awaits this before it hands the first benchmark file to a worker: the index is there
      // before any result is written.
      this.saveOutcome(false);
      this.tryWriting('the raw results index', () => startResultIndex(this.options.rawResultsDir));
    }
  }

  onTestCaseResult(test: Test, testCase: TestCaseResult): void {
    if (!this.isBenchmark(test.context.config)) return;
    const outcome = this.outcomeOf(test.path, testCase);
    this.record([outcome], []);
    if (this.options.progress) this.printProgress(outcome);
  }

  onTestFileResult(test: Test, testResult: TestResult): void {
    if (!this.isBenchmark(test.context.config)) return;
    // The file's final word: also the tests that never started (skipped, todo); what is known already is not appended again.
    const changed = testResult.testResults
      .map((testCase) => this.outcomeOf(test.path, testCase))
      .filter((outcome) => !isDeepStrictEqual(this.tests.get(outcome.test_id), outcome));
    const file = this.relative(test.path);
    const suiteErrors: SuiteError[] = [];
    if (testResult.testExecError || (testResult.failureMessage && testResult.testResults.length === 0)) {
      const message = testResult.testExecError?.message ?? testResult.failureMessage ?? 'test file failed to run';
      suiteErrors.push({ file, message: redactSecrets(stripAnsi(message), this.secrets).slice(0, 4000) });
    }
    this.record(changed, suiteErrors);
  }

  async onRunComplete(contexts: Set<TestContext>, results: AggregatedResult): Promise<void> {
    const benchmarkResults = results.testResults.filter((result) => result.displayName?.name === this.options.project);
    if (!this.active && benchmarkResults.length === 0) return;
    this.saveOutcome(true);
    this.tryWriting('the raw results index', () => removeResultIndex(this.options.rawResultsDir));
    // The whole run's raw results, read once for all that follows; from the earlier of the two starts.
    const sinceMs = Math.min(this.startedAt.getTime(), results.startTime || Infinity) - 1000;
    const collected = collectRawResults(this.options.rawResultsDir, { modifiedSinceMs: sinceMs });
    const nothingRan = nothingRanLine(this.currentOutcome(true), collected.results.length);
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
      if (this.options.junit) await this.writeJunit(contexts, results, benchmarkResults, collected);
      if (this.options.pipelineOwner === 'reporter') await this.runPipeline(results, collected, sinceMs);
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

  /** The whole outcome (at the run's start, and once complete at its end). */
  private saveOutcome(complete: boolean): void {
    this.tryWriting('the test outcome', () => writeOutcome(this.options.rawResultsDir, this.currentOutcome(complete)));
  }

  /** Takes in what changed and appends it to the outcome's journal: one line, whatever the run's size. */
  private record(tests: readonly TestOutcome[], suiteErrors: readonly SuiteError[]): void {
    for (const outcome of tests) this.tests.set(outcome.test_id, outcome);
    for (const error of suiteErrors) this.suiteErrors.set(error.file, error);
    if (tests.length === 0 && suiteErrors.length === 0) return;
    const update: JestOutcome = { ...this.currentOutcome(false, false), tests, suite_errors: suiteErrors };
    this.tryWriting('the test outcome', () => appendOutcome(this.options.rawResultsDir, update));
  }

  private tryWriting(what: string, write: () => void): void {
    try {
      write();
    } catch (error) {
      process.stderr.write(`bench: could not write ${what}: ${describeError(error)}\n`);
    }
  }

  /** What is known so far (`withTests` false: the header alone, for a journal line). */
  private currentOutcome(complete: boolean, withTests = true): JestOutcome {
    return {
      schema_version: 1,
      started_at: this.startedAt.toISOString(),
      updated_at: new Date().toISOString(),
      complete,
      tests: withTests ? [...this.tests.values()] : [],
      suite_errors: withTests ? [...this.suiteErrors.values()] : [],
    };
  }

  /**
   * `[bench] ✓ TestX test_y[10] · 12.3 s · publish_throughput: Throughput msgs per sec 52,000 msg/s`:
   * one line per finished benchmark, with the first figure of each result written since the
   * last line (a suite's own progress line, if any, says more).
   */
  private printProgress(outcome: TestOutcome): void {
    const mark = outcome.status === 'passed' ? '✓' : outcome.status === 'failed' ? '✗' : '○';
    const parts = [`[bench] ${mark} ${outcome.full_name}`];
    if (outcome.duration_ms !== null) parts.push(`${(outcome.duration_ms / 1000).toFixed(1)} s`);
    // A test that ran and announced no result may have written one some other way: then the folder is listed.
    const ran = outcome.status === 'passed' || outcome.status === 'failed';
    for (const result of this.written.takeNew(ran)) {
      const [metricName, metric] = Object.entries(result.metrics)[0] ?? [];
      // Why is in the suite's own progress line and the result.
      if (result.cannot_run) parts.push(`${result.name}: cannot run`);
      else
        parts.push(metric ? `${result.name}: ${humanizeMetricName(metricName!)} ${formatValue(metric.value, metric.unit)}` : result.name);
    }
    process.stderr.write(`${parts.join(' · ')}\n`);
  }

  /** junit.xml for the benchmark tests only, via a temp file and a rename. */
  private async writeJunit(
    contexts: Set<TestContext>,
    results: AggregatedResult,
    benchmarkResults: TestResult[],
    collected: CollectedResults,
  ): Promise<void> {
    const { default: JestJUnit } = await import('jest-junit');
    // The same module instance jest-junit requires by path (testCasePropertiesFile below).
    const properties = await import('./junitTestCaseProperties.js');
    const rawResults = collected.results;
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
  private async runPipeline(results: AggregatedResult, collected: CollectedResults, resultsModifiedSinceMs: number): Promise<void> {
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
      collected,
      resultsModifiedSinceMs,
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
