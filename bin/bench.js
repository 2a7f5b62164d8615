#!/usr/bin/env node
'use strict';
// Thin launcher: the CLI is TypeScript, transpiled on the fly by esbuild (no build step to forget).
require('../lib/register');
// `bench ... --help | head` closes the pipe early: that is the reader's choice, not an error.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
}
require('../src/cli/main.ts')
  .main(process.argv)
  .then((exitCode) => {
    process.exitCode = exitCode;
  });
