#!/usr/bin/env node
'use strict';
/**
 * `npm run docs:dev` / `npm run docs:build`: the docs site, with its own dependency set (the
 * "docs group" in docs/). Installs that group first when it is missing (`npm ci --prefix docs`,
 * said in one line), then runs VitePress.
 *
 *   npm run docs:dev                      serves on http://127.0.0.1:8000
 *   npm run docs:dev -- --port 8001       another port (or DOCS_PORT=8001)
 *   npm run docs:build                    static site in docs/.vitepress/dist
 */
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const DOCS = path.resolve(__dirname, '..', 'docs');
const DEFAULT_PORT = 8000;

function fail(message) {
  process.stderr.write(`docs: ${message}\n`);
  process.exit(2);
}

/** The port from `--port N` / `--port=N` among the arguments, else DOCS_PORT, else 8000. */
function portOf(args, env) {
  const index = args.findIndex((arg) => arg === '--port' || arg.startsWith('--port='));
  const raw = index < 0 ? env.DOCS_PORT : args[index].includes('=') ? args[index].split('=')[1] : args[index + 1];
  if (raw === undefined || raw === '') return { port: DEFAULT_PORT, rest: args };
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 1 || port > 65535)
    fail(`the port must be a whole number from 1 to 65535 (--port or DOCS_PORT); got "${raw}"`);
  const rest = index < 0 ? args : args.filter((_, at) => at !== index && !(at === index + 1 && !args[index].includes('=')));
  return { port, rest };
}

function run(command, args) {
  const result = spawnSync(command, args, { cwd: DOCS, stdio: 'inherit' });
  if (result.error) fail(`could not run ${command}: ${result.error.message}`);
  return result.status ?? 1;
}

function main() {
  const [mode, ...args] = process.argv.slice(2);
  if (mode !== 'dev' && mode !== 'build') fail('usage: node scripts/docs.js dev|build [--port N]');
  const vitepress = path.join(DOCS, 'node_modules', '.bin', 'vitepress');
  if (!fs.existsSync(vitepress)) {
    process.stderr.write('docs: the docs group is not installed; running `npm ci --prefix docs` first\n');
    const installed = run('npm', ['ci', '--no-audit', '--no-fund']);
    if (installed !== 0) fail('`npm ci --prefix docs` failed (see above); run it yourself and try again');
  }
  if (run(process.execPath, ['scripts/prepare-content.mjs']) !== 0) process.exit(1);
  if (mode === 'build') process.exit(run(vitepress, ['build', '.', ...args]));
  const { port, rest } = portOf(args, process.env);
  process.stderr.write(`docs: serving on http://127.0.0.1:${port} (another port: npm run docs:dev -- --port N, or DOCS_PORT=N)\n`);
  // --strictPort: a busy port is said plainly instead of silently moving elsewhere.
  process.exit(run(vitepress, ['dev', '.', '--port', String(port), '--strictPort', '--host', '127.0.0.1', ...rest]));
}

main();
