import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { captureEnvironment, computeFingerprint, readGitState } from '../../src/environment';

// Digests computed independently with: printf '%s' '<input>' | md5sum
describe('environment capture', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'bench-env-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('works outside a git checkout: commit unknown, not dirty, no throw', async () => {
    const record = await captureEnvironment({ cwd: dir });
    expect(record.git_commit).toBe('unknown');
    expect(record.git_dirty).toBe(false);
    expect(record.rabbitmq_version).toBeNull();
    expect(record.fingerprint).toBe(computeFingerprint(record));
  });

  it('reads commit and dirtiness from a real checkout', async () => {
    const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, stdio: 'pipe' });
    git('init', '-q');
    writeFileSync(path.join(dir, 'a.txt'), 'one');
    git('add', 'a.txt');
    git('-c', 'user.email=t@t', '-c', 'user.name=t', 'commit', '-q', '-m', 'first');
    const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: dir, encoding: 'utf8' }).trim();

    expect(readGitState(dir)).toEqual({ commit: head, dirty: false });
    writeFileSync(path.join(dir, 'a.txt'), 'two');
    expect(readGitState(dir)).toEqual({ commit: head, dirty: true });

    const record = await captureEnvironment({ cwd: dir });
    expect(record.git_commit).toBe(head);
    expect(record.git_dirty).toBe(true);
    expect(record.node_version).toBe(process.version);
    expect(record.platform).toBe(`${process.platform}-${process.arch}`);
    expect(record.cpu_count).toBeGreaterThan(0);
    expect(record.total_memory_bytes).toBeGreaterThan(0);
    expect(record.amqplib_version).toMatch(/^2\.\d+\.\d+/);
    expect(record.fingerprint).toMatch(/^[0-9a-f]{8}$/);
    expect(record.fingerprint).toBe(computeFingerprint(record));
  });

  it("never writes git's index, so a run killed while it reads the state leaves no .git/index.lock behind", () => {
    const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, stdio: 'pipe' });
    git('init', '-q');
    writeFileSync(path.join(dir, 'a.txt'), 'one');
    git('add', 'a.txt');
    git('-c', 'user.email=t@t', '-c', 'user.name=t', 'commit', '-q', '-m', 'first');
    // Same content, newer time: a plain `git status` would refresh the index and rewrite it.
    const later = new Date(Date.now() + 5_000);
    utimesSync(path.join(dir, 'a.txt'), later, later);
    const index = readFileSync(path.join(dir, '.git', 'index'));
    expect(readGitState(dir).dirty).toBe(false);
    expect(readFileSync(path.join(dir, '.git', 'index')).equals(index)).toBe(true);
  });

  it('asks the real broker its version and never stores the password', async () => {
    const record = await captureEnvironment({ cwd: dir, amqpUrl: 'amqp://guest:guest@127.0.0.1:5672' });
    expect(record.rabbitmq_version).toMatch(/^\d+\.\d+\.\d+/);
    expect(record.broker_url).toBe('amqp://guest@127.0.0.1:5672');
    expect(JSON.stringify(record)).not.toContain('guest:guest');
    expect(JSON.stringify(record)).not.toMatch(/:\/\/[^/@"]*:[^@"]*@/);
  });

  it('records a null broker version when the broker does not answer', async () => {
    const record = await captureEnvironment({ cwd: dir, amqpUrl: 'amqp://guest:guest@127.0.0.1:1' });
    expect(record.rabbitmq_version).toBeNull();
  });
});
