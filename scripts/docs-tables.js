#!/usr/bin/env node
'use strict';
/**
 * Rewrites the result tables of a docs page from a recorded run (`--help` says how). The work is
 * src/cli/docsTablesCommand.ts over src/report/docsTables.ts, the report's own renderers.
 *
 *   node scripts/docs-tables.js --archive reports/benchmarks/run_<id>.json --section clients
 */
require('../lib/register');
const { runDocsTables } = require('../src/cli/docsTablesCommand.ts');

process.exitCode = runDocsTables(process.argv.slice(2), {
  cwd: process.cwd(),
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
});
