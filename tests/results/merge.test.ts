/**
 * `bench merge`'s pure core: which shards it refuses (and how it says so), what it combines,
 * and the shard option's parsing.
 */
import { planMerge, type ShardRun } from '../../src/results/merge';
import type { TestOutcome } from '../../src/results/outcome';
import { parseShard, SHARD_MANIFEST_SCHEMA_VERSION, type ShardManifest } from '../../src/results/shardManifest';
import { resolveShardOption, shardArguments } from '../../src/cli/shard';
import { environment, publishResult, recoveryResult } from './helpers';

const COMMIT = '0123456789abcdef0123456789abcdef01234567';

function test_(id: string, status: TestOutcome['status'] = 'passed'): TestOutcome {
  return {
    test_id: id,
    full_name: id.split('::').slice(1).join(' '),
    status,
    duration_ms: status === 'skipped' ? null : 100,
    failure_message: null,
  };
}

function shard(index: number, count: number, overrides: Partial<ShardManifest> = {}, run: Partial<ShardRun> = {}): ShardRun {
  const results = run.results ?? [publishResult(10 * index, 'plain', 1000 * index)];
  const files = results.map((_, n) => `result_${index}_${n}.json`);
  const manifest: ShardManifest = {
    schema_version: SHARD_MANIFEST_SCHEMA_VERSION,
    shard: { index, count },
    environment: environment({ git_commit: COMMIT }),
    started_at: `2025-01-31T12:0${index}:00.000Z`,
    finished_at: `2025-01-31T12:0${index}:30.000Z`,
    marker_expression: 'benchmark and not slow and not stress',
    test_name_filter: null,
    jest_exit_code: 0,
    interrupted: false,
    outcome: {
      schema_version: 1,
      started_at: `2025-01-31T12:0${index}:00.000Z`,
      updated_at: `2025-01-31T12:0${index}:30.000Z`,
      complete: true,
      tests: results.map((result) => test_(result.test_id)),
      suite_errors: [],
    },
    raw_result_files: files,
    ...overrides,
  };
  return { dir: `/ci/shard-${index}`, manifest, results, files, invalid: [], ...run };
}

describe('planMerge: refusals', () => {
  it('refuses shards of different commits, naming each folder, its shard and its commit', () => {
    const other = shard(2, 3, { environment: environment({ git_commit: 'fedcba9876543210fedcba9876543210fedcba98' }) });
    expect(() => planMerge([shard(1, 3), other, shard(3, 3)])).toThrow(
      'refusing to merge shards of different commits: /ci/shard-1 (shard 1/3) at 0123456789ab, /ci/shard-2 (shard 2/3) at fedcba987654, /ci/shard-3 (shard 3/3) at 0123456789ab; merge the shards of one run only',
    );
  });

  it('refuses shards of different splits and the same shard twice', () => {
    expect(() => planMerge([shard(1, 3), shard(2, 2)])).toThrow(
      'refusing to merge shards of different splits: /ci/shard-1 (shard 1/3), /ci/shard-2 (shard 2/2)',
    );
    expect(() => planMerge([shard(1, 3), { ...shard(1, 3), dir: '/ci/again' }])).toThrow(
      'shard 1/3 given twice: /ci/shard-1 and /ci/again',
    );
  });

  it('refuses an empty list', () => {
    expect(() => planMerge([])).toThrow('no shard folders given');
  });
});

describe('planMerge: the combined run', () => {
  it('is every shard together: tests, results (by time), earliest start, latest end, the worst exit code', () => {
    const third = shard(3, 3, { jest_exit_code: 1 }, { results: [recoveryResult('recovery_after_reset_peer', 10, 'manual', 2, 400)] });
    const plan = planMerge([third, shard(1, 3), shard(2, 3)]);
    expect(plan.shards.map((entry) => entry.shard)).toEqual(['1/3', '2/3', '3/3']);
    expect(plan.tests).toHaveLength(3);
    expect(plan.results.map((result) => result.name).sort()).toEqual([
      'publish_throughput',
      'publish_throughput',
      'recovery_after_reset_peer',
    ]);
    expect(plan.startedAt.toISOString()).toBe('2025-01-31T12:01:00.000Z');
    expect(plan.finishedAt.toISOString()).toBe('2025-01-31T12:03:30.000Z');
    expect(plan.jestExitCode).toBe(1);
    expect(plan.environment.git_commit).toBe(COMMIT);
    expect(plan.warnings).toEqual([]);
  });

  it('merges a partial set with a warning, and says when selections or fingerprints differ', () => {
    const plan = planMerge([
      shard(1, 3),
      shard(3, 3, { marker_expression: 'benchmark', environment: environment({ git_commit: COMMIT, fingerprint: 'ffff0000' }) }),
    ]);
    expect(plan.warnings).toEqual([
      'shard(s) 2/3 missing: the merged run covers 2 of 3 shards',
      'shards differ in marker expression: 1/3 "benchmark and not slow and not stress", 3/3 "benchmark"',
      'shards differ in fingerprint (dirty flag, Node version or platform): 1/3 "abcd1234", 3/3 "ffff0000"',
    ]);
  });

  it('says when a raw result named in a manifest is missing, and when a shard left no outcome', () => {
    const lost = shard(1, 1, { outcome: null, raw_result_files: ['result_1_0.json', 'gone.json'] });
    expect(planMerge([lost]).warnings).toEqual([
      '/ci/shard-1 (shard 1/1): Jest left no test outcome; its results are merged without their tests',
      '/ci/shard-1 (shard 1/1): 1 raw result file(s) named in its manifest are missing: gone.json',
    ]);
  });

  it('takes a signal (no exit code) over success, and an interruption anywhere for the run', () => {
    const plan = planMerge([shard(1, 2), shard(2, 2, { jest_exit_code: null, interrupted: true })]);
    expect(plan.jestExitCode).toBeNull();
    expect(plan.interrupted).toBe(true);
  });
});

describe('--shard', () => {
  it.each([
    ['1/3', { index: 1, count: 3 }],
    [' 3 / 3 ', { index: 3, count: 3 }],
    ['0/3', 'shard 0 of 3 does not exist'],
    ['4/3', 'shard 4 of 3 does not exist'],
    ['1-3', 'not of the form i/n'],
    ['a/b', 'not of the form i/n'],
  ])('parses %j', (raw, expected) => {
    expect(parseShard(raw)).toEqual(expected);
  });

  it('is passed to Jest as --shard i/n, and a bad one is refused naming the form', () => {
    expect(shardArguments(resolveShardOption('2/3'))).toEqual(['--shard', '2/3']);
    expect(shardArguments(resolveShardOption(undefined))).toEqual([]);
    expect(() => resolveShardOption('3')).toThrow(
      `--shard must be i/n with 1 <= i <= n, as Jest's --shard (e.g. 2/3): not of the form i/n; got "3"`,
    );
  });
});
