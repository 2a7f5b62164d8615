#!/usr/bin/env node
'use strict';
// Thin launcher: the CLI is TypeScript, transpiled on the fly by esbuild (no build step to forget).
require('esbuild-register/dist/node').register({ target: 'node20' });
require('../src/cli/main.ts')
  .main(process.argv)
  .then((exitCode) => {
    process.exitCode = exitCode;
  });
