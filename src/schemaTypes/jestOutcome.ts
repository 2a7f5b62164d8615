/**
 * Generated from schemas/jest-outcome.schema.json by `npm run schemas:types`. Do not edit: change the schema
 * and regenerate (`npm run lint` and a unit test fail while this file is stale).
 */

import type { SuiteError, TestOutcome } from './runArchive';

/**
 * reports/.test-output/.jest-outcome.json: what the benchmark reporter knows about the tests, written when the first benchmark file starts and, complete, at the end of the run; in between, each update (a finished test) is one line of its journal .jest-outcome.jsonl, each line an outcome of this shape holding what changed, so an interrupted run still has every finished test (src/results/outcome.ts). Read by the run script to build the archive.
 */
export interface JestOutcome {
  schema_version: 1;
  started_at: string;
  updated_at: string;
  /**
   * True once Jest reached the end of the run (onRunComplete).
   */
  complete: boolean;
  tests: TestOutcome[];
  suite_errors: SuiteError[];
}
