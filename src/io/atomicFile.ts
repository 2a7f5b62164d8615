/**
 * The one way the harness writes a file that someone else may read at the same moment (a
 * report, an archive, the history, a raw result, a lock, a worker bundle): the content goes to a
 * temp file beside the target, then becomes the target in one step, so a reader sees the old
 * content or the new, never half of it, and a failed write leaves no temp file behind.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { isProcessAlive } from './processes';

/** A fresh temp path next to `filePath` (same folder, so the final rename or link is atomic). */
export function tempPathFor(filePath: string): string {
  return `${filePath}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
}

/**
 * Makes the finished temp file `temp` the file at `filePath`: `replace` renames over whatever is
 * there; `create` links it only if `filePath` does not exist yet (returns false when it does).
 * The temp file is gone afterwards in every case.
 */
export function commitTempFile(temp: string, filePath: string, mode: 'replace' | 'create' = 'replace'): boolean {
  try {
    if (mode === 'replace') {
      fs.renameSync(temp, filePath);
      return true;
    }
    fs.linkSync(temp, filePath);
    return true;
  } catch (error) {
    if (mode === 'create' && (error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    fs.rmSync(temp, { force: true });
  }
}

/** Writes `content` to `filePath` atomically, creating its folder; replaces an existing file. */
export function writeFileAtomic(filePath: string, content: string): void {
  writeThroughTemp(filePath, content, 'replace');
}

/**
 * Creates `filePath` with `content` only if it does not exist yet (O_EXCL semantics, but never
 * visible half written). Returns false when the name is taken.
 */
export function createFileExclusively(filePath: string, content: string): boolean {
  return writeThroughTemp(filePath, content, 'create');
}

function writeThroughTemp(filePath: string, content: string, mode: 'replace' | 'create'): boolean {
  fs.mkdirSync(path.dirname(filePath), { recursive: true });
  const temp = tempPathFor(filePath);
  try {
    fs.writeFileSync(temp, content, { flag: 'wx' });
  } catch (error) {
    fs.rmSync(temp, { force: true });
    throw error;
  }
  return commitTempFile(temp, filePath, mode);
}

/** `<target>.<pid>.<8 hex>.tmp`, as `tempPathFor` names them. */
const TEMP_FILE_PATTERN = /\.(\d+)\.[0-9a-f]{8}\.tmp$/;

/**
 * Removes the temp files in `dir` whose writer is gone from this host (a process killed between
 * writing and renaming; its target was never replaced, so nothing of value is in them) and that
 * are at least `minAgeMs` old (where other hosts may write, a pid gone here says nothing: a real
 * writer holds a temp file for milliseconds). Returns the names removed.
 */
export function removeAbandonedTempFiles(dir: string, minAgeMs = 0, nowMs: number = Date.now()): string[] {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const pid = Number(TEMP_FILE_PATTERN.exec(name)?.[1]);
    if (!pid || isProcessAlive(pid)) continue;
    const filePath = path.join(dir, name);
    try {
      const stat = fs.statSync(filePath);
      if (!stat.isFile() || (minAgeMs > 0 && nowMs - stat.mtimeMs < minAgeMs)) continue;
      fs.rmSync(filePath, { force: true });
      removed.push(name);
    } catch {
      // Gone meanwhile: nothing to do.
    }
  }
  return removed;
}
