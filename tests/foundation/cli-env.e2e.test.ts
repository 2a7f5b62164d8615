import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const BIN = path.resolve(__dirname, '../../bin/bench.js');

describe('bench env (the command a user runs)', () => {
  it('prints a record whose fingerprint is the MD5 of the four printed fields', async () => {
    const { stdout } = await run('node', [BIN, 'env'], { timeout: 30_000 });
    const record = JSON.parse(stdout) as Record<string, unknown>;
    const input = `${record.git_commit}:${record.git_dirty}:${record.node_version}:${record.platform}`;
    expect(record.fingerprint).toBe(createHash('md5').update(input).digest('hex').slice(0, 8));
    expect(record.rabbitmq_version).toMatch(/^\d+\./);
    expect(stdout).not.toContain('guest:guest');
  });

  it('stops with one clear line and exit code 2 on a bad setting', async () => {
    const failure = await run('node', [BIN, 'env'], {
      timeout: 30_000,
      env: { ...process.env, BENCH_PROXY_LISTEN: '127.0.0.1:99999' },
    }).catch((error: { code: number; stderr: string }) => error);
    expect('code' in failure && failure.code).toBe(2);
    expect((failure as { stderr: string }).stderr.trim().split('\n')).toEqual([
      'bench: BENCH_PROXY_LISTEN must be host:port with a port from 1 to 65535 (e.g. 127.0.0.1:25672); got "127.0.0.1:99999"',
    ]);
  });
});
