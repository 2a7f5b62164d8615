/**
 * The package as a user gets it: `npm pack`, installed with amqplib and Jest into a fresh
 * temporary project, then
 * - the example's external adapter (examples/reconnect-wrapper: a hand-written reconnect wrapper
 *   around amqplib) checked by `npx amqp-bench check-adapter`, then run by `npx amqp-bench run --clients ./bench/adapter.js` through one test of
 *   every suite (the stress ones aside), in both profiles, with a report whose clients section names it;
 * - a benchmark of the user's own under the Jest preset (`preset: 'amqp-bench'`), importing the
 *   public API by the package's name, its result recorded in the project's own reports folder;
 * - a tarball with what a user needs and nothing of the tests or the docs.
 * Real broker, embedded proxy on free ports, real npm (its cache).
 */
import { execFile, type ExecFileOptions } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../support/ports';

const ROOT = path.resolve(__dirname, '../..');
const EXAMPLE = path.join(ROOT, 'examples', 'reconnect-wrapper');

/**
 * One test per suite: throughput, consume, recovery, realistic, comprehensive, the fault matrix
 * (the race conditions are stress tests, minutes long: the external client goes through the same
 * forEachClient and worker code as in the others).
 */
const ONE_PER_SUITE = [
  'test_publish_throughput\\[10x100-256B-confirm\\]',
  'test_sustained_consume\\[1-256B\\]',
  'test_recovery_after_reset_peer\\[10\\]',
  'test_concurrent_produce_consume',
  'test_network_resilience_summary',
  'test_fault_broker_close',
];

interface Ran {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
  readonly ms: number;
}

function run(command: string, args: readonly string[], options: ExecFileOptions & { timeout: number }): Promise<Ran> {
  const started = Date.now();
  return new Promise((resolve) => {
    execFile(command, [...args], { maxBuffer: 50 * 1024 * 1024, ...options }, (error, stdout, stderr) =>
      resolve({
        code: error ? ((error as { code?: number }).code ?? 1) : 0,
        stdout: String(stdout),
        stderr: String(stderr),
        ms: Date.now() - started,
      }),
    );
  });
}

function expectOk(ran: Ran, what: string): void {
  // The failed tests' own lines first: the tail alone may have scrolled past them.
  const failedLines = ran.stdout.split('\n').filter((line) => /\[bench\] ✗|^\s*● /.test(line));
  if (ran.code !== 0)
    throw new Error(`${what} exited ${ran.code}\n${failedLines.join('\n')}\n${ran.stdout.slice(-5000)}\n${ran.stderr.slice(-5000)}`);
}

