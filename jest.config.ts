/** @jest-config-loader esbuild-register */
import type { Config } from 'jest';

type ProjectConfig = Exclude<NonNullable<Config['projects']>[number], string>;

// eslint-disable-next-line @typescript-eslint/no-require-imports -- plain JavaScript, shared with the installed package
const benchmarkProject = require('./jest/benchmarkProject.js') as ProjectConfig;

// ts-jest transpiles only (isolatedModules in tsconfig); `npm run typecheck` checks types once.
const transform: Config['transform'] = { '^.+\\.ts$': ['ts-jest', { diagnostics: false }] };

/**
 * The framework's own tests come in three tiers, told apart by file name:
 * - unit (`*.test.ts`): pure code, parallel, seconds; a guard makes a socket, process or thread
 *   throw there, so a test cannot drift into the wrong tier;
 * - integration (`*.int.test.ts`): the real broker and the real proxy over real sockets;
 * - e2e (`*.e2e.test.ts`): whole subprocess runs (the CLI, Jest runs, the docs build).
 * `npm test` runs all three; `npm run test:unit` is the fast loop.
 */
const tier = (displayName: string, testMatch: string[], extra: ProjectConfig = {}): ProjectConfig => ({
  displayName,
  testMatch,
  transform,
  // Jest's node environment, plus the running test's titles (raw results' test_id).
  testEnvironment: '<rootDir>/fixtures/testEnvironment.ts',
  ...extra,
});

const config: Config = {
  projects: [
    tier('unit', ['<rootDir>/tests/**/*.test.ts'], {
      testPathIgnorePatterns: ['\\.int\\.test\\.ts$', '\\.e2e\\.test\\.ts$', '/node_modules/'],
      setupFilesAfterEnv: ['<rootDir>/tests/support/unitTierGuard.ts'],
    }),
    tier('integration', ['<rootDir>/tests/**/*.int.test.ts']),
    tier('e2e', ['<rootDir>/tests/**/*.e2e.test.ts'], { setupFilesAfterEnv: ['<rootDir>/tests/support/e2eTimeout.ts'] }),
    // The benchmark project is shared with `bench run` (jest/benchmarks.config.js).
    benchmarkProject,
  ],
  // The benchmark reporter acts only on the benchmark project's files (progress, outcome, junit.xml
  // with key metrics, and on a plain `jest` run the archive, history and report); other runs see
  // nothing of it. Always on, so `npx jest --selectProjects benchmark` gives the same files.
  reporters: ['default', '<rootDir>/reporters/benchmark-reporter.js'],
  // Nothing may hang: every test has a bound even when it forgets its own. Jest applies this one
  // value to every project (a project's own testTimeout is ignored): unit tests get 10 s from
  // their setup file (tests/support/unitTierGuard.ts), e2e tests 180 s (tests/support/e2eTimeout.ts);
  // benchmarks set their own per test.
  testTimeout: 60_000,
  // Benchmarks share two cores with the broker: a run that includes them takes one file at a
  // time (Jest has no per-project worker count, so the selection decides). The tiers of the
  // framework's own tests run in parallel.
  maxWorkers: selectsBenchmarks(process.argv) ? 1 : '100%',
};

/** True unless `--selectProjects` names only non-benchmark projects. */
function selectsBenchmarks(argv: readonly string[]): boolean {
  const start = argv.findIndex((arg) => arg === '--selectProjects' || arg.startsWith('--selectProjects='));
  if (start < 0) return true;
  const inline = argv[start]!.includes('=') ? argv[start]!.split('=')[1]!.split(',') : [];
  const listed = [...inline];
  for (let index = start + 1; index < argv.length && !argv[index]!.startsWith('-'); index += 1) listed.push(argv[index]!);
  return listed.includes('benchmark');
}

export default config;
