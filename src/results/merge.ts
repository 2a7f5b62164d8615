/**
 * `bench merge`: the shards of one run (each a raw-results folder with its shard manifest),
 * combined into one run archive, one history entry and one report, as if the run had not been
 * split. This is the pure core (checks and combination) and the reading of shard folders;
 * src/run/merge.ts writes the merged run through the run's own steps.
 *
 * Refused (nothing written): shards of different commits (the message names each folder and
 * its commit), shards of different splits (`1/3` with `1/2`), the same shard twice. Merged
 * with a warning: missing shards, a different selection, Node version or dirty flag.
 */
import { BenchError } from '../errors';
import type { EnvironmentRecord } from '../environment';
import { collectRawResults, type InvalidResultFile } from './collect';
import type { SuiteError, TestOutcome } from './outcome';
import type { RawResult } from './rawResult';
import { formatShard, readShardManifest, type ShardManifest, type ShardSummary } from './shardManifest';

export interface ShardRun {
  /** The folder as given (named in messages). */
  readonly dir: string;
  readonly manifest: ShardManifest;
  readonly results: readonly RawResult[];
  readonly files: readonly string[];
  readonly invalid: readonly InvalidResultFile[];
}

export interface MergePlan {
  readonly environment: EnvironmentRecord;
  readonly startedAt: Date;
  readonly finishedAt: Date;
  readonly markerExpression: string | null;
  readonly testNameFilter: string | null;
  readonly jestExitCode: number | null;
  readonly interrupted: boolean;
  readonly tests: readonly TestOutcome[];
  readonly suiteErrors: readonly SuiteError[];
  readonly results: readonly RawResult[];
  readonly invalid: readonly InvalidResultFile[];
  readonly shards: readonly ShardSummary[];
  readonly warnings: readonly string[];
}

const shortCommit = (commit: string) => commit.slice(0, 12);
const label = (run: ShardRun) => `${run.dir} (shard ${formatShard(run.manifest.shard)})`;

/** Checks and combines shards (pure). @throws BenchError (RESULT_INVALID) when they are not one run's */
export function planMerge(runs: readonly ShardRun[]): MergePlan {
  if (runs.length === 0) throw new BenchError('RESULT_INVALID', 'no shard folders given: bench merge <dir> <dir> ...');
  const commits = new Set(runs.map((run) => run.manifest.environment.git_commit));
  if (commits.size > 1) {
    throw new BenchError(
      'RESULT_INVALID',
      `refusing to merge shards of different commits: ${runs.map((run) => `${label(run)} at ${shortCommit(run.manifest.environment.git_commit)}`).join(', ')}; merge the shards of one run only`,
    );
  }
  const counts = new Set(runs.map((run) => run.manifest.shard.count));
  if (counts.size > 1) {
    throw new BenchError('RESULT_INVALID', `refusing to merge shards of different splits: ${runs.map(label).join(', ')}`);
  }
  const count = runs[0]!.manifest.shard.count;
  const byIndex = new Map<number, ShardRun>();
  for (const run of runs) {
    const twin = byIndex.get(run.manifest.shard.index);
    if (twin) throw new BenchError('RESULT_INVALID', `shard ${formatShard(run.manifest.shard)} given twice: ${twin.dir} and ${run.dir}`);
    byIndex.set(run.manifest.shard.index, run);
  }
  const ordered = [...runs].sort((a, b) => a.manifest.shard.index - b.manifest.shard.index);
  const first = ordered[0]!;
  const warnings: string[] = [];
  const missing = Array.from({ length: count }, (_, index) => index + 1).filter((index) => !byIndex.has(index));
  if (missing.length > 0)
    warnings.push(
      `shard(s) ${missing.map((index) => `${index}/${count}`).join(', ')} missing: the merged run covers ${runs.length} of ${count} shards`,
    );
  const differing = (what: string, value: (run: ShardRun) => unknown) => {
    if (new Set(ordered.map((run) => JSON.stringify(value(run)))).size > 1)
      warnings.push(
        `shards differ in ${what}: ${ordered.map((run) => `${formatShard(run.manifest.shard)} ${JSON.stringify(value(run))}`).join(', ')}`,
      );
  };
  differing('marker expression', (run) => run.manifest.marker_expression);
  differing('test-name filter', (run) => run.manifest.test_name_filter);
  differing('fingerprint (dirty flag, Node version or platform)', (run) => run.manifest.environment.fingerprint);
  for (const run of ordered) {
    if (!run.manifest.outcome) warnings.push(`${label(run)}: Jest left no test outcome; its results are merged without their tests`);
    const absent = run.manifest.raw_result_files.filter((file) => !run.files.includes(file));
    if (absent.length > 0)
      warnings.push(
        `${label(run)}: ${absent.length} raw result file(s) named in its manifest are missing: ${absent.slice(0, 5).join(', ')}`,
      );
  }
  const tests = ordered.flatMap((run) => run.manifest.outcome?.tests ?? []);
  const seen = new Set<string>();
  for (const test of tests) {
    if (seen.has(test.test_id) && test.status !== 'skipped') warnings.push(`test ${test.test_id} ran in more than one shard`);
    seen.add(test.test_id);
  }
  const exitCodes = ordered.map((run) => run.manifest.jest_exit_code);
  return {
    environment: first.manifest.environment,
    startedAt: new Date(Math.min(...ordered.map((run) => Date.parse(run.manifest.started_at)))),
    finishedAt: new Date(Math.max(...ordered.map((run) => Date.parse(run.manifest.finished_at)))),
    markerExpression: first.manifest.marker_expression,
    testNameFilter: first.manifest.test_name_filter,
    // The worst shard speaks for the run: a signal (null) or a failure wins over success.
    jestExitCode: exitCodes.includes(null) ? null : Math.max(...(exitCodes as number[])),
    interrupted: ordered.some((run) => run.manifest.interrupted),
    tests: dropSkippedTwins(tests),
    suiteErrors: ordered.flatMap((run) => run.manifest.outcome?.suite_errors ?? []),
    results: ordered.flatMap((run) => run.results).sort((a, b) => a.timestamp.localeCompare(b.timestamp)),
    invalid: ordered.flatMap((run) => run.invalid.map((file) => ({ ...file, file: `${run.dir}/${file.file}` }))),
    shards: ordered.map((run) => ({
      shard: formatShard(run.manifest.shard),
      source: run.dir,
      started_at: run.manifest.started_at,
      finished_at: run.manifest.finished_at,
      jest_exit_code: run.manifest.jest_exit_code,
      tests: run.manifest.outcome?.tests.length ?? 0,
      results: run.results.length,
    })),
    warnings,
  };
}

/** A test listed by several shards (Jest lists a file's tests only in the shard that runs it; kept safe anyway): the one that ran wins. */
function dropSkippedTwins(tests: readonly TestOutcome[]): TestOutcome[] {
  const byId = new Map<string, TestOutcome>();
  for (const test of tests) {
    const known = byId.get(test.test_id);
    if (!known || (known.status === 'skipped' && test.status !== 'skipped')) byId.set(test.test_id, test);
  }
  return [...byId.values()];
}

/** Reads one shard folder. @throws Error naming the folder when it is not one */
export function readShardRun(dir: string): ShardRun {
  const manifest = readShardManifest(dir);
  const collected = collectRawResults(dir);
  return { dir, manifest, results: collected.results, files: collected.files, invalid: collected.invalid };
}
