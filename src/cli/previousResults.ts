/**
 * The raw results of earlier runs are set aside, not deleted, while a run goes: deleted once the
 * run has executed a test, put back when it executed none. A run that ran nothing (its Jest
 * failed in globalSetup, its filter selected no test, it was stopped before the first test) then
 * leaves the raw-results folder as it found it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { outcomePath } from '../results/outcome';

/** Inside the raw-results folder; a dot folder, so collecting and clearing never look inside. */
export const SET_ASIDE_FOLDER = '.previous-run';

export interface SetAsideResults {
  /** How many files were set aside. */
  readonly count: number;
  /** Puts them back (over this run's test outcome, the only file a run that ran nothing writes). */
  restore(): void;
  /** Deletes them: the run executed tests, so they are no longer the latest. */
  discard(): void;
}

/**
 * Moves every `*.json` file of `rawResultsDir` (raw results and the test outcome) into
 * `.previous-run/`. One left there by a run that was killed outright is deleted first.
 */
export function setAsidePreviousResults(rawResultsDir: string): SetAsideResults {
  const aside = path.join(rawResultsDir, SET_ASIDE_FOLDER);
  fs.rmSync(aside, { recursive: true, force: true });
  const names = jsonFilesIn(rawResultsDir);
  if (names.length > 0) fs.mkdirSync(aside, { recursive: true });
  for (const name of names) fs.renameSync(path.join(rawResultsDir, name), path.join(aside, name));
  let settled = false;
  return {
    count: names.length,
    restore: () => {
      if (settled) return;
      settled = true;
      fs.rmSync(outcomePath(rawResultsDir), { force: true });
      for (const name of names) fs.renameSync(path.join(aside, name), path.join(rawResultsDir, name));
      fs.rmSync(aside, { recursive: true, force: true });
    },
    discard: () => {
      if (settled) return;
      settled = true;
      fs.rmSync(aside, { recursive: true, force: true });
    },
  };
}

function jsonFilesIn(dir: string): string[] {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  return names.filter((name) => name.endsWith('.json') && fs.statSync(path.join(dir, name)).isFile());
}
