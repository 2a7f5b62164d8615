/**
 * The run script end to end: `node bin/bench.js run` on a throwaway benchmark project
 * (tests/cli/fixtures/fake-bench, selected with --jest-config), every output in temp folders.
 */
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import type { History } from '../../src/results/history';
import type { RunArchive } from '../../src/results/archive';
import { readOutcome } from '../../src/results/outcome';
import { expectValid } from '../results/schemaValidator';
import { tempDir } from '../results/helpers';
import { seedPriorRun, snapshotTree } from '../support/reportsFolder';

const execFileAsync = promisify(execFile);
const BIN = path.resolve(__dirname, '../../bin/bench.js');
const FAKE_CONFIG = path.resolve(__dirname, 'fixtures/fake-bench/jest.config.js');
const SECRET_URL = 'amqp://bench:hunter22x@127.0.0.1:5672';

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

function bench(args: string[], env: Record<string, string>): Promise<Outcome> {
  return execFileAsync('node', [BIN, ...args], { env: { ...process.env, ...env }, timeout: 120_000, maxBuffer: 10_000_000 }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
  );
}

const readJson = <T>(file: string): T => JSON.parse(fs.readFileSync(file, 'utf8')) as T;
const archivesIn = (dir: string) =>
  fs
    .readdirSync(dir)
    .filter((name) => /^run_.*\.json$/.test(name))
    .sort();

