'use strict';
/**
 * The benchmark project (benchmarks/*.bench.ts), as this repository's jest.config.ts lists it
 * beside the test tiers and as `bench run` / `amqp-bench run` runs it (jest/benchmarks.config.js).
 * Plain JavaScript, so an installed package can load it: Jest does not compile a config that sits
 * under node_modules/.
 */
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');

module.exports = {
  displayName: 'benchmark',
  rootDir: ROOT,
  testMatch: ['<rootDir>/benchmarks/**/*.bench.ts'],
  // esbuild (jest/transform.js, as the preset): an installed package has no ts-jest. Its files sit under
  // the user's node_modules/, which Jest neither transforms nor searches for tests by default.
  transform: { '^.+\\.ts$': path.join(__dirname, 'transform.js') },
  transformIgnorePatterns: ['/node_modules/(?!amqp-bench/)'],
  testPathIgnorePatterns: ['<rootDir>/node_modules/'],
  // Jest's file map leaves out everything under a node_modules/ folder unless told to keep it.
  haste: { retainAllFiles: true },
  testEnvironment: '<rootDir>/fixtures/testEnvironment.ts',
  globalSetup: '<rootDir>/fixtures/globalSetup.ts',
  globalTeardown: '<rootDir>/fixtures/globalTeardown.ts',
  setupFilesAfterEnv: ['<rootDir>/fixtures/setupBenchmark.ts'],
};
