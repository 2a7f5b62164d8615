/**
 * One run's hold on its raw-results folder, from the lock to the end, laid out so that a kill at
 * any instant costs nothing:
 * 1. the lock: a stale one (its run killed) is taken over at once, saying whose it was; a live one
 *    is respected and described; ours is refreshed while the run goes;
 * 2. recovery of what a killed run left (src/cli/killedRun.ts);
 * 3. the run manifest, then the old raw results set aside (`begin`);
 * 4. at the end, the old raw results deleted (`finish`: this run is archived) or put back
 *    (`putBack`: it ran nothing), the manifest last.
 * Each step is announced in the manifest before it begins, so the next run can tell where it stopped.
 */
import fs from 'node:fs';
import path from 'node:path';
import { BenchError, describeError } from '../errors';
import { acquireFileLock, holderName } from '../results/fileLock';
import { removeOutcome } from '../results/outcome';
import { removeRunManifest, setRunPhase, writeRunManifest, type RunManifest, type RunManifestInput } from '../results/runManifest';
import { shownPath as shown } from './shownPath';
import { isRawResultFileName } from '../results/collect';
import { recoverKilledRun, type Recovery } from './killedRun';
import { discardSetAside, restoreSetAside, setAsidePreviousResults } from './previousResults';

export const RUN_LOCK_FILE_NAME = '.bench-run.lock';
/** A run lock not refreshed for this long is stale, whatever its pid says. @default 5 minutes */
export const RUN_LOCK_STALE_AFTER_MS = 5 * 60_000;
/** How often a run refreshes its lock (a tenth of the bound: a busy machine never looks dead). @default 30 s */
export const RUN_LOCK_REFRESH_EVERY_MS = 30_000;

export interface RunSessionOptions {
  readonly rawResultsDir: string;
  readonly secrets: readonly string[];
  readonly log: (line: string) => void;
  /** Where a recovered run's id is claimed too (BENCH_RUN_ID_CLAIMS). @default none */
  readonly runIdClaimsDir?: string | null;
}

/** What `begin` needs: the manifest's content, and whether earlier raw results are kept in place. */
export interface RunStart extends Omit<RunManifestInput, 'phase' | 'kept_files'> {
  readonly keepResults: boolean;
}

export interface RunSession {
  /** What recovery did with a killed run's leftovers. */
  readonly recovery: Recovery;
  /** Writes the run manifest, then sets the old raw results aside (unless kept); returns how many were set aside. */
  begin(start: RunStart): number;
  /** The run is saved: the old raw results are deleted, then the manifest. */
  finish(): void;
  /** The run executed nothing: its test outcome goes, the old raw results come back; returns how many. */
  putBack(): number;
  /** Releases the lock. A run that neither finished nor put back leaves its manifest for the next run to recover. */
  close(): void;
}

/**
 * Takes the folder's lock and recovers what a killed run left there.
 * @throws BenchError naming the live holder when another run is using the folder
 */
export function openRunSession(options: RunSessionOptions): RunSession {
  const raw = options.rawResultsDir;
  fs.mkdirSync(raw, { recursive: true });
  const lockPath = path.join(raw, RUN_LOCK_FILE_NAME);
  let release: () => void;
  try {
    release = acquireFileLock(lockPath, {
      timeoutMs: 0,
      staleAfterMs: RUN_LOCK_STALE_AFTER_MS,
      refreshEveryMs: RUN_LOCK_REFRESH_EVERY_MS,
      onTakeOver: (stale) =>
        options.log(`bench: took over the stale lock on ${shown(raw)} from ${holderName(stale.found)}: ${stale.reason}`),
    });
  } catch (error) {
    throw new BenchError(
      'RESULT_INVALID',
      `another bench run is using ${shown(raw)} (${describeError(error)}); wait for it to finish, or give this run its own folders with BENCH_RAW_DIR and BENCH_REPORTS_DIR`,
    );
  }
  let recovery: Recovery;
  try {
    recovery = recoverKilledRun({ rawResultsDir: raw, secrets: options.secrets, log: options.log, runIdClaimsDir: options.runIdClaimsDir });
  } catch (error) {
    release();
    throw error;
  }
  let manifest: RunManifest | undefined;
  const settle = (phase: 'finished' | 'restoring', step: () => number): number => {
    if (!manifest) return 0;
    manifest = setRunPhase(raw, manifest, phase);
    const count = step();
    removeRunManifest(raw);
    manifest = undefined;
    return count;
  };
  return {
    recovery,
    begin: ({ keepResults, ...start }) => {
      const kept = keepResults ? fs.readdirSync(raw).filter(isRawResultFileName) : [];
      manifest = writeRunManifest(raw, { ...start, phase: keepResults ? 'running' : 'setting-aside', kept_files: kept });
      if (keepResults) return 0;
      const count = setAsidePreviousResults(raw);
      manifest = setRunPhase(raw, manifest, 'running');
      return count;
    },
    finish: () => void settle('finished', () => discardSetAside(raw)),
    putBack: () => {
      // The only file a run that ran nothing writes; the old one (if any) comes back over it.
      if (manifest) removeOutcome(raw);
      return settle('restoring', () => restoreSetAside(raw));
    },
    close: () => release(),
  };
}
