'use strict';
/**
 * The Jest preset (`preset: 'amqp-bench'` in a project's jest.config): that project's tests become
 * benchmarks of the harness — its global setup (checks the broker, starts the embedded fault proxy
 * when no Toxiproxy answers) and teardown, the test environment that names each result's test, the
 * marker filter (BENCH_MARKERS), toxics removed after every test, the reporter (progress, archive,
 * history, report, junit.xml), TypeScript compiled by esbuild, one file at a time (the figures
 * share the machine with the broker). Benchmark files are `*.bench.ts` / `*.bench.js`.
 */
const path = require('node:path');

// Reports, raw results and adapter modules belong to the project that runs Jest, not to this package.
process.env.BENCH_WORK_DIR = process.env.BENCH_WORK_DIR || process.cwd();

const here = (file) => path.join(__dirname, file);

module.exports = {
  // The reporter acts on the project of this name only.
  displayName: 'benchmark',
  testMatch: ['**/?(*.)bench.[jt]s'],
  transform: { '\\.[cm]?[jt]sx?$': here('jest/transform.js') },
  // This package ships TypeScript: it is compiled like the project's own files; other packages are not.
  transformIgnorePatterns: ['/node_modules/(?!amqp-bench/)'],
  testEnvironment: here('fixtures/testEnvironment.ts'),
  globalSetup: here('fixtures/globalSetup.ts'),
  globalTeardown: here('fixtures/globalTeardown.ts'),
  setupFilesAfterEnv: [here('fixtures/setupBenchmark.ts')],
  reporters: ['default', here('reporters/benchmark-reporter.js')],
  maxWorkers: 1,
  testTimeout: 300_000,
};
