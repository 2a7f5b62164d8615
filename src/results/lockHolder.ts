/**
 * Who holds a lock file (src/results/fileLock.ts), whether that holder is gone, and how to say
 * so in one line. A holder on this host is judged by its pid; a holder on another host (a shared
 * folder), whose pid means nothing here, only by the age of its last refresh.
 */
import fs from 'node:fs';
import os from 'node:os';
import { isProcessAlive } from '../io/processes';

export { isProcessAlive } from '../io/processes';

/** What a lock file holds. */
export interface LockRecord {
  readonly pid: number;
  readonly hostname: string;
  readonly acquired_at: string;
  /** Last time the holder said it is still there (a long holder refreshes its lock). Absent = never refreshed. */
  readonly refreshed_at?: string;
  /** Tells two acquisitions by one process apart. */
  readonly token?: string;
}

/** The lock file as found: a record, or a file that does not say who holds it. */
export type FoundLock =
  | { readonly kind: 'record'; readonly record: LockRecord }
  | { readonly kind: 'unreadable'; readonly reason: string; readonly modifiedAtMs: number };

/** A lock judged stale, and why (one phrase, for the line that reports the takeover). */
export interface StaleLock {
  readonly found: FoundLock;
  readonly reason: string;
}

/** The lock at `lockPath`; undefined when there is none (never taken, or released meanwhile). */
export function readLockFile(lockPath: string): FoundLock | undefined {
  let text: string;
  let modifiedAtMs: number;
  try {
    modifiedAtMs = fs.statSync(lockPath).mtimeMs;
    text = fs.readFileSync(lockPath, 'utf8');
  } catch {
    return undefined;
  }
  try {
    const parsed = JSON.parse(text) as Partial<LockRecord>;
    if (typeof parsed.pid === 'number' && typeof parsed.hostname === 'string' && typeof parsed.acquired_at === 'string')
      return { kind: 'record', record: parsed as LockRecord };
    return { kind: 'unreadable', reason: 'no pid, hostname and acquired_at in it', modifiedAtMs };
  } catch {
    // Our locks are written whole (temp file + link): this one was written by something else.
    return { kind: 'unreadable', reason: 'not JSON', modifiedAtMs };
  }
}

/** Milliseconds since the holder last said it was there (taking the lock counts). */
export function lockAgeMs(found: FoundLock, nowMs: number): number {
  if (found.kind === 'unreadable') return nowMs - found.modifiedAtMs;
  const last = Date.parse(found.record.refreshed_at ?? found.record.acquired_at);
  return Number.isNaN(last) ? Number.POSITIVE_INFINITY : nowMs - last;
}

/** Why the lock is stale, or undefined while its holder may still be there. */
export function staleReason(found: FoundLock, staleAfterMs: number, nowMs: number = Date.now()): string | undefined {
  const ageMs = lockAgeMs(found, nowMs);
  if (found.kind === 'record' && found.record.hostname === os.hostname() && !isProcessAlive(found.record.pid)) return 'its process is gone';
  if (ageMs >= staleAfterMs) return `not refreshed for ${seconds(ageMs)} (a live holder refreshes it within ${seconds(staleAfterMs)})`;
  return undefined;
}

/** Who took the lock, and when: `pid 4242 on this host, taken at 2026-11-25T10:00:00.000Z`. */
export function holderName(found: FoundLock): string {
  if (found.kind === 'unreadable') return `a lock file that does not say who holds it (${found.reason})`;
  const { pid, hostname, acquired_at } = found.record;
  return `pid ${pid} on ${hostname === os.hostname() ? 'this host' : hostname}, taken at ${acquired_at}`;
}

/**
 * The holder in one phrase: `pid 4242 on this host (running) since 2026-11-25T10:00:00.000Z, refreshed 3 s ago`,
 * or, on another host, when it will be taken over.
 */
export function describeHolder(found: FoundLock, staleAfterMs: number, nowMs: number = Date.now()): string {
  const ageMs = lockAgeMs(found, nowMs);
  if (found.kind === 'unreadable')
    return `a lock file that does not say who holds it (${found.reason}), last written ${seconds(ageMs)} ago; taken over once ${seconds(staleAfterMs)} old`;
  const { pid, hostname, acquired_at, refreshed_at } = found.record;
  const refreshed = refreshed_at ? `refreshed ${seconds(ageMs)} ago` : `not refreshed since (${seconds(ageMs)})`;
  const where =
    hostname === os.hostname()
      ? `pid ${pid} on this host (${isProcessAlive(pid) ? 'running' : 'gone'})`
      : `pid ${pid} on ${hostname} (another host: taken over once not refreshed for ${seconds(staleAfterMs)})`;
  return `${where} since ${acquired_at}, ${refreshed}`;
}

function seconds(ms: number): string {
  return Number.isFinite(ms) ? `${Math.max(0, Math.round(ms / 1000))} s` : 'ever';
}
