/**
 * The resident memory of a client program, read from Linux's /proc (the harness and its programs
 * share one machine: the process protocol's contract). Read synchronously: one small file, a few
 * microseconds, taken by a matrix thread four times a second while a stall holds.
 */
import { readFileSync } from 'node:fs';

const VM_RSS = /^VmRSS:\s+(\d+)\s+kB$/m;

/** Bytes resident for `pid`; null when the process is gone, /proc is absent (not Linux) or the line is missing. */
export function processRssBytes(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    const match = VM_RSS.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : null;
  } catch {
    return null;
  }
}
