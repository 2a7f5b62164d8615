/**
 * Crash recovery: the first thing a run does once it holds the raw-results folder's lock. A run
 * killed at any instant (SIGKILL to its process group, a cancelled CI job) left its run manifest
 * (src/results/runManifest.ts), whose phase says how far it got; what it left is archived as that
 * run with status `killed`, or, when it cannot be, moved to a named folder; the raw results of the
 * run before it, set aside in `.previous-run/`, are put back (or deleted once the killed run was
 * saved, as its own end would have). Each outcome is one line. Nothing is deleted that is not in
 * an archive, and nothing of the killed run is ever collected into the new one. Every step can be
 * taken again where it stopped: recovery killed half-way is finished by the run after.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describeError } from '../errors';
import { removeAbandonedTempFiles } from '../io/atomicFile';
import { writeRunArchive } from '../results/archive';
import { collectRawResults } from '../results/collect';
import { buildKilledArchive, ensureHistoryEntry, findArchiveOf } from '../results/killedArchive';
import { countTests, OUTCOME_FILE_NAMES, readOutcome, removeOutcome, testsRun } from '../results/outcome';
import { removeResultIndex } from '../results/writtenResults';
import { readRunManifest, removeRunManifest, setRunPhase, type RunManifest } from '../results/runManifest';
import { discardSetAside, hasSetAside, runFilesIn, restoreSetAside } from './previousResults';

/** Temp files in a reports folder are left alone this long: another host may be writing there. */
const REPORTS_TEMP_MIN_AGE_MS = 60_000;

export interface RecoveryOptions {
  readonly rawResultsDir: string;
  readonly secrets: readonly string[];
  readonly log: (line: string) => void;
  readonly now?: () => Date;
  /** Where the recovered archive's id is claimed too (BENCH_RUN_ID_CLAIMS, writeRunArchive). @default none */
  readonly runIdClaimsDir?: string | null;
}

export type RecoveryOutcome =
  /** Nothing was left (the last run ended, saved or not, by itself). */
  | 'none'
  /** The killed run's results and finished tests archived with status `killed`. */
  | 'archived'
  /** It had written its own archive before it was killed (history, report or clean-up cut short). */
  | 'already-archived'
  /** It was killed before any benchmark finished: nothing to archive. */
  | 'nothing-finished'
  /** Its files could not be archived, or whose they are cannot be told: moved to a named folder. */
  | 'moved';

export interface Recovery {
  readonly outcome: RecoveryOutcome;
  readonly archivePath: string | null;
  /** The named folder files were moved to, if any. */
  readonly movedTo: string | null;
  /** Raw result files of the run before that came back into the folder. */
  readonly restored: number;
}

const NOTHING: Recovery = { outcome: 'none', archivePath: null, movedTo: null, restored: 0 };

/** Recovers what a killed run left in `rawResultsDir` (the caller holds its lock). */
export function recoverKilledRun(options: RecoveryOptions): Recovery {
  removeAbandonedTempFiles(options.rawResultsDir);
  const found = readRunManifest(options.rawResultsDir);
  if (found.kind === 'found') return recoverFromManifest(found.manifest, options);
  if (found.kind === 'none' && !hasSetAside(options.rawResultsDir)) return NOTHING;
  return recoverUnattributed(found.kind === 'unreadable' ? `its run manifest is unreadable: ${found.reason}` : 'no run manifest', options);
}

function recoverFromManifest(manifest: RunManifest, options: RecoveryOptions): Recovery {
  const raw = options.rawResultsDir;
  const who = describeRun(manifest);
  if (manifest.phase === 'running') return recoverRunning(manifest, options, who);
  if (manifest.phase === 'finished') {
    const saved = safely(() => findArchiveOf(manifest, manifest.reports_dir));
    discardSetAside(raw);
    removeRunManifest(raw);
    options.log(`bench: ${who} was killed after it was saved${saved ? ` (${path.basename(saved.filePath)})` : ''}; its clean-up is done`);
    return { ...NOTHING, outcome: 'already-archived', archivePath: saved?.filePath ?? null };
  }
  // setting-aside or restoring: none of its own files are left; the run before's come back.
  const restored = restoreSetAside(raw);
  removeRunManifest(raw);
  options.log(
    manifest.phase === 'setting-aside'
      ? `bench: ${who} was killed before any benchmark finished: nothing to archive; ${restored} raw result file(s) of the run before put back`
      : `bench: ${who} was killed while it put the raw results of the run before back: ${restored} more put back`,
  );
  return { ...NOTHING, outcome: 'nothing-finished', restored };
}

