/** @jest-config-loader esbuild-register */
import type { Config } from 'jest';

// ts-jest transpiles only (isolatedModules in tsconfig); `npm run typecheck` checks types once.
const transform: Config['transform'] = { '^.+\\.ts$': ['ts-jest', { diagnostics: false }] };

const config: Config = {
  projects: [
    {
      displayName: 'unit',
      testMatch: ['<rootDir>/tests/**/*.test.ts'],
      transform,
      testEnvironment: 'node',
      // Nothing may hang: every test has a bound even when it forgets its own.
      testTimeout: 60_000,
    },
    {
      displayName: 'benchmark',
      testMatch: ['<rootDir>/benchmarks/**/*.bench.ts'],
      transform,
      testEnvironment: 'node',
      testTimeout: 300_000,
      globalSetup: '<rootDir>/fixtures/globalSetup.ts',
      globalTeardown: '<rootDir>/fixtures/globalTeardown.ts',
      setupFilesAfterEnv: ['<rootDir>/fixtures/setupBenchmark.ts'],
    },
  ],
  // The benchmark reporter acts only on the benchmark project's files (progress, outcome, junit.xml
  // with key metrics, and on a plain `jest` run the archive, history and report); unit runs see
  // nothing of it. Always on, so `npx jest --selectProjects benchmark` gives the same files.
  reporters: ['default', '<rootDir>/reporters/benchmark-reporter.js'],
  // Benchmarks share two cores with the broker: one test file at a time unless asked otherwise.
  maxWorkers: 1,
};

export default config;
