/**
 * Output folders checked before a run: each must be a folder this process can really write, or a
 * path it can really create under its nearest existing ancestor, on a file system with room; and
 * the files in it that the run replaces (the history, the report) must be writable where they
 * exist. "Really": a temp entry is created and removed in the nearest existing ancestor (with the
 * missing part of the path inside it), because permission bits say nothing of a read-only mount,
 * a full disk, /proc, or a name the file system refuses. Nothing else is touched, and the probe
 * leaves nothing behind, so a failed preflight leaves the disk exactly as it was.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../errors';
import { isProcessAlive } from '../io/processes';

/** A folder the run will write, and the setting that chose it (named in the error). */
export interface OutputFolder {
  readonly path: string;
  /** e.g. `BENCH_REPORTS_DIR`, `-o/--output`. */
  readonly setting: string;
  /** Files in the folder the run replaces (e.g. `benchmark_history.json`): each must be writable where it exists. */
  readonly replaces?: readonly string[];
}

/**
 * Room a run needs on each output folder's file system: raw results, the archive (a copy of them
 * with samples), the history rewritten beside the old one, the report and its charts.
 * @default 16 MiB
 */
export const MIN_FREE_BYTES = 16 * 1024 * 1024;

/** Prefix of the probe entry (`.bench-preflight-<pid>-<hex>`); one left by a killed preflight is removed. */
const PROBE_PREFIX = '.bench-preflight-';

/**
 * @throws ConfigError naming the setting and the folder when the folder (or its nearest existing
 * ancestor) is not a folder, cannot really be written or created, has no room, or a file it
 * replaces is read-only
 */
export function checkOutputFolder(folder: OutputFolder, minFreeBytes: number = MIN_FREE_BYTES): void {
  const target = path.resolve(folder.path);
  const problem = folderProblem(target, minFreeBytes) ?? replacedFileProblem(target, folder.replaces ?? []);
  if (problem) throw new ConfigError(folder.setting, `a folder this user can write (${problem})`, folder.path);
}

function folderProblem(target: string, minFreeBytes: number): string | undefined {
  const found = nearestExisting(target);
  if (typeof found === 'object') return found.problem;
  const existing = found;
  // The probe first: a pseudo file system (/proc) has no room to report, only refusals.
  const refused = probeProblem(existing, path.relative(existing, target), target);
  if (refused) return refused;
  let freeBytes: number;
  try {
    const stats = fs.statfsSync(existing);
    freeBytes = stats.bavail * stats.bsize;
  } catch (error) {
    return `${existing}: ${codeOf(error)}`;
  }
  if (freeBytes < minFreeBytes)
    return `${existing} has ${formatBytes(freeBytes)} free on its file system; a run needs at least ${formatBytes(minFreeBytes)}`;
  return undefined;
}

/** The nearest existing ancestor of `target` (itself included), or why there is no usable one. */
function nearestExisting(target: string): string | { problem: string } {
  let existing = target;
  for (;;) {
    try {
      if (!fs.statSync(existing).isDirectory()) return { problem: `${existing} is a file, not a folder` };
      return existing;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') return { problem: `${existing}: ${codeOf(error)}` };
    }
    const parent = path.dirname(existing);
    if (parent === existing) return { problem: `no existing folder above ${target}` };
    existing = parent;
  }
}

/**
 * Creates `.bench-preflight-<pid>-<hex>/<missing>/probe` in `existing` and removes it again;
 * the problem met, in words, or undefined when everything could be created.
 */
function probeProblem(existing: string, missing: string, target: string): string | undefined {
  removeAbandonedProbes(existing);
  const probe = path.join(existing, `${PROBE_PREFIX}${process.pid}-${randomBytes(4).toString('hex')}`);
  let created = false;
  try {
    fs.mkdirSync(probe);
    created = true;
    const inside = path.join(probe, missing);
    fs.mkdirSync(inside, { recursive: true });
    fs.writeFileSync(path.join(inside, 'probe'), 'x');
    return undefined;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EROFS') return `${existing} is on a read-only file system (EROFS)`;
    if (code === 'EACCES' || code === 'EPERM') return `${existing} is not writable: ${code}`;
    if (code === 'ENOSPC' || code === 'EDQUOT') return `no room left on the file system of ${existing} (${code})`;
    return created ? `${target} cannot be created: ${codeOf(error)}` : `nothing can be created in ${existing}: ${codeOf(error)}`;
  } finally {
    fs.rmSync(probe, { recursive: true, force: true });
  }
}

/** Probe entries of preflights that were killed before they could remove them. */
function removeAbandonedProbes(dir: string): void {
  let names: string[];
  try {
    names = fs.readdirSync(dir).filter((name) => name.startsWith(PROBE_PREFIX));
  } catch {
    return;
  }
  for (const name of names) {
    const pid = Number(/^\.bench-preflight-(\d+)-/.exec(name)?.[1]);
    if (pid && !isProcessAlive(pid)) fs.rmSync(path.join(dir, name), { recursive: true, force: true });
  }
}

/** A file the run replaces that exists but cannot be written (opened for writing, never changed). */
function replacedFileProblem(target: string, names: readonly string[]): string | undefined {
  for (const name of names) {
    const file = path.join(target, name);
    let fd: number | undefined;
    try {
      fd = fs.openSync(file, 'r+');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') continue;
      if (code === 'EROFS') return `${file} is on a read-only file system (EROFS)`;
      if (code === 'EACCES' || code === 'EPERM') return `${file} is read-only: ${code}`;
      if (code === 'EISDIR') return `${file} is a folder, not a file`;
      return `${file}: ${codeOf(error)}`;
    } finally {
      if (fd !== undefined) fs.closeSync(fd);
    }
  }
  return undefined;
}

function codeOf(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? String(error);
}

function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${Math.floor(bytes / (1024 * 1024))} MiB`;
  return `${Math.floor(bytes / 1024)} KiB`;
}
