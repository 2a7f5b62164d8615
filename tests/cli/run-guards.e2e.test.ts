import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { acquireFileLock } from '../../src/results/fileLock';
import { freePort } from '../support/ports';

const BIN = path.resolve(__dirname, '../../bin/bench.js');

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
      expect(fs.existsSync(path.join(raw, 'recovery_after_reset_peer_x.json'))).toBe(true);
    } finally {
      release();
    }
  }, 60_000);
});
