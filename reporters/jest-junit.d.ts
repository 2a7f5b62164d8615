// jest-junit ships no types: what the benchmark reporter uses of it.
declare module 'jest-junit' {
  import type { Reporter } from '@jest/reporters';
  import type { Config } from '@jest/types';

  const JestJUnit: new (globalConfig: Config.GlobalConfig, options: Record<string, string>) => Reporter;
  export = JestJUnit;
}
