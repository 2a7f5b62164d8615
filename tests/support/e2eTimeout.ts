// End-to-end tests run whole subprocesses (Jest runs, the CLI, the docs build): their default bound.
// (A project's `testTimeout` in jest.config.ts is not applied by Jest; jest.setTimeout in a setup file is.)
jest.setTimeout(180_000);
