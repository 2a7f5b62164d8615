/**
 * The end of a run, in the order that never loses data: collect the raw results, write the run
 * archive (a new file, never overwritten), append to the history (locked), compare with the
 * previous run, then render the report. A failure in a later step leaves the earlier ones done.
 * A run that executed no test and produced no result writes nothing at all (`completeRun`): the
 * last report, its charts and the history stay as they were.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describeError } from '../errors';
import { writeReport } from '../report/render';
import type { ReportView } from '../report/view';
import { buildRunArchive, readRunArchive, writeRunArchive, type RunArchive, type RunArchiveInput } from './archive';
import { collectRawResults, type CollectedResults } from './collect';
import {
  compareRuns,
  DEFAULT_ALPHA,
  regressionsBeyond,
  resultKey,
  type ComparableRun,
  type Regression,
  type RunComparison,
} from './compare';
import { getConfig } from '../config';
import { chooseBaseline } from './baseline';
import { appendToHistory, historyEntryOf, historyPath, type History, type HistoryEntry } from './history';
import type { MinimumEffects } from './minimumEffects';
import { countTests, readOutcome, testsRun, type JestOutcome, type SuiteError, type TestCounts } from './outcome';

export interface FinalizeRunOptions extends Pick<
  RunArchiveInput,
  'environment' | 'startedAt' | 'finishedAt' | 'markerExpression' | 'testNameFilter' | 'invokedBy' | 'jestExitCode' | 'interrupted'
> {
  readonly rawResultsDir: string;
  readonly reportsDir: string;
  /** The reporter passes what it knows; the run script leaves it to the file the reporter wrote. */
  readonly outcome?: JestOutcome;
  /** Collect only raw results written since (plain `jest` runs do not clear old ones). */
  readonly resultsModifiedSinceMs?: number;
  /** The raw results, when the caller already collected them (`completeRun` does). */
  readonly collected?: CollectedResults;
  readonly templatePath?: string;
  readonly thresholdPercent: number | null;
  readonly secrets: readonly string[];
  /** Where warnings go as they happen. @default stderr */
  readonly warn?: (message: string) => void;
}

export interface ReportOutcome {
  readonly comparison: RunComparison | null;
  readonly comparisonNote: string | null;
  readonly regressions: readonly Regression[];
  readonly reportPath: string | null;
  readonly view: ReportView | null;
  /** Set when the report could not be written (the archive and history are safe regardless). */
  readonly reportError: string | null;
}

export interface FinalizeRunResult extends ReportOutcome {
  readonly archive: RunArchive;
  readonly archivePath: string;
  readonly history: History | null;
  readonly historyPath: string;
  readonly historyError: string | null;
  readonly warnings: readonly string[];
}

/** A run that executed no test and produced no raw result: nothing is archived, recorded or reported. */
export interface NothingRan {
  readonly counts: TestCounts;
  /** False when Jest left no outcome: it stopped before any benchmark file ran (e.g. globalSetup failed). */
  readonly outcomeFound: boolean;
  /** Test files that could not run, and why (first lines of Jest's message). */
  readonly suiteErrors: readonly SuiteError[];
}

export type RunCompletion =
  { readonly kind: 'archived'; readonly finalized: FinalizeRunResult } | { readonly kind: 'nothing-ran'; readonly nothingRan: NothingRan };

const defaultWarn = (message: string) => process.stderr.write(`bench: warning: ${message}\n`);

/**
 * The end of a run as the run script and the reporter see it: a run that executed no test and
 * produced no raw result is reported back as `nothing-ran` without writing anything (no archive,
 * no history entry, no report); any other run is finalized (`finalizeRun`), a failed one too.
 */
export async function completeRun(options: FinalizeRunOptions): Promise<RunCompletion> {
  const collected = options.collected ?? collectRawResults(options.rawResultsDir, { modifiedSinceMs: options.resultsModifiedSinceMs });
  const outcome = options.outcome ?? readOutcome(options.rawResultsDir);
  const counts = countTests(outcome?.tests ?? [], outcome?.suite_errors ?? []);
  if (testsRun(counts) === 0 && collected.results.length === 0) {
    return { kind: 'nothing-ran', nothingRan: { counts, outcomeFound: outcome !== undefined, suiteErrors: outcome?.suite_errors ?? [] } };
  }
  return { kind: 'archived', finalized: await finalizeRun({ ...options, outcome, collected }) };
}

