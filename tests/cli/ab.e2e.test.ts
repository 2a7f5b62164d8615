/**
 * `bench ab` as a user runs it: a short real paired run of identical code (the working tree against
 * itself, one publish configuration, three replicates a side), the same interrupted by Ctrl-C once
 * both sides have finished a configuration, and the refusals that come before anything is measured.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { tempDir } from '../results/helpers';
import { exitedWithin, killGroup, startBench, waitForOutput } from '../support/benchProcess';

const execFileAsync = promisify(execFile);
const BIN = path.resolve(__dirname, '../../bin/bench.js');
const ONE_CONFIGURATION = 'test_publish_throughput\\[10x100-256B-plain\\]';
const SIDES = ['A', 'B'] as const;
/** Both sides' start-ups and first configuration (about 20 s alone; a loaded two-core machine is several times slower). */
const SECOND_CONFIGURATION_BOUND_MS = 200_000;
/** Ctrl-C to exit: each side stops its Jest and archives, then the comparison is written. */
const STOP_BOUND_MS = 60_000;

/** The end of a side's log, for a failure's message. */
function sideLogTail(output: string, side: string): string {
  try {
    return `--- side ${side}:\n${fs.readFileSync(path.join(output, side, 'side.log'), 'utf8').slice(-2000)}`;
  } catch {
    return `--- side ${side}: no log`;
  }
}

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
      sides: { side: string; runId: string }[];
      comparison: { design: string; correction: { judged: number } };
    };
    expect(saved.exit_code).toBe(0);
    // One build on both sides, started in the same second: still two runs, told apart by their ids.
    const [a, b] = saved.sides.map((side) => side.runId);
    expect(a).not.toBe(b);
    expect(outcome.stdout).toContain(`bench ab: side A kept ${a} (passed: `);
    expect(outcome.stdout).toContain(`bench ab: side B kept ${b} (passed: `);
    expect(outcome.stdout).toContain(`comparison of ${b} (B) with ${a} (A)`);
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

  it(
    'keeps what each side finished when interrupted (Ctrl-C), says what it kept, and compares it: exit 130',
    async () => {
      const output = path.join(dir, 'out');
      const twoConfigurations = 'test_publish_throughput\\[10x100-256B-(plain|confirm)\\]';
      const run = startBench(['ab', '.', '.', '-t', twoConfigurations, '--replicates', '3', '-o', output], {});
      const whatHappened = () => `${run.output()}\n${SIDES.map((side) => sideLogTail(output, side)).join('\n')}`;
      try {
        // A side asks for its turn at a test only once the test before it is recorded: both granted
        // the second configuration means both finished the first. (B's grant alone is not enough: a
        // side that stopped early gives up its turns and leaves the other to go on alone.)
        const deadline = Date.now() + SECOND_CONFIGURATION_BOUND_MS;
        for (const side of SIDES) {
          const granted = new RegExp(` ${side} TestPublishThroughput test_publish_throughput\\[10x100-256B-confirm\\]`);
          if (!(await waitForOutput(run, granted, Math.max(0, deadline - Date.now()))))
            throw new Error(
              `side ${side} was not granted the second configuration within ${SECOND_CONFIGURATION_BOUND_MS / 1000} s:\n${whatHappened()}`,
            );
        }
        process.kill(-run.child.pid!, 'SIGINT');
        const code = await exitedWithin(run, STOP_BOUND_MS);
        if (code === 'still running')
          throw new Error(`bench ab had not stopped ${STOP_BOUND_MS / 1000} s after Ctrl-C:\n${whatHappened()}`);
        expect({ code, output: run.output() }).toMatchObject({ code: 130 });
      } finally {
        await killGroup(run);
      }
      const said = run.output();
      expect(said).toContain('bench ab: interrupted: each side stops and archives what it measured');
      // Each side says what it kept: its own run (the ids tell the two apart), the finished test and its result.
      const keptIds = SIDES.map((side) => {
        const kept = new RegExp(
          `^bench ab: side ${side} kept (run_\\S+) \\(interrupted: 1 test\\(s\\) passed, 0 failed; 1 result\\(s\\)\\) in ${output}/${side}/reports/`,
          'm',
        ).exec(said);
        expect({ side, kept: kept !== null, output: said }).toMatchObject({ kept: true });
        return kept![1]!;
      });
      expect(new Set(keptIds).size).toBe(2);
      const saved = JSON.parse(fs.readFileSync(path.join(output, 'ab_comparison.json'), 'utf8')) as {
        exit_code: number;
        verdict: string;
        sides: { status: string; runId: string }[];
        comparison: { matched: { key: string }[]; correction: { judged: number } };
      };
      expect(saved).toMatchObject({
        exit_code: 130,
        verdict: 'interrupted: compared what both sides had measured (1 result(s) both finished)',
      });
      expect(saved.sides.map((side) => [side.status, side.runId])).toEqual(keptIds.map((id) => ['interrupted', id]));
      expect(saved.comparison.matched.map((result) => result.key)).toEqual([expect.stringContaining('publish_mode=plain')]);
      expect(saved.comparison.correction.judged).toBeGreaterThan(0);
    },
    SECOND_CONFIGURATION_BOUND_MS + STOP_BOUND_MS + 20_000,
  );

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
