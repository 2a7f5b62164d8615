/**
 * What Jest reported about the benchmark tests (passed, failed, skipped, why), as the reporter
 * writes it into the raw-results folder while the run goes on. The outcome file is written whole
 * twice: when the first benchmark file starts (no test yet) and at the end of the run (complete).
 * In between, each test's outcome is appended to the outcome's journal as it finishes (one line,
 * whatever the number of tests before it), so a run stopped by Ctrl-C or killed still leaves the
 * outcome of every test that finished: `readOutcome` reads the file and its journal as one.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { DeepReadonly } from './deepReadonly';
import { writeFileAtomic } from '../io/atomicFile';
import type * as Schema from '../schemaTypes';
import { assertFollowsSchema, schemaProblem } from './schemas';

export const OUTCOME_SCHEMA_VERSION = 1;

/** A dot file: never mistaken for a raw result, deleted with them before a run. */
export const OUTCOME_FILE_NAME = '.jest-outcome.json';

/**
 * The outcome's journal, beside it: one line per update, each a Jest outcome of its own (same
 * schema, same `started_at`) holding only the tests and suite errors that changed. Gone once the
 * whole outcome is written at the end of the run.
 */
export const OUTCOME_JOURNAL_FILE_NAME = '.jest-outcome.jsonl';

/** The outcome's files, as whoever moves or removes a run's outcome must take them: together. */
export const OUTCOME_FILE_NAMES: readonly string[] = [OUTCOME_FILE_NAME, OUTCOME_JOURNAL_FILE_NAME];

// Generated from schemas/jest-outcome.schema.json and run-archive.schema.json (which the archive shares), read-only.
export type JestOutcome = DeepReadonly<Schema.JestOutcome>;
export type TestOutcome = DeepReadonly<Schema.TestOutcome>;
export type SuiteError = DeepReadonly<Schema.SuiteError>;
export type TestCounts = DeepReadonly<Schema.TestCounts>;
export type { TestStatus } from '../schemaTypes';

export function countTests(tests: readonly TestOutcome[], suiteErrors: readonly SuiteError[] = []): TestCounts {
  const count = (status: Schema.TestStatus) => tests.filter((test) => test.status === status).length;
  return {
    passed: count('passed'),
    failed: count('failed'),
    skipped: count('skipped'),
    todo: count('todo'),
    total: tests.length,
    failed_suites: suiteErrors.length,
  };
}

/** Tests that executed (passed or failed); skipped and todo tests did not, nor did files that could not load. */
export function testsRun(counts: TestCounts): number {
  return counts.passed + counts.failed;
}

export function outcomePath(rawResultsDir: string): string {
  return path.join(rawResultsDir, OUTCOME_FILE_NAME);
}

export function outcomeJournalPath(rawResultsDir: string): string {
  return path.join(rawResultsDir, OUTCOME_JOURNAL_FILE_NAME);
}

/**
 * Writes the whole outcome, then drops the journal: a complete outcome holds all of it, and a new
 * run's first outcome starts a journal of its own (an old journal's lines, of another
 * `started_at`, would be ignored all the same).
 */
export function writeOutcome(rawResultsDir: string, outcome: JestOutcome): void {
  assertFollowsSchema('jest-outcome.schema.json', outcome, 'the Jest outcome');
  writeFileAtomic(outcomePath(rawResultsDir), `${JSON.stringify(outcome, null, 2)}\n`);
  fs.rmSync(outcomeJournalPath(rawResultsDir), { force: true });
}

/**
 * Appends what changed (`update`: the tests and suite errors to add or replace, under the outcome
 * file's `started_at`) to the journal in one write: its cost does not grow with the run.
 */
export function appendOutcome(rawResultsDir: string, update: JestOutcome): void {
  assertFollowsSchema('jest-outcome.schema.json', update, 'the Jest outcome update');
  fs.appendFileSync(outcomeJournalPath(rawResultsDir), `${JSON.stringify(update)}\n`);
}

/** Removes the outcome and its journal (a run's outcome goes as a whole). */
export function removeOutcome(rawResultsDir: string): void {
  for (const name of OUTCOME_FILE_NAMES) fs.rmSync(path.join(rawResultsDir, name), { force: true });
}

/**
 * The outcome left by the reporter, or undefined when Jest never got to write one. One that does
 * not parse or does not follow its schema is taken as absent too: the reporter writes it
 * atomically and checked, so only another program (or another version of the harness) made it.
 */
export function readOutcome(rawResultsDir: string): JestOutcome | undefined {
  let text: string;
  try {
    text = fs.readFileSync(outcomePath(rawResultsDir), 'utf8');
  } catch {
    return undefined;
  }
  try {
    const parsed: unknown = JSON.parse(text);
    if (schemaProblem('jest-outcome.schema.json', parsed) === undefined) return withJournal(rawResultsDir, parsed as JestOutcome);
  } catch {
    // Not JSON: see above.
  }
  return undefined;
}

/**
 * The outcome with its journal's updates applied in order (a later line for a test or a file
 * replaces the earlier one). Lines of another run, and a line cut short by a kill, are skipped.
 */
function withJournal(rawResultsDir: string, outcome: JestOutcome): JestOutcome {
  if (outcome.complete) return outcome;
  let lines: string[];
  try {
    lines = fs.readFileSync(outcomeJournalPath(rawResultsDir), 'utf8').split('\n');
  } catch {
    return outcome;
  }
  const tests = new Map(outcome.tests.map((test) => [test.test_id, test]));
  const suiteErrors = new Map(outcome.suite_errors.map((error) => [error.file, error]));
  let updatedAt = outcome.updated_at;
  for (const line of lines) {
    const update = parseUpdate(line);
    if (update?.started_at !== outcome.started_at) continue;
    for (const test of update.tests) tests.set(test.test_id, test);
    for (const error of update.suite_errors) suiteErrors.set(error.file, error);
    updatedAt = update.updated_at;
  }
  return { ...outcome, updated_at: updatedAt, tests: [...tests.values()], suite_errors: [...suiteErrors.values()] };
}

function parseUpdate(line: string): JestOutcome | undefined {
  if (line.trim() === '') return undefined;
  try {
    const parsed: unknown = JSON.parse(line);
    return schemaProblem('jest-outcome.schema.json', parsed) === undefined ? (parsed as JestOutcome) : undefined;
  } catch {
    return undefined;
  }
}
