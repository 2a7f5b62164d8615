/**
 * A killed run, archived by the run after it from what it left: its manifest (environment, start,
 * selection), its raw results and the outcome of the tests it finished. Status `killed`, with a
 * warning that says when it was last heard of and who archived it. Also: the archive a run wrote
 * before it was killed (so it is never archived twice), and its history entry (added if missing).
 */
import path from 'node:path';
import os from 'node:os';
import { buildRunArchive, listRunArchives, readRunArchive, runIdBase, type RunArchive } from './archive';
import type { CollectedResults } from './collect';
import { appendToHistory, historyEntryOf, readHistory } from './history';
import type { JestOutcome } from './outcome';
import type { RunManifest } from './runManifest';

export interface KilledRunInput {
  readonly manifest: RunManifest;
  readonly collected: CollectedResults;
  readonly outcome: JestOutcome | undefined;
  /** The last time the run wrote anything (its newest file), else its start. */
  readonly lastHeardOfAt: Date;
  readonly recoveredAt: Date;
}

/** The archive of a killed run (pure; the run id gets its final suffix when written). */
export function buildKilledArchive(input: KilledRunInput): RunArchive {
  const { manifest, collected, outcome } = input;
  const startedAt = new Date(manifest.started_at);
  const finishedAt = input.lastHeardOfAt.getTime() < startedAt.getTime() ? startedAt : input.lastHeardOfAt;
  const host = manifest.hostname === os.hostname() ? 'this host' : manifest.hostname;
  return buildRunArchive({
    environment: manifest.environment,
    startedAt,
    finishedAt,
    markerExpression: manifest.marker_expression,
    testNameFilter: manifest.test_name_filter,
    invokedBy: 'cli',
    jestExitCode: null,
    interrupted: true,
    killed: true,
    tests: outcome?.tests ?? [],
    suiteErrors: outcome?.suite_errors ?? [],
    results: collected.results,
    invalidResultFiles: collected.invalid,
    warnings: [
      `killed: the run (pid ${manifest.pid} on ${host}${manifest.shard ? `, shard ${manifest.shard}` : ''}) stopped without saving itself; ` +
        `last heard of at ${finishedAt.toISOString()} (its newest file); archived at ${input.recoveredAt.toISOString()} by the next run ` +
        `(pid ${process.pid}) from what it left: ${collected.results.length} raw result(s), the outcome of ${outcome?.tests.length ?? 0} test(s)`,
    ],
  });
}

/** The archive the run of `manifest` already has in `reportsDir` (same start, same fingerprint), if any. */
export function findArchiveOf(manifest: RunManifest, reportsDir: string): { archive: RunArchive; filePath: string } | undefined {
  const base = runIdBase(new Date(manifest.started_at), manifest.environment.fingerprint);
  for (const filePath of listRunArchives(reportsDir)) {
    if (!path.basename(filePath).startsWith(base)) continue;
    try {
      const archive = readRunArchive(filePath);
      if (archive.started_at === manifest.started_at && archive.environment.fingerprint === manifest.environment.fingerprint)
        return { archive, filePath };
    } catch {
      // Not an archive we can read: not this run's.
    }
  }
  return undefined;
}

/**
 * Appends the archived run's entry to the history unless it is there; true when it added it.
 * @throws when the history cannot be written (the archive is safe regardless)
 */
export function ensureHistoryEntry(reportsDir: string, archive: RunArchive, archivePath: string, secrets: readonly string[]): boolean {
  if (readHistory(reportsDir).history.runs.some((run) => run.run_id === archive.run_id)) return false;
  appendToHistory(reportsDir, historyEntryOf(archive, archivePath), { secrets });
  return true;
}
