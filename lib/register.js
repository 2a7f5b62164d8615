'use strict';
/**
 * The package runs its TypeScript source as it is, with no build step to forget: esbuild compiles
 * each `.ts` file on load — this package's own, and a user's adapter module (a `.ts` file outside
 * any node_modules). Other packages' files are left alone. Registering twice is a no-op (the flag
 * lives on Node's module system, shared by Jest's sandboxes and every copy of this file).
 */
const Module = require('node:module');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const NODE_MODULES = `${path.sep}node_modules${path.sep}`;
const REGISTERED = Symbol.for('amqp-bench.typescriptRegistered');

/** Ours, or a file of the user's project; never another package's. */
function compiles(file) {
  if (file.startsWith(ROOT + path.sep)) return !file.slice(ROOT.length).includes(NODE_MODULES);
  return !file.includes(NODE_MODULES);
}

if (!Module[REGISTERED]) {
  Module[REGISTERED] = true;
  require('esbuild-register/dist/node').register({
    target: 'node20',
    extensions: ['.ts'],
    hookIgnoreNodeModules: false,
    hookMatcher: compiles,
  });
}
