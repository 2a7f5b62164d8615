/**
 * The history: `benchmark_history.json`, one entry per run, enough for trend charts and for a
 * comparison when an archive is gone. Updated only under a lock; a file that does not parse is
 * moved aside (`benchmark_history.corrupt-<timestamp>.json`), reported, and never overwritten.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { RunArchive } from './archive';
import { isRecord } from './collect';
import type { DeepReadonly } from './deepReadonly';
import { upgradeRun } from './legacyParameters';
import { withFileLock, type FileLockOptions } from './fileLock';
import { testsRun } from './outcome';
import { writeJsonSafely } from './safeWrite';
import type * as Schema from '../schemaTypes';
import { assertFollowsSchema } from './schemas';
import { moveCorruptAside, readVersionedJson } from './versionedFile';

export const HISTORY_SCHEMA_VERSION = 1;
export const HISTORY_FILE_NAME = 'benchmark_history.json';

// Generated from schemas/benchmark-history.schema.json, read-only.
export type History = DeepReadonly<Schema.BenchmarkHistory>;
export type HistoryEntry = DeepReadonly<Schema.HistoryEntry>;
export type HistoryResult = DeepReadonly<Schema.HistoryResult>;

export interface HistoryRead {
  readonly history: History;
  /** Set when the file did not parse or does not follow its schema, and was moved aside (or, read-only, would have been). */
  readonly corrupt?: { readonly reason: string; readonly movedTo: string | null };
}

export function historyPath(reportsDir: string): string {
  return path.join(reportsDir, HISTORY_FILE_NAME);
}

/** The history entry of an archived run (pure). */
export function historyEntryOf(archive: RunArchive, archiveFile: string): HistoryEntry {
  return {
    run_id: archive.run_id,
    archive_file: path.basename(archiveFile),
    status: archive.status,
    started_at: archive.started_at,
    finished_at: archive.finished_at,
    duration_ms: archive.duration_ms,
    fingerprint: archive.environment.fingerprint,
    git_commit: archive.environment.git_commit,
    git_dirty: archive.environment.git_dirty,
    node_version: archive.environment.node_version,
    platform: archive.environment.platform,
    marker_expression: archive.marker_expression,
    test_name_filter: archive.test_name_filter,
    counts: archive.counts,
    tests_run: testsRun(archive.counts),
    key_metrics: archive.key_metrics,
    results: archive.results.map((result) => ({
      name: result.name,
      category: result.category,
      parameters: result.parameters,
      metrics: Object.fromEntries(
        Object.entries(result.metrics).map(([name, metric]) => [
          name,
          { value: metric.value, unit: metric.unit, direction: metric.direction },
        ]),
      ),
    })),
  };
}

const emptyHistory = (): History => ({ schema_version: HISTORY_SCHEMA_VERSION, updated_at: new Date().toISOString(), runs: [] });

/** Why `value` is not a history we can extend, or undefined when it is one. */
function historyProblem(value: unknown): string | undefined {
  if (!isRecord(value)) return 'not a JSON object';
  if (typeof value.schema_version !== 'number') return 'schema_version missing';
  if (!Array.isArray(value.runs)) return '"runs" is not an array';
  const bad = value.runs.findIndex((run) => !isRecord(run) || typeof run.run_id !== 'string' || typeof run.started_at !== 'string');
  return bad >= 0 ? `runs[${bad}] has no run_id/started_at` : undefined;
}

export interface ReadHistoryOptions {
  /** Move a corrupt file aside (writers do; read-only commands leave it). @default false */
  readonly moveCorruptAside?: boolean;
  readonly now?: () => Date;
}

/**
 * Reads the history (missing = empty). A corrupt file is reported in `corrupt` and, when
 * asked, renamed to `benchmark_history.corrupt-<timestamp>.json` so nothing is lost.
 * @throws BenchError when the file was written by a newer schema (we must not rewrite it).
 */
export function readHistory(reportsDir: string, options: ReadHistoryOptions = {}): HistoryRead {
  const filePath = historyPath(reportsDir);
  const read = readVersionedJson(filePath, 'benchmark-history.schema.json', HISTORY_SCHEMA_VERSION, historyProblem);
  if (read.kind === 'missing') return { history: emptyHistory() };
  if (read.kind === 'ok') {
    const history = read.value as History;
    // Older entries in today's parameter names (legacyParameters.ts), so they still compare with new runs.
    return { history: { ...history, runs: history.runs.map(upgradeHistoryEntry) } };
  }
  const movedTo = options.moveCorruptAside ? moveCorruptAside(filePath, options.now?.() ?? new Date()) : null;
  return { history: emptyHistory(), corrupt: { reason: read.reason, movedTo } };
}

/** A history entry with its results and key metrics in today's parameter names (legacyParameters.ts). */
export function upgradeHistoryEntry(entry: HistoryEntry): HistoryEntry {
  return upgradeRun(entry);
}

export interface AppendResult {
  readonly history: History;
  /** The entries that were already there before ours, oldest first. */
  readonly earlier: readonly HistoryEntry[];
  readonly corrupt?: HistoryRead['corrupt'];
}

/** Appends `entry` under the history lock (read, append, atomic write). */
export function appendToHistory(
  reportsDir: string,
  entry: HistoryEntry,
  options: { lock?: FileLockOptions; secrets?: readonly string[]; now?: () => Date } = {},
): AppendResult {
  fs.mkdirSync(reportsDir, { recursive: true });
  const filePath = historyPath(reportsDir);
  return withFileLock(
    `${filePath}.lock`,
    () => {
      const read = readHistory(reportsDir, { moveCorruptAside: true, now: options.now });
      const earlier = read.history.runs.filter((run) => run.run_id !== entry.run_id);
      const history: History = {
        schema_version: HISTORY_SCHEMA_VERSION,
        updated_at: (options.now?.() ?? new Date()).toISOString(),
        runs: [...earlier, entry],
      };
      assertFollowsSchema('benchmark-history.schema.json', history, `the history with run ${entry.run_id}`);
      writeJsonSafely(filePath, history, options.secrets);
      return { history, earlier, ...(read.corrupt ? { corrupt: read.corrupt } : {}) };
    },
    options.lock,
  );
}

/**
 * The run to compare with: the latest earlier run that passed and shares at least one result
 * (same name and parameters, `keyOf`) with this one, so a run filtered to other tests in between
 * does not leave the comparison empty; else the latest earlier run that passed with results.
 * A run that failed part-way or was interrupted is never the baseline: its figures may come from
 * a broken setup (a wedged proxy, a broker that went away), and a comparison would call them a
 * regression or an improvement.
 */
export function previousRunWithResults(
  earlier: readonly HistoryEntry[],
  currentKeys?: ReadonlySet<string>,
  keyOf?: (result: HistoryEntry['results'][number]) => string,
): HistoryEntry | undefined {
  const withResults = earlier.filter((run) => run.status === 'passed' && run.results.length > 0);
  if (currentKeys && keyOf) {
    for (let index = withResults.length - 1; index >= 0; index -= 1) {
      if (withResults[index]!.results.some((result) => currentKeys.has(keyOf(result)))) return withResults[index];
    }
  }
  return withResults[withResults.length - 1];
}
