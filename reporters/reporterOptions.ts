/** The benchmark reporter's options (benchmarkReporter.ts), as jest.config.ts gives them and resolved once. */
import path from 'node:path';
import { getConfig } from '../src/config';

/** Options as written in jest.config.ts; strings are accepted where Jest users write them. */
export interface BenchmarkReporterInput {
  /** Jest project (displayName) whose tests are benchmarks. @default benchmark */
  readonly project?: string;
  /** @default BENCH_RAW_DIR, else reports/.test-output */
  readonly rawResultsDir?: string;
  /** @default BENCH_REPORTS_DIR, else reports/benchmarks */
  readonly reportsDir?: string;
  /** Write junit.xml. @default true */
  readonly junit?: boolean | 'true' | 'false';
  /** Print a line per finished benchmark. @default true */
  readonly progress?: boolean | 'true' | 'false';
}

export interface BenchmarkReporterOptions {
  readonly project: string;
  readonly rawResultsDir: string;
  readonly reportsDir: string;
  readonly junit: boolean;
  readonly progress: boolean;
  /** `cli` when the run script owns the pipeline (BENCH_PIPELINE_OWNER=cli). */
  readonly pipelineOwner: 'cli' | 'reporter';
}

/** Resolves the reporter's options once (defaults from the harness config / environment). */
export function resolveBenchmarkReporterOptions(
  input: BenchmarkReporterInput = {},
  env: NodeJS.ProcessEnv = process.env,
): BenchmarkReporterOptions {
  const flag = (value: boolean | string | undefined, fallback: boolean) =>
    value === undefined ? fallback : value === true || value === 'true';
  const config = getConfig();
  return Object.freeze({
    project: input.project ?? 'benchmark',
    rawResultsDir: path.resolve(input.rawResultsDir ?? config.rawResultsDir),
    reportsDir: path.resolve(input.reportsDir ?? config.reportsDir),
    junit: flag(input.junit, true),
    progress: flag(input.progress, true),
    pipelineOwner: env.BENCH_PIPELINE_OWNER === 'cli' ? 'cli' : 'reporter',
  });
}
