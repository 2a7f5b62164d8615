/**
 * The end of `bench run` once Jest is done: the run is completed (collected, archived, added to
 * the history, compared, reported) by the pipeline, then the one-screen summary and the exit code.
 * A run that executed no test puts the old raw results back and says why.
 */
import fs from 'node:fs';
import path from 'node:path';
import { getConfig } from '../config';
import type { EnvironmentRecord } from '../environment';
import { secretsOf } from '../redact';
import { testsRun } from '../results/outcome';
import { formatNothingRan } from '../run/nothingRan';
import { completeRun } from '../run/pipeline';
import type { JestRunOutcome } from './jestProcess';
import type { RunOptions } from './runOptions';
import type { RunSession } from './runSession';
import { formatComparison, formatSummary } from './summary';

export interface FinishedJest {
  readonly options: RunOptions;
  readonly session: RunSession;
  readonly environment: EnvironmentRecord;
  readonly startedAt: Date;
  readonly finishedAt: Date;
  readonly jest: JestRunOutcome;
}

/** Completes the run and resolves with its exit code (0 passed, 1 failed or nothing ran or a regression, 130 interrupted). */
export async function finishRun(run: FinishedJest, log: (line: string) => void): Promise<number> {
  const { options, session, environment, startedAt, finishedAt, jest } = run;
  // From here on the run is being saved: a Ctrl-C must not cut that short.
  const holdOn = () => log('bench: saving the run, one moment');
  process.on('SIGINT', holdOn);
  try {
    const completion = await completeRun({
      environment,
      startedAt,
      finishedAt,
      markerExpression: options.markerExpression,
      testNameFilter: options.testNameFilter,
      invokedBy: 'cli',
      jestExitCode: jest.exitCode,
      interrupted: jest.interrupted,
      rawResultsDir: options.rawResultsDir,
      reportsDir: options.reportsDir,
      templatePath: options.templatePath,
      thresholdPercent: options.thresholdPercent,
      secrets: secretsOf(getConfig().amqpUrl),
      warn: (message) => log(`bench: warning: ${message}`),
    });
    if (completion.kind === 'nothing-ran') {
      const restoredResults = session.putBack();
      log(
        formatNothingRan({
          nothingRan: completion.nothingRan,
          jestExitCode: jest.exitCode,
          jestSignal: jest.signal,
          interrupted: jest.interrupted,
          markerExpression: options.markerExpression,
          testNameFilter: options.testNameFilter,
          reportsDir: options.reportsDir,
          rawResultsDir: options.rawResultsDir,
          restoredResults,
          cwd: process.cwd(),
        }).trimEnd(),
      );
      return jest.interrupted ? 130 : 1;
    }
    session.finish();
    const { finalized } = completion;
    const { archive } = finalized;
    if (options.compare && finalized.comparison) log(formatComparison(finalized.comparison));
    else if (options.compare) log(`bench: nothing to compare with: ${finalized.comparisonNote ?? 'no previous run'}`);
    log(
      formatSummary({
        archive,
        archivePath: finalized.archivePath,
        reportPath: finalized.reportPath,
        chartCount: finalized.view?.charts.length ?? 0,
        historyPath: finalized.history ? finalized.historyPath : null,
        historyRuns: finalized.history?.runs.length ?? null,
        junitPath: writtenSince(path.join(options.reportsDir, 'junit.xml'), startedAt),
        comparison: finalized.comparison,
        regressions: finalized.regressions,
        thresholdPercent: options.thresholdPercent,
        cwd: process.cwd(),
      }),
    );
    if (jest.interrupted) return 130;
    // Results without a single executed test (Jest's outcome lost): not a run that passed.
    if (archive.status !== 'passed' || testsRun(archive.counts) === 0) return 1;
    if (finalized.historyError || finalized.reportError || finalized.regressions.length > 0) return 1;
    return 0;
  } finally {
    process.off('SIGINT', holdOn);
  }
}

/** The file, if this run wrote it (Jest writes junit.xml only when it reaches the end). */
function writtenSince(filePath: string, since: Date): string | null {
  try {
    return fs.statSync(filePath).mtimeMs >= since.getTime() - 1000 ? filePath : null;
  } catch {
    return null;
  }
}
