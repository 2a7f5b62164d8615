/** How the CLI names a file or folder in its lines: relative to the working directory when inside it, else absolute. */
import path from 'node:path';

/** `reports/benchmarks/LATEST_REPORT.md` under `cwd`; `.` for `cwd` itself; the absolute path outside it. */
export function shownPath(filePath: string, cwd: string = process.cwd()): string {
  const relative = path.relative(cwd, filePath);
  if (relative === '') return '.';
  return relative.startsWith('..') || path.isAbsolute(relative) ? filePath : relative;
}
