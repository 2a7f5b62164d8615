import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { acquireFileLock } from '../../src/results/fileLock';
import { freePort } from '../support/ports';

const BIN = path.resolve(__dirname, '../../bin/bench.js');
const FAKE_CONFIG = path.resolve(__dirname, 'fixtures/fake-bench/jest.config.js');
/** No pid can be above 2^22 on Linux (the largest pid_max): a process that is certainly gone. */
const GONE_PID = 2 ** 22 + 1;

function bench(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { env: { ...process.env, ...env }, timeout: 60_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe('bench run guards (nothing runs, nothing is deleted)', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-guards-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('rejects a malformed marker expression before starting Jest, with the column marked', async () => {
    const result = await bench(['run', '-m', 'benchmark and (', '--no-broker'], {
      BENCH_RAW_DIR: path.join(dir, 'raw'),
      BENCH_REPORTS_DIR: path.join(dir, 'out'),
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /^bench: Invalid marker expression "benchmark and \(" \(from -m\/--markers\) at column 16: expected a marker name/,
    );
    expect(result.stderr).toContain('               ^');
    expect(result.stdout).not.toMatch(/jest --selectProjects/);
  }, 60_000);

  it("refuses a second run on the same raw-results folder and leaves the first one's results alone", async () => {
    const raw = path.join(dir, 'raw');
    fs.mkdirSync(raw, { recursive: true });
    fs.writeFileSync(path.join(raw, 'recovery_after_reset_peer_x.json'), '{}');
    const release = acquireFileLock(path.join(raw, '.bench-run.lock'));
    try {
      // The preflight passes first (real broker; nothing at a free loopback proxy URL), then the lock refuses.
      const result = await bench(['run', '--quick', '--no-broker'], {
        BENCH_RAW_DIR: raw,
        BENCH_REPORTS_DIR: path.join(dir, 'out'),
        TOXIPROXY_URL: `http://127.0.0.1:${await freePort()}`,
      });
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(
        /^bench: another bench run is using .*raw .*; wait for it to finish, or give this run its own folders with BENCH_RAW_DIR and BENCH_REPORTS_DIR/,
      );
      // The live holder, described in full: who, where, alive, since when, last sign of life.
      expect(result.stderr).toMatch(
        new RegExp(
          `held by pid ${process.pid} on this host \\(running\\) since \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z, not refreshed since \\(\\d+ s\\)\\)`,
        ),
      );
      expect(fs.existsSync(path.join(raw, 'recovery_after_reset_peer_x.json'))).toBe(true);
    } finally {
      release();
    }
  }, 60_000);

  const lockPath = () => path.join(dir, 'raw', '.bench-run.lock');
  const leaveLock = (holder: { pid: number; hostname: string; ageMs: number }) => {
    fs.mkdirSync(path.join(dir, 'raw'), { recursive: true });
    const at = new Date(Date.now() - holder.ageMs).toISOString();
    fs.writeFileSync(
      lockPath(),
      JSON.stringify({ pid: holder.pid, hostname: holder.hostname, acquired_at: at, refreshed_at: at, token: 'x' }),
    );
  };
  const fakeRun = () =>
    bench(['run', '--jest-config', FAKE_CONFIG, '--no-broker'], {
      BENCH_RAW_DIR: path.join(dir, 'raw'),
      BENCH_REPORTS_DIR: path.join(dir, 'out'),
    });

  it('takes over at once the lock of a run killed on this host, says so in one line, and runs', async () => {
    leaveLock({ pid: GONE_PID, hostname: os.hostname(), ageMs: 45_000 });
    const result = await fakeRun();
    expect(result.code).toBe(0);
    const takeover = result.stdout.split('\n').filter((line) => line.includes('lock'));
    expect(takeover).toEqual([
      expect.stringMatching(
        new RegExp(
          `^bench: took over the stale lock on .*raw from pid ${GONE_PID} on this host, taken at [\\d\\-T:.]+Z: its process is gone$`,
        ),
      ),
    ]);
    expect(fs.existsSync(lockPath())).toBe(false);
  }, 60_000);

  it('respects a lock refreshed moments ago on another host (its pid means nothing here), and takes it over once not refreshed for 5 minutes', async () => {
    leaveLock({ pid: GONE_PID, hostname: 'ci-runner-7', ageMs: 10_000 });
    const respected = await fakeRun();
    expect(respected.code).toBe(1);
    expect(respected.stderr).toMatch(
      new RegExp(
        `held by pid ${GONE_PID} on ci-runner-7 \\(another host: taken over once not refreshed for 300 s\\) since .*, refreshed 1\\d s ago\\); wait for it to finish`,
      ),
    );
    expect(fs.existsSync(path.join(dir, 'out'))).toBe(false);

    leaveLock({ pid: GONE_PID, hostname: 'ci-runner-7', ageMs: 301_000 });
    const taken = await fakeRun();
    expect(taken.code).toBe(0);
    expect(taken.stdout).toMatch(
      new RegExp(
        `^bench: took over the stale lock on .*raw from pid ${GONE_PID} on ci-runner-7, taken at .*: not refreshed for 30\\d s \\(a live holder refreshes it within 300 s\\)$`,
        'm',
      ),
    );
  }, 60_000);
});