describe('bench run (end to end on a fake benchmark project)', () => {
  let root: string;
  let env: Record<string, string>;
  let out: string;
  beforeEach(() => {
    root = tempDir('e2e');
    out = path.join(root, 'reports');
    env = { BENCH_RAW_DIR: path.join(root, 'raw'), BENCH_REPORTS_DIR: out, AMQP_URL: SECRET_URL };
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  it('two runs give two archives, a history of two, junit.xml and a report comparing with the first; bench report rebuilds it from disk', async () => {
    const first = await bench(['run', '--jest-config', FAKE_CONFIG, '--no-broker'], env);
    expect(first.stdout).toContain('status      passed · 4 passed, 0 failed, 0 skipped');
    expect(first.code).toBe(0);
    const second = await bench(['run', '--jest-config', FAKE_CONFIG, '--no-broker', '--compare'], { ...env, FAKE_BENCH_SCALE: '1.3' });
    expect(second.code).toBe(0);

    const archives = archivesIn(out);
    expect(archives).toHaveLength(2);
    const history = readJson<History>(path.join(out, 'benchmark_history.json'));
    expect(history.runs.map((run) => `${run.run_id}.json`)).toEqual(archives);
    expect(readJson<RunArchive>(path.join(out, archives[1]!))).toMatchObject({
      status: 'passed',
      marker_expression: 'benchmark',
      invoked_by: 'cli',
      jest_exit_code: 0,
      counts: { passed: 4, total: 4 },
    });
    expectValid('run-archive.schema.json', readJson(path.join(out, archives[1]!)));
    expectValid('benchmark-history.schema.json', history);

    // The raw results of the second run only (the first run's were deleted before it).
    expect(
      fs
        .readdirSync(env.BENCH_RAW_DIR!)
        .filter((name) => !name.startsWith('.'))
        .map((name) => name.replace(/_fake_.*/, ''))
        .sort(),
    ).toEqual(['publish_throughput', 'recovery_after_reset_peer']);

    const report = fs.readFileSync(path.join(out, 'LATEST_REPORT.md'), 'utf8');
    expect(report).toContain(`Compared with \`${history.runs[0]!.run_id}\``);
    // 8 replicates a side, fully separated: exact Mann-Whitney p = 2/C(16,8); +30% is beyond the 20% minimum effect.
    expect(report).toMatch(
      /Throughput \(msg\/s\) +\| +1,001 msg\/s \(8 reps\) \| +1,301 msg\/s \(8 reps\) \| +\+30\.0% \[\+2\d\.\d%, \+3\d\.\d%\] \| ±20% \(config\) +\| MW exact p<0\.001, q<0\.001 +\| ✅ better/,
    );
    // Per-thread samples are never tested: the recovery figures are shown, not judged.
    expect(report).toMatch(/Detection \(first thread\) +\| [^|]+\| [^|]+\| +−23\.1% +\| [^|]+\| — +\| \? not judged/);
    // --compare prints the comparison in the terminal too.
    expect(second.stdout).toMatch(/comparison with run_\d{8}_\d{6}_[0-9a-f]{8}/);
    for (const chart of report.match(/\(chart-[a-z-]+\.svg\)/g) ?? []) {
      expect(fs.readFileSync(path.join(out, chart.slice(1, -1)), 'utf8')).toMatch(
        /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"[\s\S]*<\/svg>$/,
      );
    }

    const junit = fs.readFileSync(path.join(out, 'junit.xml'), 'utf8');
    expect(junit).toContain('<testcase classname="TestPipelineSmoke" name="test_recovery_after_reset_peer[10]"');
    expect(junit).toContain('<property name="error_detection_latency_ms" value="1.61538 ms"/>');
    expect(junit).toContain('<property name="target.error_detection_latency_ms" value="&lt; 10 ms: met"/>');

    // bench report: from disk alone, the same report (but for its generation time).
    for (const file of fs.readdirSync(out).filter((name) => name === 'LATEST_REPORT.md' || name.endsWith('.svg')))
      fs.rmSync(path.join(out, file));
    const rebuilt = await bench(['report'], env);
    expect(rebuilt.code).toBe(0);
    const again = fs.readFileSync(path.join(out, 'LATEST_REPORT.md'), 'utf8');
    expect(again.replace(/Generated .* UTC/, '')).toBe(report.replace(/Generated .* UTC/, ''));
    expect(rebuilt.stdout).toContain(`archive     ${path.join(out, archives[1]!)}`);

    // A third, slower run with --threshold fails the command on the significant regression.
    const slower = await bench(['run', '--jest-config', FAKE_CONFIG, '--no-broker', '--threshold', '10'], {
      ...env,
      FAKE_BENCH_SCALE: '0.6',
    });
    expect(slower.code).toBe(1);
    expect(slower.stdout).toMatch(/threshold {3}2 metric\(s\) judged worse by more than 10%:/);
    expect(slower.stdout).toMatch(
      /✗ publish_throughput\{.*\} Throughput \(msg\/s\): −53\.8% \[−5\d\.\d%, −5\d\.\d%\] \(MW exact p<0\.001, q<0\.001; minimum ±20% \(config\)\)/,
    );
    expect(archivesIn(out)).toHaveLength(3);

    for (const file of fs.readdirSync(out)) expect(fs.readFileSync(path.join(out, file), 'utf8')).not.toContain('hunter22x');
  }, 120_000);

  it('hands --clients and --replicates to the benchmarks (BENCH_CLIENTS, BENCH_REPLICATES), and says which clients run', async () => {
    const run = await bench(
      ['run', '--jest-config', FAKE_CONFIG, '--no-broker', '--clients', 'amqplib, rabbitmq-client:normalised', '--replicates', '2'],
      {
        ...env,
        FAKE_BENCH_ECHO_CLIENTS: '1',
        BENCH_CLIENTS: 'cloudamqp',
      },
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      'bench: 3 clients amqplib (defaults), amqplib (normalised), rabbitmq-client (normalised); 2 replicate(s) per replicated measurement',
    );
    const archive = readJson<RunArchive>(path.join(out, archivesIn(out)[0]!));
    expect(archive.results[0]!.notes).toContain(
      'BENCH_CLIENTS=amqplib:defaults,amqplib:normalised,rabbitmq-client:normalised BENCH_REPLICATES=2',
    );
    // Without the options, BENCH_CLIENTS as set, each benchmark's own replicates.
    const plain = await bench(['run', '--jest-config', FAKE_CONFIG, '--no-broker'], {
      ...env,
      FAKE_BENCH_ECHO_CLIENTS: '1',
      BENCH_CLIENTS: 'cloudamqp:defaults',
    });
    expect(plain.stdout).toContain('bench: client cloudamqp (defaults)\n');
    const latest = readJson<RunArchive>(path.join(out, archivesIn(out)[1]!));
    expect(latest.results[0]!.notes).toContain('BENCH_CLIENTS=cloudamqp:defaults BENCH_REPLICATES=');
  }, 60_000);

  it('archives a failed run, masks the password in the failure, and exits 1', async () => {
    const failed = await bench(['run', '--jest-config', FAKE_CONFIG, '--no-broker', '-m', 'benchmark and not slow'], {
      ...env,
      FAKE_BENCH_FAIL: '1',
    });
    expect(failed.code).toBe(1);
    const [archiveFile] = archivesIn(out);
    const archive = readJson<RunArchive>(path.join(out, archiveFile!));
    expect(archive).toMatchObject({
      status: 'failed',
      jest_exit_code: 1,
      marker_expression: 'benchmark and not slow',
      counts: { passed: 3, failed: 1 },
    });
    expect(archive.results).toHaveLength(2);
    expect(archive.tests.find((test) => test.status === 'failed')?.failure_message).toContain(
      'failed on purpose while talking to amqp://bench@127.0.0.1:5672',
    );
    expect(fs.readFileSync(path.join(out, 'LATEST_REPORT.md'), 'utf8')).toContain('**❌ failed: 3 tests passed, 1 failed;');
    expect(fs.readFileSync(path.join(out, 'junit.xml'), 'utf8')).toContain('<failure>');
    for (const file of fs.readdirSync(out)) expect(fs.readFileSync(path.join(out, file), 'utf8')).not.toContain('hunter22x');
  }, 60_000);

  it("--keep-results collects the earlier raw results with this run's; the old test outcome is never reused", async () => {
    expect((await bench(['run', '--jest-config', FAKE_CONFIG, '--no-broker'], env)).code).toBe(0);
    const kept = await bench(['run', '--jest-config', FAKE_CONFIG, '--no-broker', '--keep-results', '-t', 'test_publish'], env);
    expect(kept.code).toBe(0);
    const archive = readJson<RunArchive>(path.join(out, archivesIn(out)[1]!));
    expect(archive.results.map((result) => result.name).sort()).toEqual([
      'publish_throughput',
      'publish_throughput',
      'recovery_after_reset_peer',
    ]);
    expect(archive.counts).toMatchObject({ passed: 1, skipped: 3, total: 4 });
  }, 60_000);

  it('on Ctrl-C stops Jest, archives what was produced and exits 130', async () => {
    const child = spawn('node', [BIN, 'run', '--jest-config', FAKE_CONFIG, '--no-broker'], {
      env: { ...process.env, ...env, FAKE_BENCH_HANG: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    const deadline = Date.now() + 60_000;
    // Wait until the three quick tests are recorded (in the outcome's journal) and the fourth hangs.
    while (!readOutcome(env.BENCH_RAW_DIR!)?.tests.some((test) => test.test_id.endsWith('test_can_fail'))) {
      if (Date.now() > deadline) throw new Error(`the fake run never got going:\n${stdout}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    child.kill('SIGINT');
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(130);
    expect(stdout).toContain('SIGINT: stopping Jest');
    const [archiveFile] = archivesIn(out);
    const archive = readJson<RunArchive>(path.join(out, archiveFile!));
    expect(archive).toMatchObject({ status: 'interrupted', counts: { passed: 3, failed: 0, total: 3 } });
    expect(archive.results.map((result) => result.name).sort()).toEqual(['publish_throughput', 'recovery_after_reset_peer']);
    expect(readJson<History>(path.join(out, 'benchmark_history.json')).runs).toHaveLength(1);
    expect(fs.existsSync(path.join(out, 'LATEST_REPORT.md'))).toBe(true);
  }, 90_000);

  it('says plainly when the selection ran nothing, exits 1, and leaves the last report, history and raw results as they were', async () => {
    seedPriorRun(root);
    const before = snapshotTree(root);
    const result = await bench(['run', '--jest-config', FAKE_CONFIG, '--no-broker', '-t', 'no_such_test'], env);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('bench: no benchmark ran: markers "benchmark" and -t "no_such_test" selected no test (skipped: 4)\n');
    expect(result.stdout).toMatch(
      /bench: nothing archived; the report, its charts and the history in .*reports are unchanged; 2 earlier raw result file\(s\) put back in .*raw\n/,
    );
    expect(result.stdout).not.toMatch(/status +passed|✅/);
    expect(snapshotTree(root)).toEqual(before);
  }, 60_000);

  it('says Jest failed first when its globalSetup fails, writes nothing and puts the raw results back', async () => {
    seedPriorRun(root);
    const before = snapshotTree(root);
    const result = await bench(['run', '--jest-config', FAKE_CONFIG, '--no-broker'], { ...env, FAKE_BENCH_SETUP_FAIL: '1' });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('fake globalSetup failed on purpose');
    expect(result.stdout).toMatch(
      /bench: no benchmark ran: Jest failed before any benchmark file ran \(exit code 1\); its output above says why\n/,
    );
    expect(snapshotTree(root)).toEqual(before);
  }, 60_000);

  it('rejects bad options before running anything, in one line, exit 2', async () => {
    const threshold = await bench(['run', '--threshold', 'ten'], env);
    expect(threshold.code).toBe(2);
    expect(threshold.stderr.trim()).toBe('bench: --threshold must be a percentage of 0 or more (e.g. 10 or 10%); got "ten"');
    const template = await bench(['run', '--template', 'missing.hbs'], env);
    expect(template.code).toBe(2);
    expect(template.stderr.trim()).toBe(
      'bench: --template must be a Handlebars template file that exists (e.g. my-report.md.hbs); got "missing.hbs"',
    );
    const workers = await bench(['run', '-n', '0'], env);
    expect(workers.stderr.trim()).toBe(
      'bench: -n/--numprocesses must be a whole number of Jest workers, 1 or more (1 runs in band); got "0"',
    );
    const client = await bench(['run', '--clients', 'amqplib,nosuch'], env);
    expect(client.code).toBe(2);
    expect(client.stderr.trim()).toMatch(
      /^bench: --clients must be "all" or a comma-separated list of clients \(amqplib, [^)]*\) or adapter modules \(\.\/bench\/myClient\.ts\), each optionally :defaults or :normalised \(unknown client "nosuch"\); got "amqplib,nosuch"$/,
    );
    const replicates = await bench(['run', '--replicates', '0'], env);
    expect(replicates.stderr.trim()).toBe(
      'bench: --replicates must be a whole number of replicates from 1 to 50 (e.g. 2; unset: each benchmark\'s own count); got "0"',
    );
    const runId = await bench(['report', '--run', 'latest'], env);
    expect(runId.stderr.trim()).toBe(
      'bench: --run must be a run id like run_20250131_235959_1a2b3c4d (see benchmark_history.json); got "latest"',
    );
    const nothing = await bench(['report'], env);
    expect(nothing.code).toBe(1);
    expect(nothing.stderr.trim()).toBe(`bench: no archived run in ${out}; run \`npm run bench:quick\` first (or pass --output <dir>)`);
    expect(fs.existsSync(out)).toBe(false);
  }, 60_000);

  it('explains every option in --help', async () => {
    const help = await bench(['run', '--help'], env);
    for (const option of [
      '-m, --markers <expression>',
      '--quick',
      '-t, --test-name <pattern>',
      '--keep-results',
      '-o, --output <dir>',
      '--compare',
      '--threshold <percent>',
      '--template <file>',
      '-n, --numprocesses <n>',
      '--run-in-band',
      '--jest-config <file>',
      '--clients <list>',
      '--replicates <n>',
    ]) {
      expect(help.stdout).toContain(option);
    }
    expect(help.stdout).toContain('benchmark and not slow and not stress and not witness');
    const report = await bench(['report', '--help'], env);
    expect(report.stdout).toContain('--run <run_id>');
  }, 30_000);
});
