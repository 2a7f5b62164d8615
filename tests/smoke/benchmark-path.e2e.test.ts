/**
 * Smoke run of the real benchmark path, as a user runs it: `bench run` -> Jest's benchmark
 * project -> globalSetup (real broker, embedded proxy started in a child process on free
 * ports) -> one small test from each suite -> raw results -> archive, history, report, junit.
 * A broken benchmark, fixture, worker or pipeline step fails `npm test` here.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { getConfig } from '../../src/config';
import type { RawResult } from '../../src/results/rawResult';
import { freePort } from '../support/ports';

const ROOT = path.resolve(__dirname, '../..');

/** One quick test per suite, chosen by name. */
const SMOKE_TESTS = [
  'test_recovery_after_reset_peer\\[10\\]',
  'test_recovery_after_network_partition\\[10\\]',
  'test_network_resilience_summary',
  'test_repeated_kill_recover_cycles',
  'test_publish_throughput\\[10x100-256B-plain\\]',
  'test_publish_throughput\\[10x100-256B-confirm\\]',
];

function readJsonFiles(dir: string, prefix: string): RawResult[] {
  return fs
    .readdirSync(dir)
    .filter((name) => name.startsWith(prefix) && name.endsWith('.json'))
    .map((name) => JSON.parse(fs.readFileSync(path.join(dir, name), 'utf8')) as RawResult);
}

describe('smoke: the benchmark path end to end', () => {
  let workDir: string;
  let run: { code: number; stdout: string; stderr: string };

  beforeAll(async () => {
    workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-smoke-'));
    const env = {
      ...process.env,
      BENCH_RAW_DIR: path.join(workDir, 'raw'),
      BENCH_REPORTS_DIR: path.join(workDir, 'reports'),
      // Free ports: never disturb a proxy or broker a developer runs on the defaults.
      TOXIPROXY_URL: `http://127.0.0.1:${await freePort()}`,
      BENCH_PROXY_LISTEN: `127.0.0.1:${await freePort()}`,
      BENCH_EMBEDDED_PROXY: 'auto',
    };
    run = await new Promise((resolve) => {
      execFile(
        process.execPath,
        [path.join(ROOT, 'bin/bench.js'), 'run', '-m', 'benchmark', '-t', SMOKE_TESTS.join('|')],
        { cwd: ROOT, env, timeout: 240_000, maxBuffer: 20 * 1024 * 1024 },
        (error, stdout, stderr) => resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
    });
  }, 260_000);

  afterAll(() => {
    fs.rmSync(workDir, { recursive: true, force: true });
  });

  it('exits 0 with the embedded proxy started and stopped', () => {
    if (run.code !== 0) throw new Error(`bench run exited ${run.code}\n${run.stdout.slice(-4000)}\n${run.stderr.slice(-4000)}`);
    expect(run.stderr).toMatch(/started the embedded Toxiproxy-compatible proxy/);
  });

  it('recovery: every thread detected the fault and recovered, with every metric recorded', () => {
    const results = [
      ...readJsonFiles(path.join(workDir, 'raw'), 'recovery_after_reset_peer'),
      ...readJsonFiles(path.join(workDir, 'raw'), 'recovery_after_network_partition'),
    ];
    expect(results).toHaveLength(2);
    for (const result of results) {
      for (const metric of [
        'error_detection_latency_ms',
        'error_propagation_latency_ms',
        'full_recovery_latency_ms',
        'recovery_after_removal_ms',
      ]) {
        // A real time after a real fault: above zero, and far within the scenario's own bounds.
        expect({ metric, value: result.metrics[metric]?.value }).toEqual({ metric, value: expect.any(Number) });
        expect(result.metrics[metric]!.value).toBeGreaterThan(0);
        expect(result.metrics[metric]!.value).toBeLessThan(60_000);
      }
      expect([result.metrics.threads_detected?.value, result.metrics.threads_recovered?.value]).toEqual([10, 10]);
      expect(result.fingerprint).toMatch(/^[0-9a-f]{8}$/);
    }
  });

  it('resilience summary, stability and throughput results are written', () => {
    const raw = path.join(workDir, 'raw');
    const [summary] = readJsonFiles(raw, 'network_resilience_summary');
    expect(summary!.metrics.partition_threads_recovered!.value).toBe(10);
    const [cycles] = readJsonFiles(raw, 'kill_recover_cycles');
    expect(cycles!.metrics.leaked_connections!.value).toBe(0);
    const throughput = readJsonFiles(raw, 'publish_throughput');
    expect(throughput.map((result) => result.parameters.publish_mode).sort()).toEqual(['confirm', 'plain']);
    for (const result of throughput) expect(result.metrics.throughput_msgs_per_sec!.value).toBeGreaterThan(0);
  });

  it('archives the run, appends the history and writes the report and junit.xml, with no password in any file', () => {
    const reports = path.join(workDir, 'reports');
    const files = fs.readdirSync(reports);
    expect(files.filter((name) => /^run_\d{8}_\d{6}_[0-9a-f]{8}\.json$/.test(name))).toHaveLength(1);
    expect(JSON.parse(fs.readFileSync(path.join(reports, 'benchmark_history.json'), 'utf8')).runs).toHaveLength(1);
    const report = fs.readFileSync(path.join(reports, 'LATEST_REPORT.md'), 'utf8');
    expect(report).toMatch(/\| TCP reset · 10 threads +\| [\d.,]+ [✅❌➖] +\|/);
    expect(fs.readFileSync(path.join(reports, 'junit.xml'), 'utf8')).toMatch(/test_recovery_after_reset_peer\[10\]/);
    // The password of the URL this run used (the same environment as the run's), whatever it is.
    const password = decodeURIComponent(new URL(getConfig().amqpUrl).password);
    expect(password).not.toBe('');
    for (const name of files.filter((file) => /\.(json|md|xml|svg)$/.test(file))) {
      const text = fs.readFileSync(path.join(reports, name), 'utf8');
      expect({ name, leaks: text.includes(`:${password}@`) || /:\/\/[^/@"\s]*:[^/@"\s]*@/.test(text) }).toEqual({ name, leaks: false });
    }
  });
});
