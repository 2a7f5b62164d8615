/**
 * Worker threads do not pass through Jest's transform, so a `.ts` worker cannot be loaded as
 * is. Each worker entry is bundled with esbuild into .cache/workers/<name>.js (dependencies
 * stay external and resolve from node_modules), once per process, written atomically so two
 * Jest processes never see half a file.
 */
import fs from 'node:fs';
import path from 'node:path';
import { buildSync } from 'esbuild';
import { PROJECT_ROOT } from '../config';
import { writeFileAtomic } from '../results/rawResult';

const built = new Map<string, string>();

/** Path of the runnable JS for `src/workers/<name>.ts`, building it on first use. */
export function workerFile(name: string): string {
  const cached = built.get(name);
  if (cached) return cached;
  const entry = path.join(PROJECT_ROOT, 'src', 'workers', `${name}.ts`);
  if (!fs.existsSync(entry)) throw new Error(`no worker entry ${entry}`);
  const outfile = path.join(PROJECT_ROOT, '.cache', 'workers', `${name}.js`);
  const result = buildSync({
    entryPoints: [entry],
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
  built.set(name, outfile);
  return outfile;
}
