/**
 * `bench ab` as a user runs it: a short real paired run of identical code (the working tree against
 * itself, one publish configuration, three replicates a side), and the refusals that come before
 * anything is measured.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { tempDir } from '../results/helpers';
import { startBench } from '../support/benchProcess';

const execFileAsync = promisify(execFile);
const BIN = path.resolve(__dirname, '../../bin/bench.js');
const ONE_CONFIGURATION = 'test_publish_throughput\\[10x100-256B-plain\\]';

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

function ab(args: string[], cwd: string = path.resolve(__dirname, '../..')): Promise<Outcome> {
  return execFileAsync('node', [BIN, 'ab', ...args], { cwd, env: process.env, timeout: 170_000, maxBuffer: 10_000_000 }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
  );
}

interface Turn {
  readonly side: 'A' | 'B';
  readonly label: string;
}

describe('bench ab', () => {
  let dir: string;
  beforeEach(() => {
    dir = tempDir('ab');
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('keeps identical code green: both sides in turns, A B B A, every judged metric within its minimum effect', async () => {
    const output = path.join(dir, 'out');
    const outcome = await ab(['.', '.', '-t', ONE_CONFIGURATION, '--replicates', '3', '-o', output]);
    expect({ code: outcome.code, stderr: outcome.stderr }).toEqual({ code: 0, stderr: '' });
    expect(outcome.stdout).toContain('bench ab: A the working tree against B the working tree');
    expect(outcome.stdout).toMatch(/bench ab: passed: no metric of B judged worse than A by more than 0% \(\d+ judged\)/);
    const saved = JSON.parse(fs.readFileSync(path.join(output, 'ab_comparison.json'), 'utf8')) as {
      exit_code: number;
      turns: Turn[];
      comparison: { design: string; correction: { judged: number } };
    };
    expect(saved.exit_code).toBe(0);
    expect(saved.comparison.design).toBe('paired');
    expect(saved.comparison.correction.judged).toBeGreaterThan(0);
    // One test start and three replicates a side, in A B B A order.
    expect(saved.turns.map((turn) => turn.side).join('')).toBe('ABBAABBA');
    expect(saved.turns.filter((turn) => turn.side === 'B').map((turn) => turn.label.replace(/.* (replicate \d of \d)$/, '$1'))).toEqual([
      expect.stringMatching(/^test .*test_publish_throughput\[10x100-256B-plain\]$/),
      'replicate 1 of 3',
      'replicate 2 of 3',
      'replicate 3 of 3',
    ]);
    const report = fs.readFileSync(path.join(output, 'AB_REPORT.md'), 'utf8');
    expect(report).toContain('**passed: no metric of B judged worse than A');
    expect(report).toContain('| Throughput (msg/s)');
    expect(report).toMatch(/paired t 2 pairs p=/);
    // Each side kept its own run: archive, report, log.
    for (const side of ['A', 'B']) {
      expect(fs.readdirSync(path.join(output, side, 'reports')).filter((name) => /^run_.*\.json$/.test(name))).toHaveLength(1);
      expect(fs.readFileSync(path.join(output, side, 'side.log'), 'utf8')).toContain('status      passed');
    }
  }, 180_000);

  it('keeps what both sides measured when interrupted (Ctrl-C): the finished test is compared, exit 130', async () => {
    const output = path.join(dir, 'out');
    const twoConfigurations = 'test_publish_throughput\\[10x100-256B-(plain|confirm)\\]';
    const run = startBench(['ab', '.', '.', '-t', twoConfigurations, '--replicates', '3', '-o', output], {});
    const deadline = Date.now() + 150_000;
    // Once both sides have finished the first configuration and started the second.
    while (!/ B TestPublishThroughput test_publish_throughput\[10x100-256B-confirm\]/.test(run.output()) && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 100));
    process.kill(-run.child.pid!, 'SIGINT');
    expect(await run.exited).toBe(130);
    expect(run.output()).toContain('bench ab: interrupted: each side stops and archives what it measured');
    const saved = JSON.parse(fs.readFileSync(path.join(output, 'ab_comparison.json'), 'utf8')) as {
      exit_code: number;
      verdict: string;
      sides: { status: string }[];
      comparison: { matched: { key: string }[]; correction: { judged: number } };
    };
    expect(saved).toMatchObject({ exit_code: 130, verdict: 'interrupted: compared what both sides had measured' });
    expect(saved.sides.map((side) => side.status)).toEqual(['interrupted', 'interrupted']);
    expect(saved.comparison.matched.map((result) => result.key)).toEqual([expect.stringContaining('publish_mode=plain')]);
    expect(saved.comparison.correction.judged).toBeGreaterThan(0);
  }, 180_000);

  it('refuses, before anything runs: a ref that names no commit, HEAD with uncommitted changes, too few replicates', async () => {
    const repo = path.join(dir, 'repo');
    fs.mkdirSync(repo);
    const git = (...args: string[]) => execFileAsync('git', args, { cwd: repo });
    await git('init', '--quiet');
    fs.writeFileSync(path.join(repo, 'package.json'), '{"name": "my-client", "version": "1.0.0"}\n');
    await git('add', '.');
    await git('-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '--quiet', '-m', 'first');

    const missing = await ab(['mian', 'HEAD'], repo);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('bench: the baseline must be a git ref (branch, tag or commit) of');
    expect(missing.stderr).toContain('got "mian"');

    fs.writeFileSync(path.join(repo, 'package.json'), '{"name": "my-client", "version": "1.0.1"}\n');
    const dirty = await ab(['HEAD', 'HEAD'], repo);
    expect(dirty.code).toBe(2);
    expect(dirty.stderr).toContain('"HEAD" is HEAD\'s commit');
    expect(dirty.stderr).toContain(
      'package.json has changes not committed, which a checkout of it would not measure: commit or stash them, or compare with "."',
    );

    const few = await ab(['.', '.', '--replicates', '2'], repo);
    expect(few.code).toBe(2);
    expect(few.stderr).toContain('--replicates must be 3 or more in a paired run');
  }, 60_000);

  it('says when a build cannot be installed, pointing at npm’s output', async () => {
    // No package-lock.json: `npm ci` refuses at once.
    const repo = path.join(dir, 'repo');
    fs.mkdirSync(repo);
    const git = (...args: string[]) => execFileAsync('git', args, { cwd: repo });
    await git('init', '--quiet');
    fs.writeFileSync(path.join(repo, 'package.json'), '{"name": "my-client", "version": "1.0.0"}\n');
    await git('add', '.');
    await git('-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '--quiet', '-m', 'first');
    const outcome = await ab(['HEAD', 'HEAD', '--work-dir', path.join(dir, 'work')], repo);
    expect(outcome.code).toBe(1);
    expect(outcome.stderr).toMatch(
      /bench: installing HEAD \([0-9a-f]{8}\) failed: npm ci exited \d+ in .*work\/[0-9a-f]{40} \(its output: .*bench-ab-install\.log\): The `npm ci` command can only install with an existing package-lock\.json/,
    );
    // Not marked ready: the next run does it again rather than reuse a broken install.
    const [folder] = fs.readdirSync(path.join(dir, 'work'));
    expect(fs.existsSync(path.join(dir, 'work', folder!, '.bench-ab-ready'))).toBe(false);
  }, 120_000);
});
