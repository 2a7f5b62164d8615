/**
 * What one shard of a sharded run (`bench run --shard i/n`) leaves next to its raw results, so
 * `bench merge` can rebuild the whole run from the shards' folders alone: which shard it was,
 * the environment record (commit, fingerprint), the run's selection and times, and Jest's
 * outcome of the shard's tests. A dot file, like `.jest-outcome.json`: never taken for a raw
 * result, deleted with them before the next run (CI artifact uploads must include hidden files).
 */
import fs from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from '../io/atomicFile';
import { isRecord } from './collect';
import type { DeepReadonly } from './deepReadonly';
import type * as Schema from '../schemaTypes';
import { assertFollowsSchema, schemaProblem } from './schemas';

export const SHARD_MANIFEST_SCHEMA_VERSION = 1;
export const SHARD_MANIFEST_FILE_NAME = '.shard-manifest.json';

// Generated from schemas/shard-manifest.schema.json, read-only.
export type ShardManifest = DeepReadonly<Schema.ShardManifest>;
export type Shard = DeepReadonly<Schema.Shard>;

/** One shard as a merged run archive records it (`shards`, schemas/run-archive.schema.json). */
export type ShardSummary = DeepReadonly<Schema.ShardSummary>;

export function shardManifestPath(rawResultsDir: string): string {
  return path.join(rawResultsDir, SHARD_MANIFEST_FILE_NAME);
}

export function writeShardManifest(rawResultsDir: string, manifest: ShardManifest): string {
  const filePath = shardManifestPath(rawResultsDir);
  assertFollowsSchema('shard-manifest.schema.json', manifest, `the manifest of shard ${formatShard(manifest.shard)}`);
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
  // Shards come from other machines (CI artifacts): what merge combines must be what it expects.
  const problem = schemaProblem('shard-manifest.schema.json', parsed);
  if (problem !== undefined) {
    const version = isRecord(parsed) ? parsed.schema_version : undefined;
    throw new Error(
      version === SHARD_MANIFEST_SCHEMA_VERSION
        ? `${filePath} is not a shard manifest (${problem})`
        : `${filePath} is not a shard manifest of schema version ${SHARD_MANIFEST_SCHEMA_VERSION} (schema_version ${JSON.stringify(version ?? null)}): merge shards run by this version of the harness`,
    );
  }
  return parsed as ShardManifest;
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
