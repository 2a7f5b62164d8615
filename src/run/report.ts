/**
 * Compare and report: the comparison with the previous usable run (and its build's history), then
 * the Markdown report with its charts. Shared by every finished run (record.ts) and by
 * `bench report` (reportOnly.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describeError } from '../errors';
import { getConfig } from '../config';
import { writeReport } from '../report/render';
import type { ReportView } from '../report/view';
import { readRunArchive, type RunArchive } from '../results/archive';
import { chooseBaseline } from '../results/baseline';
import { compareRuns, DEFAULT_ALPHA, resultKey, type ComparableRun, type RunComparison } from '../results/compare';
import { regressionsBeyond, type Regression } from '../results/gate';
import type { HistoryEntry } from '../results/history';
import { citedVerification, readVerifications, VERIFICATIONS_FILE_NAME, type CitedVerification } from '../results/verifications';
import type { MinimumEffects } from '../minimumEffects';

export interface ReportOutcome {
  readonly comparison: RunComparison | null;
  readonly comparisonNote: string | null;
  readonly regressions: readonly Regression[];
  readonly reportPath: string | null;
  readonly view: ReportView | null;
  /** Set when the report could not be written (the archive and history are safe regardless). */
  readonly reportError: string | null;
}

/** Where a run's report is written and what it must not say: what every way to a report is given. */
export interface ReportWriting {
  readonly reportsDir: string;
  readonly templatePath?: string;
  readonly thresholdPercent: number | null;
  readonly secrets: readonly string[];
}

/** `options`' report settings and nothing else of them (a caller's options carry more). */
export function reportWritingOf({ reportsDir, templatePath, thresholdPercent, secrets }: ReportWriting): ReportWriting {
  return { reportsDir, templatePath, thresholdPercent, secrets };
}

export interface ReportForInput extends ReportWriting {
  readonly archive: RunArchive;
  readonly archivePath: string;
  /** History entries before this run, oldest first. */
  readonly earlier: readonly HistoryEntry[];
  readonly historyRuns: readonly HistoryEntry[];
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
      verification: verificationOf(input.archive, input.reportsDir, input.warn),
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

/** The `bench verify` this run's report cites: of its build on this kind of machine, else the nearest earlier one. */
function verificationOf(archive: RunArchive, reportsDir: string, warn: (message: string) => void): CitedVerification | null {
  const read = readVerifications(reportsDir);
  if (read.corrupt) warn(`${VERIFICATIONS_FILE_NAME} not used: ${read.corrupt.reason}`);
  const { environment } = archive;
  return citedVerification(read.verifications, environment.fingerprint, environment, new Date(archive.started_at));
}
