/**
 * A small cross-process lock for files several runs may update at once (the history, a run's
 * raw-results folder).
 *
 * The lock is a file created with O_EXCL (through a temp file and a link, so it is never seen
 * half written) holding who took it (src/results/lockHolder.ts). A stale lock (its holder gone
 * from this host, or not refreshed within `staleAfterMs`) is taken over at once, and the caller
 * is told whose it was. A holder that keeps a lock for long (a benchmark run) refreshes it every
 * `refreshEveryMs`, so "old and not refreshed" tells a dead holder on another host from a long
 * run. Breaking and refreshing are guarded by a second O_EXCL file (the breaker), so two waiters
 * cannot both decide a lock is stale and then delete a fresh lock the other one just took.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import { BenchError } from '../errors';
import { createFileExclusively, writeFileAtomic } from '../io/atomicFile';
import { describeHolder, readLockFile, staleReason, type LockRecord, type StaleLock } from './lockHolder';

export { describeHolder, holderName, isProcessAlive, type LockRecord, type StaleLock } from './lockHolder';

export interface FileLockOptions {
  /** Give up after waiting this long (0: one attempt, after taking over a stale lock). @default 30000 */
  readonly timeoutMs?: number;
  /** A lock not refreshed for this long is stale even if its pid is alive (pid reuse, another host). @default 600000 */
  readonly staleAfterMs?: number;
  /** Pause between attempts. @default 25 */
  readonly retryDelayMs?: number;
  /** Refresh the lock this often while it is held; 0 never (short holders). @default 0 */
  readonly refreshEveryMs?: number;
  /** Told once the lock is ours after a stale one was taken over: whose it was and why it was stale. */
  readonly onTakeOver?: (stale: StaleLock) => void;
}

const LOCK_DEFAULTS = { timeoutMs: 30_000, staleAfterMs: 600_000, retryDelayMs: 25, refreshEveryMs: 0 } as const;

/** A breaker is held for microseconds: one older than this belongs to a process that died holding it. */
const BREAKER_ABANDONED_AFTER_MS = 10_000;

/** Takeovers in a row before waiting like any other attempt (someone keeps leaving stale locks). */
const MAX_TAKEOVERS_PER_ATTEMPT = 5;

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

/**
 * Takes the lock (waiting synchronously, taking over a stale one at once); returns the function
 * that releases it (safe to call twice; it also stops the refreshing).
 * @throws BenchError (code TIMEOUT) with the holder described in full when a live holder keeps it.
 */
export function acquireFileLock(lockPath: string, options: FileLockOptions = {}): () => void {
  const { timeoutMs, staleAfterMs, retryDelayMs, refreshEveryMs } = { ...LOCK_DEFAULTS, ...options };
  const record: LockRecord = {
    pid: process.pid,
    hostname: os.hostname(),
    acquired_at: new Date().toISOString(),
    token: randomBytes(6).toString('hex'),
  };
  const deadline = Date.now() + timeoutMs;
  let takenOver: StaleLock | undefined;
  for (;;) {
    for (let attempt = 0; attempt <= MAX_TAKEOVERS_PER_ATTEMPT; attempt += 1) {
      if (createFileExclusively(lockPath, JSON.stringify(record))) {
        if (takenOver) options.onTakeOver?.(takenOver);
        return holdLock(lockPath, record, refreshEveryMs);
      }
      const cleared = clearIfStale(lockPath, staleAfterMs);
      if (cleared === 'live') break;
      if (cleared === 'retry') sleepSync(1);
      else takenOver = cleared;
    }
    if (Date.now() >= deadline) {
      const holder = readLockFile(lockPath);
      throw new BenchError(
        'TIMEOUT',
        `could not lock ${lockPath} within ${timeoutMs} ms; held by ${holder ? describeHolder(holder, staleAfterMs) : 'a holder that just let go (try again)'}`,
      );
    }
    sleepSync(retryDelayMs);
  }
}

/** The lock is ours: the release function, and the refreshing timer when asked for one. */
function holdLock(lockPath: string, record: LockRecord, refreshEveryMs: number): () => void {
  const timer =
    refreshEveryMs > 0
      ? setInterval(() => {
          try {
            refreshLock(lockPath, record);
          } catch {
            // A full disk or a vanished folder: the next round tries again; age is judged generously.
          }
        }, refreshEveryMs)
      : undefined;
  timer?.unref();
  let released = false;
  return () => {
    if (released) return;
    released = true;
    if (timer) clearInterval(timer);
    // Remove only our own lock: if it was taken over as stale meanwhile, the file is someone else's.
    if (isOurs(lockPath, record)) fs.rmSync(lockPath, { force: true });
  };
}

/**
 * Rewrites our lock with a new `refreshed_at`, under the breaker (so nobody deletes it as stale
 * between our check and our write). Returns false when the lock is no longer ours, or the
 * breaker was busy (the next round tries again).
 */
export function refreshLock(lockPath: string, record: LockRecord): boolean {
  return (
    underBreaker(lockPath, () => {
      if (!isOurs(lockPath, record)) return false;
      writeFileAtomic(lockPath, JSON.stringify({ ...record, refreshed_at: new Date().toISOString() }));
      return true;
    }) === true
  );
}

function isOurs(lockPath: string, record: LockRecord): boolean {
  const current = readLockFile(lockPath);
  return current?.kind === 'record' && current.record.pid === record.pid && current.record.token === record.token;
}

/**
 * Removes the lock if it is stale. `live`: a holder keeps it; `retry`: try to take it again now
 * (it was released meanwhile, or an abandoned breaker was cleared); otherwise the stale lock removed.
 */
function clearIfStale(lockPath: string, staleAfterMs: number): StaleLock | 'live' | 'retry' {
  const first = readLockFile(lockPath);
  if (!first) return 'retry';
  const reason = staleReason(first, staleAfterMs);
  if (reason === undefined) return 'live';
  const outcome = underBreaker(lockPath, () => {
    // Re-read under the breaker: the stale lock may already have been replaced by a live one.
    const again = readLockFile(lockPath);
    if (again && JSON.stringify(again) === JSON.stringify(first)) {
      fs.rmSync(lockPath, { force: true });
      return { found: first, reason } satisfies StaleLock;
    }
    return 'retry' as const;
  });
  return outcome ?? 'retry';
}

/** Runs `action` holding `<lock>.breaker`; undefined when another process holds it (an abandoned one is cleared). */
function underBreaker<T>(lockPath: string, action: () => T): T | undefined {
  const breaker = `${lockPath}.breaker`;
  const mine: LockRecord = { pid: process.pid, hostname: os.hostname(), acquired_at: new Date().toISOString() };
  if (!createFileExclusively(breaker, JSON.stringify(mine))) {
    removeAbandonedBreaker(breaker);
    return undefined;
  }
  try {
    return action();
  } finally {
    fs.rmSync(breaker, { force: true });
  }
}

/** A breaker whose holder is gone from this host, or older than a breaker can be, is removed. */
function removeAbandonedBreaker(breaker: string): void {
  const found = readLockFile(breaker);
  if (found && staleReason(found, BREAKER_ABANDONED_AFTER_MS) !== undefined) fs.rmSync(breaker, { force: true });
}

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
