/**
 * Where this package lives: the nearest folder up from this file whose package.json is
 * amqp-bench's. A worker thread's bundle runs from .cache/workers/, and an installed package sits
 * in the user's node_modules/, so neither `__dirname/..` nor the working directory will do.
 */
import fs from 'node:fs';
import path from 'node:path';

export function packageRoot(from: string = __dirname): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    try {
      if ((JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name?: string }).name === 'amqp-bench') return dir;
    } catch {
      // no package.json here: look further up
    }
    if (path.dirname(dir) === dir) return path.resolve(from, '..');
  }
}
