/**
 * The history and the file lock across real processes (integration: OS processes and files).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { withFileLock } from '../../src/results/fileLock';
import { historyPath, readHistory } from '../../src/results/history';
import { tempDir } from './helpers';

const run = promisify(execFile);

describe('history and lock across processes', () => {
  let dir: string;
  beforeEach(() => {
    dir = tempDir('history-processes');
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('two processes appending 20 entries each at once leave 40 entries', async () => {
    const script = path.join(__dirname, 'fixtures', 'append-history.js');
    await Promise.all(['1', '2'].map((writer) => run('node', [script, dir, writer, '20'], { timeout: 60_000 })));
    const history = readHistory(dir);
    expect(history.corrupt).toBeUndefined();
    expect(history.history.runs).toHaveLength(40);
    expect(new Set(history.history.runs.map((run) => run.run_id)).size).toBe(40);
    expect(fs.existsSync(`${historyPath(dir)}.lock`)).toBe(false);
  }, 90_000);

  it('breaks a lock left by a process that is gone', async () => {
    const lock = path.join(dir, 'x.lock');
    const { stdout } = await run('node', ['-e', 'process.stdout.write(String(process.pid))']);
    fs.writeFileSync(
      lock,
      JSON.stringify({
        pid: Number(stdout),
        hostname: os.hostname(),
        acquired_at: new Date().toISOString(),
        token: 'dead',
      }),
    );
    expect(withFileLock(lock, () => 'ran', { timeoutMs: 2000 })).toBe('ran');
  });
});