/** Archives, records and reports the run, whatever it produced (runs go through `completeRun`). */
export async function finalizeRun(options: FinalizeRunOptions): Promise<FinalizeRunResult> {
  const warnings: string[] = [];
  const warn = (message: string) => {
    warnings.push(message);
    (options.warn ?? defaultWarn)(message);
  };
  const collected = options.collected ?? collectRawResults(options.rawResultsDir, { modifiedSinceMs: options.resultsModifiedSinceMs });
  const outcome = options.outcome ?? readOutcome(options.rawResultsDir);
  if (!outcome) warn('Jest left no test outcome (it stopped before any test finished); the archive lists results only');
  else if (!outcome.complete && !options.interrupted)
    warn('Jest stopped before the end of the run; the archive holds the tests that finished');

  const built = buildRunArchive({
    environment: options.environment,
    startedAt: options.startedAt,
    finishedAt: options.finishedAt,
    markerExpression: options.markerExpression,
    testNameFilter: options.testNameFilter,
    invokedBy: options.invokedBy,
    jestExitCode: options.jestExitCode,
    interrupted: options.interrupted,
    tests: outcome?.tests ?? [],
    suiteErrors: outcome?.suite_errors ?? [],
    results: collected.results,
    invalidResultFiles: collected.invalid,
    warnings: [],
  });
  const { archive, filePath: archivePath } = writeRunArchive(built, options.reportsDir, options.secrets);

  let history: History | null = null;
  let earlier: readonly HistoryEntry[] = [];
  let historyError: string | null = null;
  try {
    const appended = appendToHistory(options.reportsDir, historyEntryOf(archive, archivePath), { secrets: options.secrets });
    history = appended.history;
    earlier = appended.earlier;
    if (appended.corrupt) {
      warn(
        `${historyPath(options.reportsDir)} did not parse (${appended.corrupt.reason}); moved to ${appended.corrupt.movedTo} and a new history started`,
      );
    }
  } catch (error) {
    historyError = describeError(error);
    warn(`history not updated: ${historyError} (the run is archived in ${archivePath})`);
  }

  const report = await reportFor({
    archive,
    archivePath,
    earlier,
    historyRuns: history?.runs ?? [...earlier, historyEntryOf(archive, archivePath)],
    reportsDir: options.reportsDir,
    templatePath: options.templatePath,
    thresholdPercent: options.thresholdPercent,
    secrets: options.secrets,
    warnings,
    warn,
  });
  return { archive, archivePath, history, historyPath: historyPath(options.reportsDir), historyError, warnings, ...report };
}

export interface ReportForInput {
  readonly archive: RunArchive;
  readonly archivePath: string;
  /** History entries before this run, oldest first. */
  readonly earlier: readonly HistoryEntry[];
  readonly historyRuns: readonly HistoryEntry[];
  readonly reportsDir: string;
  readonly templatePath?: string;
  readonly thresholdPercent: number | null;
  readonly secrets: readonly string[];
  readonly warnings: readonly string[];
  readonly warn: (message: string) => void;
  /** @default BENCH_MIN_EFFECTS (the configuration) */
  readonly minimumEffects?: MinimumEffects;
}

/** Comparison with the previous usable run and its build's history, then the report (shared by runs and `bench report`). */
export async function reportFor(input: ReportForInput): Promise<ReportOutcome> {
  const currentKeys = new Set(input.archive.results.map((result) => resultKey(result)));
  const minimumEffects = input.minimumEffects ?? getConfig().minimumEffects;
  const baseline = chooseBaseline(input.earlier, currentKeys, resultKey, minimumEffects.historyRuns);
  let comparison: RunComparison | null = null;
  let comparisonNote: string | null =
    input.earlier.length === 0
      ? 'First run in the history: nothing to compare with yet.'
      : 'No earlier run that passed and has results to compare with (failed, interrupted and empty runs are never a baseline).';
  if (baseline) {
    comparison = compareRuns(comparableOf(baseline.previous, input.reportsDir, input.warn), comparableFromArchive(input.archive), {
      alpha: DEFAULT_ALPHA,
      history: baseline.history,
      minimumEffects,
    });
    comparisonNote = null;
  }
  const regressions = comparison && input.thresholdPercent !== null ? regressionsBeyond(comparison, input.thresholdPercent) : [];
  try {
    const { reportPath, view } = await writeReport({
      archive: input.archive,
      archiveFile: path.basename(input.archivePath),
      historyRuns: input.historyRuns,
      comparison,
      comparisonNote,
      thresholdPercent: input.thresholdPercent,
      regressions,
      generatedAt: new Date(),
      warnings: [...input.warnings],
      reportsDir: input.reportsDir,
      templatePath: input.templatePath,
      secrets: input.secrets,
    });
    return { comparison, comparisonNote, regressions, reportPath, view, reportError: null };
  } catch (error) {
    const reportError = describeError(error);
    input.warn(`report not written: ${reportError}`);
    return { comparison, comparisonNote, regressions, reportPath: null, view: null, reportError };
  }
}

export function comparableFromArchive(archive: RunArchive): ComparableRun {
  return {
    run_id: archive.run_id,
    started_at: archive.started_at,
    environment: archive.environment,
    results: archive.results,
  };
}

/** The previous run with its samples when its archive is there, from the history's values otherwise. */
function comparableOf(entry: HistoryEntry, reportsDir: string, warn: (message: string) => void): ComparableRun {
  const archivePath = path.join(reportsDir, entry.archive_file);
  if (fs.existsSync(archivePath)) {
    try {
      return comparableFromArchive(readRunArchive(archivePath));
    } catch (error) {
      warn(`archive ${entry.archive_file} unreadable (${describeError(error)}); comparing with the history's values (no replicates)`);
    }
  } else {
    warn(`archive ${entry.archive_file} of the previous run is missing; comparing with the history's values (no replicates)`);
  }
  const { fingerprint, git_commit, git_dirty, node_version, platform } = entry;
  return {
    run_id: entry.run_id,
    started_at: entry.started_at,
    environment: { fingerprint, git_commit, git_dirty, node_version, platform },
    results: entry.results,
  };
}
