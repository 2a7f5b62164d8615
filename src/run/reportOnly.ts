/**
 * `bench report`: rebuilds the report of an archived run from what is on disk (the archive,
 * the history, the previous archive), running nothing and changing nothing but the report.
 */
import fs from 'node:fs';
import path from 'node:path';
import { BenchError } from '../errors';
import { listRunArchives, readRunArchive, type RunArchive } from '../results/archive';
import { historyEntryOf, readHistory, type HistoryEntry } from '../results/history';
import { reportFor, reportWritingOf, type ReportOutcome, type ReportWriting } from './report';

export interface RebuildReportOptions extends ReportWriting {
  /** Which run; @default the latest archived one */
  readonly runId?: string;
  readonly warn?: (message: string) => void;
}

export interface RebuildReportResult extends ReportOutcome {
  readonly archive: RunArchive;
  readonly archivePath: string;
  readonly historyRuns: number;
}

export async function rebuildReport(options: RebuildReportOptions): Promise<RebuildReportResult> {
  const warnings: string[] = [];
  const warn = (message: string) => {
    warnings.push(message);
    (options.warn ?? ((text: string) => process.stderr.write(`bench: warning: ${text}\n`)))(message);
  };
  const entries = runsOnDisk(options.reportsDir, warn);
  const archived = entries.filter((entry) => fs.existsSync(path.join(options.reportsDir, entry.archive_file)));
  const chosen = options.runId ? archived.find((entry) => entry.run_id === options.runId) : archived[archived.length - 1];
  if (!chosen) {
    throw new BenchError(
      'RESULT_INVALID',
      options.runId
        ? `no archive of run ${options.runId} in ${options.reportsDir}; runs archived there: ${archived.map((entry) => entry.run_id).join(', ') || 'none'}`
        : `no archived run in ${options.reportsDir}; run \`npm run bench:quick\` first (or pass --output <dir>)`,
    );
  }
  const index = entries.indexOf(chosen);
  const archivePath = path.join(options.reportsDir, chosen.archive_file);
  const archive = readRunArchive(archivePath);
  const report = await reportFor({
    archive,
    archivePath,
    earlier: entries.slice(0, index),
    historyRuns: entries.slice(0, index + 1),
    ...reportWritingOf(options),
    warnings,
    warn,
  });
  return { ...report, archive, archivePath, historyRuns: index + 1 };
}

/** The history's runs; when the history is missing or corrupt, the archives themselves (oldest first). */
function runsOnDisk(reportsDir: string, warn: (message: string) => void): HistoryEntry[] {
  const read = readHistory(reportsDir);
  if (read.corrupt)
    warn(`the history did not parse (${read.corrupt.reason}); using the run archives instead (the next run moves the file aside)`);
  if (!read.corrupt && read.history.runs.length > 0) return [...read.history.runs];
  const entries: HistoryEntry[] = [];
  for (const filePath of listRunArchives(reportsDir)) {
    try {
      entries.push(historyEntryOf(readRunArchive(filePath), filePath));
    } catch (error) {
      warn(`${path.basename(filePath)} skipped: ${(error as Error).message}`);
    }
  }
  return entries;
}
