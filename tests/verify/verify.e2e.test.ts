/**
 * `bench verify` as a user runs it, on two of its witnesses (the proxy's round trip and the
 * reset_peer scenario whose fault timeline is checked against a packet capture): the real broker,
 * the embedded proxy on a port of its own, tshark when this machine has it. What it found lands
 * in verifications.json of the reports folder, following its schema, and the terminal says it.
 */
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readVerifications } from '../../src/results/verifications';
import { freePort } from '../support/ports';

const ROOT = path.resolve(__dirname, '../..');

function hasTshark(): boolean {
  try {
    execFileSync('tshark', ['--version'], { stdio: 'ignore' });
    return process.getuid?.() === 0;
  } catch {
    return false;
  }
}

describe('bench verify end to end', () => {
  let workDir: string;
  let run: { code: number; stdout: string; stderr: string };

  beforeAll(async () => {
    workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-verify-'));
    const env = {
      ...process.env,
      BENCH_RAW_DIR: path.join(workDir, 'raw'),
      BENCH_REPORTS_DIR: path.join(workDir, 'reports'),
      TOXIPROXY_URL: `http://127.0.0.1:${await freePort()}`,
      BENCH_EMBEDDED_PROXY: 'auto',
    };
    run = await new Promise((resolve) => {
      execFile(
        process.execPath,
        [path.join(ROOT, 'bin/bench.js'), 'verify', '-t', 'test_recovery_after_reset_peer\\[10\\]|test_proxy_round_trip_latency'],
        { cwd: ROOT, env, timeout: 240_000, maxBuffer: 20 * 1024 * 1024 },
        (error, stdout, stderr) => resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
    });
  }, 260_000);

  afterAll(() => {
    fs.rmSync(workDir, { recursive: true, force: true });
  });

  it('records one partial verification with the witness check and the capture check', () => {
    const { verifications, corrupt } = readVerifications(path.join(workDir, 'reports'));
    if (verifications.length !== 1)
      throw new Error(`bench verify exited ${run.code}\n${run.stdout.slice(-4000)}\n${run.stderr.slice(-4000)}`);
    expect(corrupt).toBeUndefined();
    const [verification] = verifications;
    expect(verification!.test_name_filter).toBe('test_recovery_after_reset_peer\\[10\\]|test_proxy_round_trip_latency');
    expect(verification!.checks.map((check) => `${check.witness} ${check.metric}`)).toEqual(['proxy_added_latency added_median_ms']);
    expect(verification!.checks[0]!.value).toBeGreaterThan(0);
    if (hasTshark()) {
      // 5 replicates of 10 connections, every RST the proxy stamped seen on the wire.
      expect(verification!.capture).toMatchObject({ status: 'agreed', connections: 50 });
    } else {
      expect(verification!.capture.status).toBe('skipped');
    }
    expect(verification!.run_id).toMatch(/^run_/);
    expect(fs.existsSync(path.join(workDir, 'reports', 'verify', 'LATEST_REPORT.md'))).toBe(true);
  });

  it('prints each check and the verdict, and exits by it', () => {
    expect(run.stdout).toMatch(/Harness verification/);
    expect(run.stdout).toMatch(/Proxy added latency .*added_median_ms/);
    expect(run.stdout).toMatch(/fault timeline vs packet capture: (agreed|skipped)/);
    const verdict = /verdict: (\w+)/.exec(run.stdout)?.[1];
    expect(['sound', 'inconclusive']).toContain(verdict);
    expect(run.code).toBe(0);
  });
});
