/**
 * `bench run --shard i/n`: Jest runs only its share of the benchmark files (`--shard i/n`), and
 * the run ends by writing the shard manifest beside the raw results instead of archiving and
 * reporting a partial run; `bench merge` turns the shards' folders into the one run.
 */
import path from 'node:path';
import type { EnvironmentRecord } from '../environment';
import { ConfigError } from '../errors';
import { collectRawResults } from '../results/collect';
import { countTests, readOutcome } from '../results/outcome';
import { formatShard, parseShard, SHARD_MANIFEST_SCHEMA_VERSION, writeShardManifest, type Shard } from '../results/shardManifest';
import { shownPath } from './shownPath';

/** `--shard` as given on the command line. @throws ConfigError naming the expected form */
export function resolveShardOption(raw: string | undefined): Shard | null {
  if (raw === undefined) return null;
  const parsed = parseShard(raw);
  if (typeof parsed === 'string') throw new ConfigError('--shard', `i/n with 1 <= i <= n, as Jest's --shard (e.g. 2/3): ${parsed}`, raw);
  return parsed;
}

/** Jest's own arguments for the shard. */
export function shardArguments(shard: Shard | null): string[] {
  return shard ? ['--shard', formatShard(shard)] : [];
}

export interface ShardRunEnd {
  readonly shard: Shard;
  readonly environment: EnvironmentRecord;
  readonly startedAt: Date;
  readonly finishedAt: Date;
  readonly markerExpression: string;
  readonly testNameFilter: string | null;
  readonly jestExitCode: number | null;
  readonly interrupted: boolean;
  readonly rawResultsDir: string;
}

/** Writes the shard manifest and says what the shard left; resolves with the run's exit code. */
export function finishShardRun(end: ShardRunEnd, log: (line: string) => void): number {
  const outcome = readOutcome(end.rawResultsDir) ?? null;
  const collected = collectRawResults(end.rawResultsDir);
  const manifestPath = writeShardManifest(end.rawResultsDir, {
    schema_version: SHARD_MANIFEST_SCHEMA_VERSION,
    shard: end.shard,
    environment: end.environment,
    started_at: end.startedAt.toISOString(),
    finished_at: end.finishedAt.toISOString(),
    marker_expression: end.markerExpression,
    test_name_filter: end.testNameFilter,
    jest_exit_code: end.jestExitCode,
    interrupted: end.interrupted,
    outcome,
    raw_result_files: [...collected.files],
  });
  const counts = countTests(outcome?.tests ?? [], outcome?.suite_errors ?? []);
  const shown = shownPath(end.rawResultsDir);
  log(
    `bench: shard ${formatShard(end.shard)}: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped; ` +
      `${collected.results.length} raw result(s) and the shard manifest (${path.basename(manifestPath)}) in ${shown}`,
  );
  log(`bench: no archive or report for a shard: merge the shards' folders with \`bench merge <dir> <dir> ...\``);
  if (end.interrupted) return 130;
  const failed = counts.failed > 0 || counts.failed_suites > 0 || (end.jestExitCode !== null && end.jestExitCode !== 0);
  return failed ? 1 : 0;
}
