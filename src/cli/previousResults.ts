/**
 * The raw results of earlier runs are set aside, not deleted, while a run goes: deleted once the
 * run is archived, put back when it executed nothing. A run that ran nothing (its Jest failed in
 * globalSetup, its filter selected no test, it was stopped before the first test) then leaves the
 * raw-results folder as it found it. Every step is a set of renames that can be taken again where
 * it stopped: a run killed half-way through one leaves the next run (src/cli/killedRun.ts) able to
 * finish it, as the run manifest's phase says.
 */
import fs from 'node:fs';
import path from 'node:path';
import { OUTCOME_JOURNAL_FILE_NAME } from '../results/outcome';
import { RUN_MANIFEST_FILE_NAME } from '../results/runManifest';

/** Inside the raw-results folder; a dot folder, so collecting and clearing never look inside. */
export const SET_ASIDE_FOLDER = '.previous-run';

/**
 * Moves every file of a run in `rawResultsDir` (raw results, the test outcome and its journal, a
 * shard manifest; never the run manifest) into `.previous-run/`, beside any already there;
 * returns how many.
 */
export function setAsidePreviousResults(rawResultsDir: string): number {
  const aside = path.join(rawResultsDir, SET_ASIDE_FOLDER);
  const names = runFilesIn(rawResultsDir).filter((name) => name !== RUN_MANIFEST_FILE_NAME);
  if (names.length > 0) fs.mkdirSync(aside, { recursive: true });
  for (const name of names) fs.renameSync(path.join(rawResultsDir, name), path.join(aside, name));
  return names.length;
}

/**
 * Puts every file of `.previous-run/` back (over a file of the same name) and removes the folder;
 * returns how many came back. The caller removes this run's own files first.
 */
export function restoreSetAside(rawResultsDir: string): number {
  const aside = path.join(rawResultsDir, SET_ASIDE_FOLDER);
  const names = filesIn(aside);
  for (const name of names) fs.renameSync(path.join(aside, name), path.join(rawResultsDir, name));
  fs.rmSync(aside, { recursive: true, force: true });
  return names.length;
}

/** Deletes `.previous-run/`: the run was archived, so they are no longer the latest. Returns how many. */
export function discardSetAside(rawResultsDir: string): number {
  const aside = path.join(rawResultsDir, SET_ASIDE_FOLDER);
  const count = filesIn(aside).length;
  fs.rmSync(aside, { recursive: true, force: true });
  return count;
}

/** True when a `.previous-run/` folder is there. */
export function hasSetAside(rawResultsDir: string): boolean {
  return fs.existsSync(path.join(rawResultsDir, SET_ASIDE_FOLDER));
}

/** A run's files directly in `dir`: `*.json` and the test outcome's journal (none when `dir` does not exist). */
export function runFilesIn(dir: string): string[] {
  return filesIn(dir).filter((name) => name.endsWith('.json') || name === OUTCOME_JOURNAL_FILE_NAME);
}

function filesIn(dir: string): string[] {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  return names.filter((name) => fs.statSync(path.join(dir, name)).isFile());
}
