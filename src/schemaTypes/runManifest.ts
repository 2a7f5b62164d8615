/**
 * Generated from schemas/run-manifest.schema.json by `npm run schemas:types`. Do not edit: change the schema
 * and regenerate (`npm run lint` and a unit test fail while this file is stale).
 */

import type { EnvironmentRecord } from './runArchive';

/**
 * reports/.test-output/.bench-run.json: written by `bench run` when it starts (before it sets the old raw results aside) and removed once the run is saved, so a run killed at any moment leaves enough to be archived by the next run (src/results/runManifest.ts, src/cli/killedRun.ts). `phase` says how far it got: `setting-aside` (the old raw results are being moved into .previous-run/), `running` (Jest writes this run's raw results), `restoring` (this run's results are gone or archived; the old ones are being put back), `finished` (archived; the old ones are being deleted).
 */
export interface RunManifest {
  schema_version: 1;
  pid: number;
  hostname: string;
  started_at: string;
  phase: 'setting-aside' | 'running' | 'restoring' | 'finished';
  environment: EnvironmentRecord;
  marker_expression: string | null;
  test_name_filter: string | null;
  /**
   * Absolute path of the folder the run archives into (its history is there).
   */
  reports_dir: string;
  /**
   * `i/n` for a shard run (`bench run --shard`), else null.
   */
  shard: string | null;
  /**
   * Raw result files of earlier runs kept in the folder (`--keep-results`): not this run's.
   */
  kept_files: string[];
}
