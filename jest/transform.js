'use strict';
/**
 * Jest transform of the benchmark project and the preset (`preset: 'amqp-bench'`): esbuild
 * compiles TypeScript (and modern JavaScript) to CommonJS, types stripped, not checked (as
 * ts-jest with isolatedModules; `tsc --noEmit` checks types). esbuild is a dependency already
 * (worker bundles), so an installed package needs no ts-jest.
 */
const crypto = require('node:crypto');
const { transformSync } = require('esbuild');
const { version } = require('esbuild/package.json');

const LOADERS = { '.ts': 'ts', '.mts': 'ts', '.cts': 'ts', '.tsx': 'tsx', '.js': 'js', '.mjs': 'js', '.cjs': 'js', '.jsx': 'jsx' };

module.exports = {
  process(source, filename) {
    const extension = filename.slice(filename.lastIndexOf('.'));
    const result = transformSync(source, {
      loader: LOADERS[extension] ?? 'js',
      format: 'cjs',
      target: 'node20',
      sourcemap: 'inline',
      sourcefile: filename,
    });
    return { code: result.code };
  },
  getCacheKey(source, filename) {
    return crypto.createHash('sha1').update(version).update('\0').update(filename).update('\0').update(source).digest('hex');
  },
};
