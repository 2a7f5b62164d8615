/**
 * Worker threads do not pass through Jest's transform, so a `.ts` worker cannot be loaded as
 * is. Each worker entry (any TypeScript module whose default export is the task function) is
 * bundled with esbuild into .cache/workers/ (dependencies stay external and resolve from
 * node_modules), once per process, written atomically so two Jest processes never see half a file.
 */
import path from 'node:path';
import fs from 'node:fs';
import { buildSync } from 'esbuild';
import { PROJECT_ROOT } from '../config';
import { writeFileAtomic } from '../io/atomicFile';

const built = new Map<string, string>();

/**
 * Path of the runnable JS for the worker entry `entryPath` (an absolute path to a `.ts` module,
 * e.g. `path.join(__dirname, 'recoveryThread.ts')`), building it on first use.
 */
export function workerFile(entryPath: string): string {
  const cached = built.get(entryPath);
  if (cached) return cached;
  if (!path.isAbsolute(entryPath) || !fs.existsSync(entryPath))
    throw new Error(`no worker entry ${entryPath} (give an absolute path to a .ts module)`);
  // One output per entry, named after its place in the project (src/recovery/thread.ts -> src__recovery__thread.js).
  const name = path
    .relative(PROJECT_ROOT, entryPath)
    .replace(/\.[cm]?ts$/, '')
    .replace(/[\\/]/g, '__')
    .replace(/^(\.\.__)+/, 'outside__');
  const outfile = path.join(PROJECT_ROOT, '.cache', 'workers', `${name}.js`);
  const result = buildSync({
    entryPoints: [entryPath],
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    packages: 'external',
    sourcemap: 'inline',
    write: false,
    outfile,
    logLevel: 'silent',
  });
  writeFileAtomic(outfile, result.outputFiles[0]!.text);
  built.set(entryPath, outfile);
  return outfile;
}
