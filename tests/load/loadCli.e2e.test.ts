/**
 * `bench load` as a user runs it: bad input exits 2 with a line saying what to give, before
 * anything runs (no output folder made); `--help` names every flag; an example workload file runs
 * end to end against the real broker (shortened) and writes its result, time series, report,
 * archive and history entry.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../support/ports';

const ROOT = path.resolve(__dirname, '../..');
const BIN = path.join(ROOT, 'bin', 'bench.js');

interface Outcome {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

function bench(args: readonly string[], env: NodeJS.ProcessEnv = {}, timeoutMs = 120_000): Promise<Outcome> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { cwd: ROOT, env: { ...process.env, ...env }, timeout: timeoutMs },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

let tmp: string;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'amqp-bench-load-cli-'));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('bench load', () => {
  test.each([
    [['--rate', '-5'], /--rate must be ≥ 0; got "-5"/],
    [['--fault', 'meteor@1s+1s'], /fault kind must be one of reset_peer/],
    [
      ['--ack', 'multiple:10', '--client', 'rabbitmq-client', '--no-proxy'],
      /--ack must be auto, manual or nack:FRACTION for rabbitmq-client: its adapter has no multiple ack/,
    ],
    [
      ['--ack', 'multiple:10', '--prefetch', '5', '--no-proxy'],
      /--ack\/--prefetch must be a prefetch of at least 10 \(or 0\) with multiple:10/,
    ],
    [['workloads/none.yaml'], /workloads\/none\.yaml: cannot be read \(no such file\)/],
    [['--interval', '10ms'], /--interval must be at least 50ms/],
  ])('bad input %j exits 2 with what to give instead', async (args, message) => {
    const output = path.join(tmp, 'never');
    const outcome = await bench(['load', ...args, '-o', output], { BENCH_REPORTS_DIR: path.join(tmp, 'reports-never') });
    expect(outcome.stderr).toMatch(message);
    expect(outcome.code).toBe(2);
    expect(fs.existsSync(output)).toBe(false);
  });

  test('--help names every flag', async () => {
    const outcome = await bench(['load', '--help']);
    expect(outcome.code).toBe(0);
    for (const flag of [
      '--producers',
      '--consumers',
      '--rate',
      '--size',
      '--queues',
      '--queue-pattern',
      '--queue-type',
      '--prefetch',
      '--ack',
      '--confirm-window',
      '--duration',
      '--warmup',
      '--client',
      '--fault',
      '--output',
      '--interval',
      '--metrics-port',
      '--find-max-rate',
      '--compare-bare',
    ])
      expect(outcome.stdout).toContain(flag);
  });

  test('an example workload file runs end to end (shortened)', async () => {
    const output = path.join(tmp, 'perftest');
    const reports = path.join(tmp, 'reports');
    // A proxy API of its own on a free port (never 8474, where others may run one): the run starts the embedded proxy there.
    const apiPort = await freePort();
    const listenPort = await freePort();
    const outcome = await bench(
      ['load', 'workloads/perftest-like.yaml', '--duration', '2s', '--warmup', '1s', '--rate', '1000', '-o', output, '--metrics-port', '0'],
      { BENCH_REPORTS_DIR: reports, TOXIPROXY_URL: `http://127.0.0.1:${apiPort}`, BENCH_PROXY_LISTEN: `127.0.0.1:${listenPort}` },
    );
    expect([outcome.code, outcome.stderr]).toEqual([0, expect.not.stringMatching(/Error|warning/)]);
    expect(outcome.stdout).toMatch(/achieved rate\s+1000 msg\/s \(100\.00%\)/);
    expect(outcome.stderr).toMatch(/live metrics at http:\/\/127\.0\.0\.1:\d+\/metrics/);
    const result = JSON.parse(fs.readFileSync(path.join(output, 'result.json'), 'utf8')) as {
      messages: { intended: number; lost_confirmed: number };
    };
    expect(result.messages).toMatchObject({ intended: 3000, lost_confirmed: 0 });
    expect(fs.readFileSync(path.join(output, 'timeseries.csv'), 'utf8').split('\n')[0]).toContain('published,confirmed,consumed');
    expect(fs.readFileSync(path.join(output, 'report.md'), 'utf8')).toContain('![perftest_like time series](timeseries.svg)');
    expect(fs.existsSync(path.join(output, 'timeseries.svg'))).toBe(true);
    expect(fs.readdirSync(reports).some((file) => /^run_.*\.json$/.test(file))).toBe(true);
    expect(fs.existsSync(path.join(reports, 'benchmark_history.json'))).toBe(true);
  });
});
