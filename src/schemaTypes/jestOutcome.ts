/**
 * Generated from schemas/jest-outcome.schema.json by `npm run schemas:types`. Do not edit: change the schema
 * and regenerate (`npm run lint` and a unit test fail while this file is stale).
 */

import type { SuiteError, TestOutcome } from './runArchive';

/**
 * reports/.test-output/.jest-outcome.json: what the benchmark reporter knows about the tests so far, rewritten after every test so an interrupted run still has it (src/results/outcome.ts). Read by the run script to build the archive.
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
