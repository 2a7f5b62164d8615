/**
 * `bench merge` end to end, as a subprocess: on recorded shard output (tests/cli/fixtures/shards:
 * the three shards of a `bench run --shard i/3` of tests/cli/fixtures/sharded-bench, recorded
 * with the real CLI), it writes one archive, history entry and report; shards of another commit
 * are refused, naming them, and nothing is written. Then live: the same fake project run whole
 * and run in three shards gives the same results, by name and test id.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import type { RunArchive } from '../../src/results/archive';
import type { History } from '../../src/results/history';
import { SHARD_MANIFEST_FILE_NAME, type ShardManifest } from '../../src/results/shardManifest';
import { expectValid } from '../results/schemaValidator';
import { tempDir } from '../results/helpers';

const execFileAsync = promisify(execFile);
const BIN = path.resolve(__dirname, '../../bin/bench.js');
const SHARDS = path.resolve(__dirname, 'fixtures/shards');
const SHARDED_CONFIG = path.resolve(__dirname, 'fixtures/sharded-bench/jest.config.js');

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

function bench(args: string[], env: Record<string, string> = {}): Promise<Outcome> {
  return execFileAsync('node', [BIN, ...args], { env: { ...process.env, ...env }, timeout: 120_000, maxBuffer: 10_000_000 }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
  );
}

const readJson = <T>(file: string): T => JSON.parse(fs.readFileSync(file, 'utf8')) as T;
const archiveIn = (dir: string): RunArchive => {
  const names = fs.readdirSync(dir).filter((name) => /^run_.*\.json$/.test(name));
  expect(names).toHaveLength(1);
  return readJson<RunArchive>(path.join(dir, names[0]!));
};
const identities = (archive: RunArchive) => archive.results.map((result) => `${result.name} ${result.test_id}`).sort();

describe('bench merge (end to end)', () => {
  let root: string;
  beforeEach(() => {
    root = tempDir('merge');
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  it('merges the recorded shards into one archive, history entry and report', async () => {
    const out = path.join(root, 'reports');
    const dirs = ['shard-1', 'shard-2', 'shard-3'].map((name) => path.join(SHARDS, name));
    const merged = await bench(['merge', ...dirs, '-o', out]);
    expect(merged.stderr).toBe('');
    expect(merged.code).toBe(0);
    expect(merged.stdout).toMatch(/merged shard 1\/3 \(\d+ tests, \d+ results\), shard 2\/3 .*, shard 3\/3 .* of commit [0-9a-f]{12}/);
    const archive = archiveIn(out);
    expectValid('run-archive.schema.json', archive);
    expect(archive).toMatchObject({ status: 'passed', invoked_by: 'cli', counts: { passed: 4, failed: 0, total: 4 } });
    expect(archive.shards?.map((shard) => shard.shard)).toEqual(['1/3', '2/3', '3/3']);
    expect(identities(archive)).toEqual([
      'massive_consumers bench_gamma.bench.js::TestGamma::test_massive_consumers[100]',
      'publish_throughput bench_alpha.bench.js::TestAlpha::test_publish_throughput[10]',
      'publish_throughput bench_alpha.bench.js::TestAlpha::test_publish_throughput[50]',
      'recovery_after_reset_peer bench_beta.bench.js::TestBeta::test_recovery_after_reset_peer[10]',
    ]);
    const history = readJson<History>(path.join(out, 'benchmark_history.json'));
    expect(history.runs.map((run) => run.run_id)).toEqual([archive.run_id]);
    expectValid('benchmark-history.schema.json', history);
    expect(fs.readFileSync(path.join(out, 'LATEST_REPORT.md'), 'utf8')).toContain('publish throughput');
  });

  it('refuses shards of different commits, naming each, and writes nothing', async () => {
    const out = path.join(root, 'reports');
    const other = path.join(root, 'shard-2-other-commit');
    fs.cpSync(path.join(SHARDS, 'shard-2'), other, { recursive: true });
    const manifestPath = path.join(other, SHARD_MANIFEST_FILE_NAME);
    const manifest = readJson<ShardManifest>(manifestPath);
    fs.writeFileSync(manifestPath, JSON.stringify({ ...manifest, environment: { ...manifest.environment, git_commit: 'f'.repeat(40) } }));
    const refused = await bench(['merge', path.join(SHARDS, 'shard-1'), other, path.join(SHARDS, 'shard-3'), '-o', out]);
    expect(refused.code).toBe(1);
    const commit = manifest.environment.git_commit.slice(0, 12);
    expect(refused.stderr.trim()).toBe(
      `bench: refusing to merge shards of different commits: ${path.join(SHARDS, 'shard-1')} (shard 1/3) at ${commit}, ${other} (shard 2/3) at ffffffffffff, ${path.join(SHARDS, 'shard-3')} (shard 3/3) at ${commit}; merge the shards of one run only`,
    );
    expect(fs.existsSync(out)).toBe(false);
  });

  it('says what a folder lacks when it is not a shard', async () => {
    const refused = await bench(['merge', root, '-o', path.join(root, 'reports')]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`${root} has no shard manifest (${SHARD_MANIFEST_FILE_NAME})`);
  });

  it('gives the same results, by name and test id, whole or in three shards merged', async () => {
    const whole = path.join(root, 'whole');
    const env = (raw: string, reports: string) => ({ BENCH_RAW_DIR: raw, BENCH_REPORTS_DIR: reports });
    expect((await bench(['run', '--jest-config', SHARDED_CONFIG, '--no-broker'], env(path.join(root, 'raw-whole'), whole))).code).toBe(0);
    const shardDirs: string[] = [];
    for (const index of [1, 2, 3]) {
      const raw = path.join(root, `raw-${index}`);
      shardDirs.push(raw);
      const run = await bench(
        ['run', '--jest-config', SHARDED_CONFIG, '--no-broker', '--shard', `${index}/3`],
        env(raw, path.join(root, `reports-${index}`)),
      );
      expect(run.code).toBe(0);
      expect(run.stdout).toContain(`bench: shard ${index}/3:`);
      expect(fs.existsSync(path.join(raw, SHARD_MANIFEST_FILE_NAME))).toBe(true);
      // A shard archives and reports nothing by itself.
      expect(fs.existsSync(path.join(root, `reports-${index}`, 'LATEST_REPORT.md'))).toBe(false);
    }
    const mergedDir = path.join(root, 'merged');
    expect((await bench(['merge', ...shardDirs, '-o', mergedDir])).code).toBe(0);
    expect(identities(archiveIn(mergedDir))).toEqual(identities(archiveIn(whole)));
    expect(archiveIn(mergedDir).counts).toEqual(archiveIn(whole).counts);
  }, 170_000);

  it('refuses a --shard that is not i/n before running anything', async () => {
    const refused = await bench(['run', '--jest-config', SHARDED_CONFIG, '--no-broker', '--shard', '4/3'], {
      BENCH_RAW_DIR: path.join(root, 'raw'),
    });
    expect(refused.code).toBe(2);
    expect(refused.stderr.trim()).toBe(
      `bench: --shard must be i/n with 1 <= i <= n, as Jest's --shard (e.g. 2/3): shard 4 of 3 does not exist; got "4/3"`,
    );
  });
});
