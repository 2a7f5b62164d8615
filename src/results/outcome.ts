/**
 * What Jest reported about the benchmark tests (passed, failed, skipped, why), as the reporter
 * writes it into the raw-results folder while the run goes on. It is rewritten after every test,
 * so a run stopped by Ctrl-C still leaves the outcome of the tests that finished.
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

export function writeOutcome(rawResultsDir: string, outcome: JestOutcome): void {
  assertFollowsSchema('jest-outcome.schema.json', outcome, 'the Jest outcome');
  writeFileAtomic(outcomePath(rawResultsDir), `${JSON.stringify(outcome, null, 2)}\n`);
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
    if (schemaProblem('jest-outcome.schema.json', parsed) === undefined) return parsed as JestOutcome;
  } catch {
    // Not JSON: see above.
  }
  return undefined;
}
