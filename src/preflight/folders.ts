/**
 * Output folders checked before a run: each must be a folder this process can write, or a path
 * whose nearest existing ancestor is one (the run creates the rest). Nothing is created or written
 * here, so a failed preflight leaves the disk exactly as it was.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../errors';

/** A folder the run will write, and the setting that chose it (named in the error). */
export interface OutputFolder {
  readonly path: string;
  /** e.g. `BENCH_REPORTS_DIR`, `-o/--output`. */
  readonly setting: string;
}

/**
 * @throws ConfigError naming the setting when the folder (or its nearest existing ancestor) is not
 * a folder, or cannot be written
 */
export function checkOutputFolder(folder: OutputFolder): void {
  const problem = folderProblem(path.resolve(folder.path));
  if (problem) throw new ConfigError(folder.setting, `a folder this user can write (${problem})`, folder.path);
}

function folderProblem(target: string): string | undefined {
  let existing = target;
  for (;;) {
    let stat: fs.Stats | undefined;
    try {
      stat = fs.statSync(existing);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') return `${existing}: ${code ?? String(error)}`;
    }
    if (stat) {
      if (!stat.isDirectory()) return `${existing} is a file, not a folder`;
      try {
        fs.accessSync(existing, fs.constants.W_OK | fs.constants.X_OK);
        return undefined;
      } catch (error) {
        return `${existing} is not writable: ${(error as NodeJS.ErrnoException).code ?? String(error)}`;
      }
    }
    const parent = path.dirname(existing);
    if (parent === existing) return `no existing folder above ${target}`;
    existing = parent;
  }
}