describe('the packed package, installed into a fresh project', () => {
  let workDir: string;
  let project: string;
  let tarball: string;
  let env: NodeJS.ProcessEnv;
  let install: Ran;

  beforeAll(async () => {
    workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-package-'));
    const packed = await run('npm', ['pack', '--silent', '--pack-destination', workDir], { cwd: ROOT, timeout: 120_000 });
    expectOk(packed, 'npm pack');
    tarball = path.join(workDir, packed.stdout.trim().split('\n').pop()!);
    project = path.join(workDir, 'project');
    fs.mkdirSync(project);
    fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'my-client', version: '1.0.0', private: true }, null, 2));
    install = await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', tarball, 'amqplib', 'jest'], {
      cwd: project,
      timeout: 300_000,
    });
    expectOk(install, 'npm install');
    env = {
      ...process.env,
      // Not this repository's folders or ports: the project's own, and free ports for the embedded proxy.
      BENCH_RAW_DIR: '',
      BENCH_REPORTS_DIR: '',
      BENCH_WORK_DIR: '',
      TOXIPROXY_URL: `http://127.0.0.1:${await freePort()}`,
      BENCH_PROXY_LISTEN: `127.0.0.1:${await freePort()}`,
      BENCH_EMBEDDED_PROXY: 'auto',
    };
  }, 420_000);

  afterAll(() => {
    fs.rmSync(workDir, { recursive: true, force: true });
  });

  it('ships what a user needs, and nothing of the tests or the docs', async () => {
    const listed = await run('tar', ['tzf', tarball], { timeout: 30_000 });
    expectOk(listed, 'tar');
    const files = listed.stdout.trim().split('\n');
    for (const needed of [
      'package/bin/amqp-bench.js',
      'package/jest-preset.js',
      'package/lib/index.js',
      'package/types/src/index.d.ts',
      'package/types/src/adapter.d.ts',
    ])
      expect(files).toContain(needed);
    expect(files.filter((file) => /^package\/(tests|docs|examples|\.ci|\.github)\//.test(file))).toEqual([]);
    const sizeKiB = fs.statSync(tarball).size / 1024;
    process.stderr.write(
      `package: ${files.length} files, ${Math.round(sizeKiB)} KiB packed; installed in ${(install.ms / 1000).toFixed(1)} s\n`,
    );
    expect(sizeKiB).toBeLessThan(1024);
  });

  it('runs an adapter from the project through every suite, and the report names it with its figures', async () => {
    fs.cpSync(path.join(EXAMPLE, 'src'), path.join(project, 'src'), { recursive: true });
    fs.cpSync(path.join(EXAMPLE, 'bench'), path.join(project, 'bench'), { recursive: true });
    // The contract first, as the example's workflow does.
    const checked = await run(path.join(project, 'node_modules', '.bin', 'amqp-bench'), ['check-adapter', './bench/adapter.js'], {
      cwd: project,
      env,
      timeout: 120_000,
    });
    expectOk(checked, 'amqp-bench check-adapter');
    expect(checked.stdout).toMatch(/reconnect-wrapper \(defaults\): \d+ passed, 1 not checked: it keeps the contract/);
    const ran = await run(
      path.join(project, 'node_modules', '.bin', 'amqp-bench'),
      ['run', '-m', 'benchmark or faults', '-t', ONE_PER_SUITE.join('|'), '--clients', './bench/adapter.js', '--replicates', '1'],
      { cwd: project, env, timeout: 230_000 },
    );
    expectOk(ran, 'amqp-bench run');
    const report = fs.readFileSync(path.join(project, 'reports', 'benchmarks', 'LATEST_REPORT.md'), 'utf8');
    // Both profiles of the adapter, side by side, named with the library under it and its module.
    expect(report).toContain('## Clients side by side');
    expect(report).toMatch(/reconnect-wrapper \(defaults\)/);
    expect(report).toMatch(/reconnect-wrapper \(normalised\)/);
    expect(report).toContain('amqplib via `bench/adapter.js`');
    const archive = JSON.parse(
      fs.readFileSync(
        path.join(
          project,
          'reports',
          'benchmarks',
          fs.readdirSync(path.join(project, 'reports', 'benchmarks')).find((name) => /^run_.*\.json$/.test(name))!,
        ),
        'utf8',
      ),
    ) as { results: { name: string; client?: { name: string; adapter_module?: string } }[]; counts: { passed: number; failed: number } };
    // Every suite produced a result of the external client.
    const families = new Set(archive.results.filter((result) => result.client?.name === 'reconnect-wrapper').map((result) => result.name));
    expect([...families]).toEqual(
      expect.arrayContaining([
        'publish_throughput',
        'sustained_consume',
        'recovery_after_reset_peer',
        'realistic_concurrent_produce_consume',
        'fault_matrix_broker_close',
      ]),
    );
    expect(archive.counts.failed).toBe(0);
    process.stderr.write(`package: amqp-bench run with the external adapter took ${(ran.ms / 1000).toFixed(1)} s\n`);
    // The contract check and one test of every suite for two profiles: about 2 min alone, over 3 beside CI's other worker.
  }, 360_000);

  it("runs a benchmark of the project's own under the Jest preset, with the public API by the package name", async () => {
    fs.writeFileSync(path.join(project, 'jest.config.js'), "module.exports = { preset: 'amqp-bench' };\n");
    fs.writeFileSync(
      path.join(project, 'round-trip.bench.js'),
      `/** @benchmark */
const amqp = require('amqplib');
const { benchContext, recordResult, markedTest } = require('amqp-bench');

markedTest()('test_my_round_trip', async () => {
  const connection = await amqp.connect(benchContext().proxiedUrl);
  try {
    const channel = await connection.createChannel();
    const { queue } = await channel.assertQueue('', { exclusive: true });
    const started = process.hrtime.bigint();
    channel.sendToQueue(queue, Buffer.from('ping'));
    let message = false;
    while (!message) message = await channel.get(queue, { noAck: true });
    const roundTripMs = Number(process.hrtime.bigint() - started) / 1e6;
    recordResult({ name: 'my_round_trip', category: 'throughput', parameters: { size_bytes: 4 }, metrics: { round_trip_ms: { value: roundTripMs, unit: 'ms' } } });
    expect(message.content.toString()).toBe('ping');
  } finally {
    await connection.close();
  }
}, 30000);
`,
    );
    const ran = await run(path.join(project, 'node_modules', '.bin', 'jest'), [], { cwd: project, env, timeout: 180_000 });
    expectOk(ran, 'jest with the preset');
    const raw = path.join(project, 'reports', '.test-output');
    expect(fs.readdirSync(raw).filter((name) => name.startsWith('my_round_trip_'))).toHaveLength(1);
    expect(fs.readFileSync(path.join(project, 'reports', 'benchmarks', 'LATEST_REPORT.md'), 'utf8')).toContain('my_round_trip');
  });
});
