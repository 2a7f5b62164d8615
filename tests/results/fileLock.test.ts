/**
 * The lock's holders, as a run meets them: a stale one (its pid gone from this host,
 * or not refreshed within its bound) is taken over at once and named; a live one is respected and
 * described in full; a holder on another host is judged by age alone. Real files in a temp folder.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { acquireFileLock, refreshLock, type LockRecord, type StaleLock } from '../../src/results/fileLock';
import { tempDir } from './helpers';

/** No pid can be above 2^22 on Linux (the largest pid_max): a process that is certainly gone. */
const GONE_PID = 2 ** 22 + 1;
const STALE_AFTER_MS = 300_000;

describe('file lock holders', () => {
  let dir: string;
  let lock: string;
  beforeEach(() => {
    dir = tempDir('lock-holders');
    lock = path.join(dir, '.bench-run.lock');
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const ago = (ms: number) => new Date(Date.now() - ms).toISOString();
  const leave = (record: LockRecord) => fs.writeFileSync(lock, JSON.stringify(record));
  const holder = () => JSON.parse(fs.readFileSync(lock, 'utf8')) as LockRecord;
  const refusal = (options = {}) => {
    try {
      acquireFileLock(lock, { timeoutMs: 0, staleAfterMs: STALE_AFTER_MS, ...options })();
    } catch (error) {
      return (error as Error).message;
    }
    throw new Error('the lock was taken');
  };

  it('takes over at once, with no wait, a lock whose pid is gone from this host, and says whose it was', () => {
    leave({ pid: GONE_PID, hostname: os.hostname(), acquired_at: ago(45_000), token: 'killed' });
    const takeovers: StaleLock[] = [];
    const startedAt = Date.now();
    const release = acquireFileLock(lock, { timeoutMs: 0, staleAfterMs: STALE_AFTER_MS, onTakeOver: (stale) => takeovers.push(stale) });
    expect(Date.now() - startedAt).toBeLessThan(1000);
    expect(holder()).toMatchObject({ pid: process.pid, hostname: os.hostname() });
    expect(takeovers).toHaveLength(1);
    expect(takeovers[0]!.reason).toBe('its process is gone');
    expect(takeovers[0]!.found).toMatchObject({ kind: 'record', record: { pid: GONE_PID, token: 'killed' } });
    release();
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it('respects a live holder on this host and describes it in full; the lock stays as it was', () => {
    const acquiredAt = ago(5_000);
    leave({ pid: process.pid, hostname: os.hostname(), acquired_at: acquiredAt, refreshed_at: ago(2_000), token: 'live' });
    const before = fs.readFileSync(lock, 'utf8');
    expect(refusal()).toBe(
      `could not lock ${lock} within 0 ms; held by pid ${process.pid} on this host (running) since ${acquiredAt}, refreshed 2 s ago`,
    );
    expect(fs.readFileSync(lock, 'utf8')).toBe(before);
  });

  it('takes over a lock of a live pid on this host that was not refreshed within its bound (the pid was reused)', () => {
    leave({ pid: process.pid, hostname: os.hostname(), acquired_at: ago(STALE_AFTER_MS + 60_000), token: 'old' });
    const takeovers: StaleLock[] = [];
    acquireFileLock(lock, { timeoutMs: 0, staleAfterMs: STALE_AFTER_MS, onTakeOver: (stale) => takeovers.push(stale) })();
    expect(takeovers.map((stale) => stale.reason)).toEqual(['not refreshed for 360 s (a live holder refreshes it within 300 s)']);
  });

  it('judges a holder on another host by age alone: respected while refreshed, taken over once not', () => {
    const acquiredAt = ago(3 * STALE_AFTER_MS);
    // Its pid is gone here, which says nothing about a process on another machine.
    leave({ pid: GONE_PID, hostname: 'ci-runner-7', acquired_at: acquiredAt, refreshed_at: ago(10_000), token: 'far' });
    expect(refusal()).toBe(
      `could not lock ${lock} within 0 ms; held by pid ${GONE_PID} on ci-runner-7 (another host: taken over once not refreshed for 300 s) since ${acquiredAt}, refreshed 10 s ago`,
    );
    leave({ pid: GONE_PID, hostname: 'ci-runner-7', acquired_at: acquiredAt, refreshed_at: ago(STALE_AFTER_MS + 1_000), token: 'far' });
    const takeovers: StaleLock[] = [];
    acquireFileLock(lock, { timeoutMs: 0, staleAfterMs: STALE_AFTER_MS, onTakeOver: (stale) => takeovers.push(stale) })();
    expect(takeovers.map((stale) => stale.reason)).toEqual(['not refreshed for 301 s (a live holder refreshes it within 300 s)']);
  });

  it('refreshes a held lock, so its age says the holder is there; stops when released', async () => {
    const release = acquireFileLock(lock, { timeoutMs: 0, refreshEveryMs: 40 });
    const acquired = holder();
    expect(acquired.refreshed_at).toBeUndefined();
    await new Promise((resolve) => setTimeout(resolve, 200));
    const refreshed = holder();
    expect(refreshed).toMatchObject({ pid: process.pid, token: acquired.token, acquired_at: acquired.acquired_at });
    // Still refreshed later, not once: a 40 ms interval fires before a 200 ms timeout however late the loop runs.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(Date.parse(holder().refreshed_at!)).toBeGreaterThan(Date.parse(refreshed.refreshed_at!));
    release();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it('never refreshes a lock that is no longer its own', () => {
    leave({ pid: process.pid, hostname: os.hostname(), acquired_at: ago(1_000), token: 'someone-else' });
    const before = fs.readFileSync(lock, 'utf8');
    expect(refreshLock(lock, { pid: process.pid, hostname: os.hostname(), acquired_at: ago(1_000), token: 'mine' })).toBe(false);
    expect(fs.readFileSync(lock, 'utf8')).toBe(before);
  });

  it('clears a breaker left by a process killed while it broke a stale lock, and takes the lock at once', () => {
    leave({ pid: GONE_PID, hostname: os.hostname(), acquired_at: ago(1_000), token: 'killed' });
    fs.writeFileSync(`${lock}.breaker`, JSON.stringify({ pid: GONE_PID, hostname: os.hostname(), acquired_at: ago(1_000) }));
    const release = acquireFileLock(lock, { timeoutMs: 0 });
    expect(holder().pid).toBe(process.pid);
    release();
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it('says so when a lock file does not say who holds it, and takes it over once older than the bound', () => {
    fs.writeFileSync(lock, 'garbage');
    expect(refusal()).toBe(
      `could not lock ${lock} within 0 ms; held by a lock file that does not say who holds it (not JSON), last written 0 s ago; taken over once 300 s old`,
    );
    const old = new Date(Date.now() - STALE_AFTER_MS - 5_000);
    fs.utimesSync(lock, old, old);
    acquireFileLock(lock, { timeoutMs: 0, staleAfterMs: STALE_AFTER_MS })();
    expect(fs.readdirSync(dir)).toEqual([]);
  });
});
