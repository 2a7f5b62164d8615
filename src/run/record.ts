/**
 * The one step every finished run goes through, whoever finished it (the run script, the Jest
 * reporter, `bench merge`): write the archive (a new file, never overwritten), append to the
 * history (locked), then compare and report (`reportFor`). Each later step runs even when an
 * earlier one could not: a history that cannot be written leaves the archive, and a report that
 * cannot be written leaves both.
 */
import { getConfig } from '../config';
import { describeError } from '../errors';
import { writeRunArchive, type RunArchive } from '../results/archive';
import { appendToHistory, historyEntryOf, historyPath, type History, type HistoryEntry } from '../results/history';
import { reportFor, reportWritingOf, type ReportOutcome, type ReportWriting } from './report';

export interface RecordRunOptions extends ReportWriting {
  /** Warnings already raised for this run (shown in its report). */
  readonly warnings: readonly string[];
  readonly warn: (message: string) => void;
}

export interface RecordedRun extends ReportOutcome {
  readonly archive: RunArchive;
  readonly archivePath: string;
  readonly history: History | null;
  readonly historyPath: string;
  readonly historyError: string | null;
}

/** Archives `built`, records it in the history and writes its report. */
export async function recordRun(built: RunArchive, options: RecordRunOptions): Promise<RecordedRun> {
  const warnings = [...options.warnings];
  const warn = (message: string) => {
    warnings.push(message);
    options.warn(message);
  };
  const { archive, filePath: archivePath } = writeRunArchive(built, options.reportsDir, options.secrets, getConfig().runIdClaimsDir);
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
    ...reportWritingOf(options),
    warnings,
    warn,
  });
  return { archive, archivePath, history, historyPath: historyPath(options.reportsDir), historyError, ...report };
}
