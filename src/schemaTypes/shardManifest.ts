/**
 * Generated from schemas/shard-manifest.schema.json by `npm run schemas:types`. Do not edit: change the schema
 * and regenerate (`npm run lint` and a unit test fail while this file is stale).
 */

import type { JestOutcome } from './jestOutcome';
import type { EnvironmentRecord } from './runArchive';

/**
 * <raw-results folder>/.shard-manifest.json: what one shard of a sharded run (`bench run --shard i/n`) leaves beside its raw results, so `bench merge` can rebuild the whole run from the shards' folders alone (src/results/shardManifest.ts). A dot file: never taken for a raw result, deleted with them before the next run.
 */
export interface ShardManifest {
  schema_version: 1;
  shard: Shard;
  environment: EnvironmentRecord;
  started_at: string;
  finished_at: string;
  /**
   * Marker expression the benchmarks were selected with; null = all.
   */
  marker_expression: string | null;
  /**
   * Jest `-t` test-name filter; null = none.
   */
  test_name_filter: string | null;
  /**
   * Jest's exit code (null when Jest was ended by a signal).
   */
  jest_exit_code: number | null;
  /**
   * Jest never reached the end of the shard (Ctrl-C, killed).
   */
  interrupted: boolean;
  /**
   * Jest's outcome of this shard's tests; null when Jest stopped before writing one.
   */
  outcome: null | JestOutcome;
  /**
   * The raw result files the shard wrote (a merge says when one of them is missing).
   */
  raw_result_files: string[];
}
/**
 * Shard `index` of `count` (1-based, as Jest's `--shard 2/3`).
 */
export interface Shard {
  index: number;
  count: number;
}
