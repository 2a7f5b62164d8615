/**
 * A small cross-process lock for files several runs may update at once (the history).
 *
 * The lock is a file created with O_EXCL holding `{pid, hostname, acquired_at}`. A lock whose
 * process is gone (same host, pid not alive) or that is older than `staleAfterMs` is stale and
 * may be broken. Breaking is itself guarded by a second O_EXCL file, so two waiters cannot both
 * decide a lock is stale and then delete a fresh lock the other one just took.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import { BenchError } from '../errors';
import { createFileExclusively } from '../io/atomicFile';

export interface FileLockOptions {
  /** Give up after waiting this long. @default 30000 */
  readonly timeoutMs?: number;
  /** A lock older than this is stale even if its pid is alive (pid reuse, another host). @default 600000 */
  readonly staleAfterMs?: number;
  /** Pause between attempts. @default 25 */
  readonly retryDelayMs?: number;
}

const LOCK_DEFAULTS = { timeoutMs: 30_000, staleAfterMs: 600_000, retryDelayMs: 25 } as const;

interface LockRecord {
  readonly pid: number;
  readonly hostname: string;
  readonly acquired_at: string;
  /** Tells two acquisitions by one process apart. */
  readonly token?: string;
}

/**
 * Runs `action` while holding the lock `lockPath`; the lock is released even when it throws.
 * @throws BenchError (code TIMEOUT) naming the holder when the lock stays taken past the timeout.
 * @example withFileLock(`${historyPath}.lock`, () => appendEntry(historyPath, entry))
 */
export function withFileLock<T>(lockPath: string, action: () => T, options: FileLockOptions = {}): T {
  const release = acquireFileLock(lockPath, options);
  try {
    return action();
  } finally {
    release();
  }
}

/** Takes the lock (waiting synchronously); returns the function that releases it. */
export function acquireFileLock(lockPath: string, options: FileLockOptions = {}): () => void {
  const { timeoutMs, staleAfterMs, retryDelayMs } = { ...LOCK_DEFAULTS, ...options };
  const record: LockRecord = {
    pid: process.pid,
    hostname: os.hostname(),
    acquired_at: new Date().toISOString(),
    token: randomBytes(6).toString('hex'),
  };
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (tryCreate(lockPath, JSON.stringify(record))) {
      let released = false;
      return () => {
        if (released) return;
        released = true;
        // Remove only our own lock: if it was broken as stale meanwhile, the file is someone else's.
        const current = readLock(lockPath);
        if (current?.pid === record.pid && current.token === record.token) fs.rmSync(lockPath, { force: true });
      };
    }
    breakIfStale(lockPath, staleAfterMs);
    if (Date.now() >= deadline) {
      const holder = readLock(lockPath);
      throw new BenchError(
        'TIMEOUT',
        `could not lock ${lockPath} within ${timeoutMs} ms; held by pid ${holder?.pid ?? '?'} on ${holder?.hostname ?? '?'} since ${holder?.acquired_at ?? '?'}. ` +
          'If no other benchmark run is active, delete the lock file.',
      );
    }
    sleepSync(retryDelayMs);
  }
}

function tryCreate(filePath: string, content: string): boolean {
  return createFileExclusively(filePath, content);
}

function readLock(lockPath: string): LockRecord | undefined {
  try {
    const parsed = JSON.parse(fs.readFileSync(lockPath, 'utf8')) as Partial<LockRecord>;
    if (typeof parsed.pid === 'number' && typeof parsed.hostname === 'string' && typeof parsed.acquired_at === 'string')
      return parsed as LockRecord;
  } catch {
    // Missing, or removed by its holder since: not known to be stale.
  }
  return undefined;
}

function isStale(lock: LockRecord, staleAfterMs: number): boolean {
  const ageMs = Date.now() - Date.parse(lock.acquired_at);
  if (!(ageMs < staleAfterMs)) return true;
  return lock.hostname === os.hostname() && !isProcessAlive(lock.pid);
}

function breakIfStale(lockPath: string, staleAfterMs: number): void {
  const breaker = `${lockPath}.breaker`;
  const first = readLock(lockPath);
  if (!first || !isStale(first, staleAfterMs)) {
    removeAbandonedBreaker(breaker);
    return;
  }
  if (!tryCreate(breaker, JSON.stringify({ pid: process.pid, hostname: os.hostname(), acquired_at: new Date().toISOString() }))) {
    removeAbandonedBreaker(breaker);
    return;
  }
  try {
    // Re-read under the breaker: the stale lock may already have been replaced by a live one.
    const again = readLock(lockPath);
    if (again && again.pid === first.pid && again.acquired_at === first.acquired_at && again.token === first.token)
      fs.rmSync(lockPath, { force: true });
  } finally {
    fs.rmSync(breaker, { force: true });
  }
}

/** A breaker is held for microseconds; one older than 10 s belongs to a process that died holding it. */
function removeAbandonedBreaker(breaker: string): void {
  try {
    if (Date.now() - fs.statSync(breaker).mtimeMs > 10_000) fs.rmSync(breaker, { force: true });
  } catch {
    // Not there: nothing to do.
  }
}

export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
