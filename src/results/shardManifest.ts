/**
 * What one shard of a sharded run (`bench run --shard i/n`) leaves next to its raw results, so
 * `bench merge` can rebuild the whole run from the shards' folders alone: which shard it was,
 * the environment record (commit, fingerprint), the run's selection and times, and Jest's
 * outcome of the shard's tests. A dot file, like `.jest-outcome.json`: never taken for a raw
 * result, deleted with them before the next run (CI artifact uploads must include hidden files).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { EnvironmentRecord } from '../environment';
import { writeFileAtomic } from '../io/atomicFile';
import { isRecord } from './collect';
import type { DeepReadonly } from './deepReadonly';
import type { JestOutcome } from './outcome';
import type * as Schema from './schemaTypes';

export const SHARD_MANIFEST_SCHEMA_VERSION = 1;
export const SHARD_MANIFEST_FILE_NAME = '.shard-manifest.json';

/** Shard `index` of `count` (1-based, as Jest's `--shard 2/3`). */
export interface Shard {
  readonly index: number;
  readonly count: number;
}

export interface ShardManifest {
  readonly schema_version: number;
  readonly shard: Shard;
  readonly environment: EnvironmentRecord;
  readonly started_at: string;
  readonly finished_at: string;
  readonly marker_expression: string | null;
  readonly test_name_filter: string | null;
  readonly jest_exit_code: number | null;
  readonly interrupted: boolean;
  /** Jest's outcome of this shard's tests; null when Jest stopped before writing one. */
  readonly outcome: JestOutcome | null;
  /** The raw result files the shard wrote (a merge says when one of them is missing). */
  readonly raw_result_files: readonly string[];
}

/** One shard as a merged run archive records it (`shards`, schemas/run-archive.schema.json). */
export type ShardSummary = DeepReadonly<Schema.ShardSummary>;

export function shardManifestPath(rawResultsDir: string): string {
  return path.join(rawResultsDir, SHARD_MANIFEST_FILE_NAME);
}

export function writeShardManifest(rawResultsDir: string, manifest: ShardManifest): string {
  const filePath = shardManifestPath(rawResultsDir);
  writeFileAtomic(filePath, `${JSON.stringify(manifest, null, 2)}\n`);
  return filePath;
}

/**
 * The manifest in `dir`.
 * @throws Error saying what the folder lacks and how a shard folder is made
 */
export function readShardManifest(dir: string): ShardManifest {
  const filePath = shardManifestPath(dir);
  let parsed: unknown;
  try {
    parsed = JSON.parse(fs.readFileSync(filePath, 'utf8'));
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
    throw new Error(
      missing
        ? `${dir} has no shard manifest (${SHARD_MANIFEST_FILE_NAME}): give the raw-results folder of a \`bench run --shard i/n\` (in CI, upload it with include-hidden-files)`
        : `${filePath} does not parse: ${(error as Error).message}`,
      { cause: error },
    );
  }
  if (
    !isRecord(parsed) ||
    parsed.schema_version !== SHARD_MANIFEST_SCHEMA_VERSION ||
    !isRecord(parsed.shard) ||
    !isRecord(parsed.environment) ||
    typeof parsed.environment.git_commit !== 'string'
  ) {
    throw new Error(`${filePath} is not a shard manifest of schema version ${SHARD_MANIFEST_SCHEMA_VERSION}`);
  }
  return parsed as unknown as ShardManifest;
}

/**
 * Parses `i/n` (Jest's `--shard` form).
 * @returns the shard, or a problem description (the caller turns it into a ConfigError)
 */
export function parseShard(raw: string): Shard | string {
  const match = /^\s*(\d{1,4})\s*\/\s*(\d{1,4})\s*$/.exec(raw);
  if (!match) return 'not of the form i/n';
  const index = Number(match[1]);
  const count = Number(match[2]);
  if (count < 1 || index < 1 || index > count) return `shard ${index} of ${count} does not exist`;
  return { index, count };
}

export function formatShard(shard: Shard): string {
  return `${shard.index}/${shard.count}`;
}
