/**
 * What Jest reported about the benchmark tests (passed, failed, skipped, why), as the reporter
 * writes it into the raw-results folder while the run goes on. It is rewritten after every test,
 * so a run stopped by Ctrl-C still leaves the outcome of the tests that finished.
 */
import fs from 'node:fs';
import path from 'node:path';
import { isRecord } from './collect';
import { writeFileAtomic } from '../io/atomicFile';

export const OUTCOME_SCHEMA_VERSION = 1;

/** A dot file: never mistaken for a raw result, deleted with them before a run. */
export const OUTCOME_FILE_NAME = '.jest-outcome.json';

export type TestStatus = 'passed' | 'failed' | 'skipped' | 'todo';

export interface TestOutcome {
  /** `<file relative to the Jest root>::<describe>::...::<test name>`, as raw results' test_id. */
  readonly test_id: string;
  /** Describe blocks and title joined by spaces, as Jest's `fullName` (what `-t` matches). */
  readonly full_name: string;
  readonly status: TestStatus;
  readonly duration_ms: number | null;
  /** First failure message, ANSI codes removed, passwords masked, at most a few KB. */
  readonly failure_message: string | null;
}

export interface SuiteError {
  readonly file: string;
  readonly message: string;
}

export interface TestCounts {
  readonly passed: number;
  readonly failed: number;
  readonly skipped: number;
  readonly todo: number;
  readonly total: number;
  /** Test files that could not run at all (import error, failing hook). */
  readonly failed_suites: number;
}

export interface JestOutcome {
  readonly schema_version: number;
  readonly started_at: string;
  readonly updated_at: string;
  /** True once Jest reached the end of the run (onRunComplete). */
  readonly complete: boolean;
  readonly tests: readonly TestOutcome[];
  readonly suite_errors: readonly SuiteError[];
}

export function countTests(tests: readonly TestOutcome[], suiteErrors: readonly SuiteError[] = []): TestCounts {
  const count = (status: TestStatus) => tests.filter((test) => test.status === status).length;
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
  writeFileAtomic(outcomePath(rawResultsDir), `${JSON.stringify(outcome, null, 2)}\n`);
}

/** The outcome left by the reporter, or undefined when Jest never got to write one. */
export function readOutcome(rawResultsDir: string): JestOutcome | undefined {
  let text: string;
  try {
    text = fs.readFileSync(outcomePath(rawResultsDir), 'utf8');
  } catch {
    return undefined;
  }
  try {
    const parsed: unknown = JSON.parse(text);
    if (isRecord(parsed) && Array.isArray(parsed.tests) && Array.isArray(parsed.suite_errors)) return parsed as unknown as JestOutcome;
  } catch {
    // Written atomically, so this means someone else wrote it: treat as absent.
  }
  return undefined;
}