function recoverRunning(manifest: RunManifest, options: RecoveryOptions, who: string): Recovery {
  const raw = options.rawResultsDir;
  const reportsDir = manifest.reports_dir;
  removeAbandonedTempFiles(reportsDir, REPORTS_TEMP_MIN_AGE_MS);
  // Its reporter's index of the results written is no record of anything (the files are).
  removeResultIndex(raw);
  let saved = safely(() => findArchiveOf(manifest, reportsDir));
  if (saved && saved.archive.status !== 'killed') {
    // Killed after its own archive: finish its job as its own end would have (its results stay the latest).
    const history = historyNote(() => ensureHistoryEntry(reportsDir, saved!.archive, saved!.filePath, options.secrets));
    discardSetAside(raw);
    removeRunManifest(raw);
    options.log(
      `bench: ${who} was killed after it wrote its archive ${path.basename(saved.filePath)} (status ${saved.archive.status}); ${history}; this run writes the report again`,
    );
    return { ...NOTHING, outcome: 'already-archived', archivePath: saved.filePath };
  }

  const collected = collectRawResults(raw, { excludeFiles: new Set(manifest.kept_files) });
  const outcome = readOutcome(raw);
  const outcomeFiles = OUTCOME_FILE_NAMES.filter((name) => fs.existsSync(path.join(raw, name)));
  const ownFiles = [...collected.files, ...collected.invalid.map((invalid) => invalid.file)];
  const testsFinished = outcome ? testsRun(countTests(outcome.tests, outcome.suite_errors)) : 0;
  if (!saved && ownFiles.length === 0 && testsFinished === 0) {
    // Its outcome lists no finished test: nothing in it to keep.
    removeOutcome(raw);
    const restored = putBack(raw, manifest);
    options.log(
      `bench: ${who} was killed before any benchmark finished: nothing to archive; ${restored} raw result file(s) of the run before put back`,
    );
    return { ...NOTHING, outcome: 'nothing-finished', restored };
  }

  let problem: string | null = null;
  try {
    saved ??= writeRunArchive(
      buildKilledArchive({ manifest, collected, outcome, lastHeardOfAt: lastWrittenAt(raw, ownFiles), recoveredAt: now(options) }),
      reportsDir,
      options.secrets,
      options.runIdClaimsDir ?? null,
    );
  } catch (error) {
    problem = `not archived: ${describeError(error)}`;
  }
  const archived = saved;
  const history = archived ? historyNote(() => ensureHistoryEntry(reportsDir, archived.archive, archived.filePath, options.secrets)) : '';
  // What is in the archive now goes; what is not (the whole run when it could not be archived,
  // files that are not raw results) is moved to a named folder.
  const unarchived = saved ? collected.invalid.map((invalid) => invalid.file) : [...ownFiles, ...outcomeFiles];
  const movedTo = unarchived.length > 0 ? moveToNamedFolder(raw, unarchived, `killed-run-${stampOf(manifest)}`) : null;
  if (saved) for (const file of [...collected.files, ...OUTCOME_FILE_NAMES]) fs.rmSync(path.join(raw, file), { force: true });
  const restored = putBack(raw, manifest);
  const moved = movedTo ? `${unarchived.length} file(s) ${saved ? 'that are not raw results ' : ''}moved to ${movedTo}; ` : '';
  options.log(
    saved
      ? `bench: ${who} was killed; what it finished is archived as ${path.basename(saved.filePath)} (status killed: ${saved.archive.results.length} raw result(s), ${saved.archive.tests.length} test(s)); ${history}; ${moved}${restored} raw result file(s) of the run before put back`
      : `bench: ${who} was killed and its files could not be archived (${problem}); ${moved}${restored} raw result file(s) of the run before put back`,
  );
  return { outcome: saved ? 'archived' : 'moved', archivePath: saved?.filePath ?? null, movedTo, restored };
}

/** Without a (readable) manifest, whose the loose files are cannot be told: they go to a named folder; the set-aside ones come back. */
function recoverUnattributed(why: string, options: RecoveryOptions): Recovery {
  const raw = options.rawResultsDir;
  const loose = runFilesIn(raw);
  const stamp = stampOf({ started_at: now(options).toISOString(), pid: process.pid });
  const movedTo = loose.length > 0 ? moveToNamedFolder(raw, loose, `unattributed-${stamp}`) : null;
  const restored = restoreSetAside(raw);
  options.log(
    `bench: a run was killed and left raw results without a run manifest (${why}, e.g. an older harness): ` +
      `${movedTo ? `${loose.length} file(s) whose run cannot be told moved to ${movedTo}; ` : ''}${restored} set-aside raw result file(s) put back`,
  );
  return { outcome: 'moved', archivePath: null, movedTo, restored };
}

/** The killed run's own files are gone or archived: announce it, then put the run before's back, then drop the manifest. */
function putBack(raw: string, manifest: RunManifest): number {
  setRunPhase(raw, manifest, 'restoring');
  const restored = restoreSetAside(raw);
  removeRunManifest(raw);
  return restored;
}

/** Moves `names` from `dir` into `dir/<folder>` (kept across attempts: a recovery cut short reuses it); returns its path. */
function moveToNamedFolder(dir: string, names: readonly string[], folder: string): string {
  const target = path.join(dir, folder);
  fs.mkdirSync(target, { recursive: true });
  for (const name of names) fs.renameSync(path.join(dir, name), path.join(target, name));
  return target;
}

function lastWrittenAt(dir: string, names: readonly string[]): Date {
  let latestMs = 0;
  for (const name of [...names, ...OUTCOME_FILE_NAMES]) {
    try {
      latestMs = Math.max(latestMs, fs.statSync(path.join(dir, name)).mtimeMs);
    } catch {
      // Not there.
    }
  }
  return new Date(latestMs);
}

function historyNote(append: () => boolean): string {
  try {
    return append() ? 'history entry added' : 'history entry was there';
  } catch (error) {
    return `history not updated: ${describeError(error)}`;
  }
}

function describeRun(manifest: RunManifest): string {
  const where = manifest.hostname === os.hostname() ? '' : ` on ${manifest.hostname}`;
  return `the run started ${manifest.started_at} (pid ${manifest.pid}${where}${manifest.shard ? `, shard ${manifest.shard}` : ''})`;
}

/** `20261125_192921-4242`: the run's UTC start and pid, for folder names. */
function stampOf(run: Pick<RunManifest, 'started_at' | 'pid'>): string {
  return `${run.started_at.replace(/[-:]/g, '').replace('T', '_').slice(0, 15)}-${run.pid}`;
}

function now(options: RecoveryOptions): Date {
  return options.now?.() ?? new Date();
}

function safely<T>(read: () => T): T | undefined {
  try {
    return read();
  } catch {
    return undefined;
  }
}
