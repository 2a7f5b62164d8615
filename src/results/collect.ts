/**
 * Collecting raw results from reports/.test-output/: every `*.json` written by a benchmark is
 * read and checked against schemas/raw-result.schema.json; a file that is not a raw result is reported (file + reason), never dropped
 * silently and never fatal to the run.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { DeepReadonly } from './deepReadonly';
import type { RawResult } from './rawResult';
import type * as Schema from '../schemaTypes';
import { schemaProblem } from './schemas';
import { upgradeResult } from './legacyParameters';
import { OUTCOME_JOURNAL_FILE_NAME } from './outcome';

/** A file that is not a raw result, as the run archive lists it (schemas/run-archive.schema.json). */
export type InvalidResultFile = DeepReadonly<Schema.InvalidResultFile>;

export interface CollectedResults {
  /** Oldest first (by timestamp, then file name), so later duplicates win where one must. */
  readonly results: readonly RawResult[];
  /** File names (relative to the directory) of the results above, same order. */
  readonly files: readonly string[];
  readonly invalid: readonly InvalidResultFile[];
}

export interface CollectOptions {
  /** Only files modified at or after this time (ms since epoch); used when old results were not cleared. */
  readonly modifiedSinceMs?: number;
  /** File names to leave out (raw results an earlier run left and this one kept: not its own). */
  readonly excludeFiles?: ReadonlySet<string>;
}

/** Is this file name one a benchmark could have written (not a temp file, not our own bookkeeping)? */
export function isRawResultFileName(name: string): boolean {
  return name.endsWith('.json') && !name.startsWith('.') && !name.endsWith('.tmp');
}

/** Reads every raw result in `dir` (a missing directory is an empty one). */
export function collectRawResults(dir: string, options: CollectOptions = {}): CollectedResults {
  let names: string[];
  try {
    names = fs
      .readdirSync(dir)
      .filter((name) => isRawResultFileName(name) && !options.excludeFiles?.has(name))
      .sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { results: [], files: [], invalid: [] };
    throw error;
  }
  const found: { result: RawResult; file: string }[] = [];
  const invalid: InvalidResultFile[] = [];
  for (const file of names) {
    const read = readRawResultFile(dir, file, options.modifiedSinceMs);
    if (read.kind === 'result') found.push({ result: read.result, file });
    else if (read.kind === 'invalid') invalid.push({ file, error: read.error });
  }
  found.sort((a, b) => a.result.timestamp.localeCompare(b.result.timestamp) || a.file.localeCompare(b.file));
  return { results: found.map((entry) => entry.result), files: found.map((entry) => entry.file), invalid };
}

/** One file read as a raw result: what it holds, why it is not one, or `stale` (older than asked for). */
export type RawResultFile =
  | { readonly kind: 'result'; readonly result: RawResult }
  | { readonly kind: 'invalid'; readonly error: string }
  | { readonly kind: 'stale' };

/** Reads `dir/file` as a raw result (upgraded to the current parameters), checked against its schema. */
export function readRawResultFile(dir: string, file: string, modifiedSinceMs?: number): RawResultFile {
  const filePath = path.join(dir, file);
  try {
    if (modifiedSinceMs !== undefined && fs.statSync(filePath).mtimeMs < modifiedSinceMs) return { kind: 'stale' };
    const parsed: unknown = JSON.parse(fs.readFileSync(filePath, 'utf8'));
    const problem = rawResultProblem(parsed);
    return problem ? { kind: 'invalid', error: problem } : { kind: 'result', result: upgradeResult(parsed as RawResult) };
  } catch (error) {
    return { kind: 'invalid', error: error instanceof SyntaxError ? `not valid JSON: ${error.message}` : String(error) };
  }
}

/** What makes `value` unusable as a raw result (its schema says), or undefined when it is one. */
export function rawResultProblem(value: unknown): string | undefined {
  return schemaProblem('raw-result.schema.json', value);
}

/**
 * Deletes the raw results of earlier runs (every `*.json` in `dir`, our bookkeeping files
 * included, and the test outcome's journal); returns how many were deleted. Other files and
 * folders are left alone.
 */
export function clearRawResults(dir: string): number {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw error;
  }
  let deleted = 0;
  for (const name of names) {
    if (!name.endsWith('.json') && name !== OUTCOME_JOURNAL_FILE_NAME) continue;
    const filePath = path.join(dir, name);
    if (!fs.statSync(filePath).isFile()) continue;
    fs.rmSync(filePath, { force: true });
    deleted += 1;
  }
  return deleted;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
