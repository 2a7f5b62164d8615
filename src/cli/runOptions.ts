/**
 * Options of `bench run` and `bench report`, resolved once from argv (strings) into a typed,
 * validated object. Everything that could fail after a long run (template, output folder) is
 * checked here, before anything runs.
 */
import { parseMarkerExpression } from '../markers';
import fs from 'node:fs';
import path from 'node:path';
import { parseReplicates, resolveClientSelection, type BenchConfig } from '../config';
import type { ClientSpec } from '../client/api';
import { ConfigError } from '../errors';
import type { Shard } from '../results/shardManifest';
import { resolveShardOption } from './shard';

/** Marker expression of `--quick` (and `npm run bench:quick`). */
export const QUICK_MARKERS = 'benchmark and not slow and not stress and not witness';
/**
 * Marker expression of `npm run bench:clients`: the quick selection without its variants (marker
 * `variant`: a fault measured again at 50 threads, behind latency, or in the summary), so that
 * ten client configurations fit in ten minutes.
 */
export const CLIENTS_MARKERS = `${QUICK_MARKERS} and not variant`;
/** Marker expression of a full run. */
export const FULL_MARKERS = 'benchmark';

/** As commander hands them over. */
export interface RunCommandInput {
  readonly markers?: string;
  readonly quick?: boolean;
  readonly testName?: string;
  readonly keepResults?: boolean;
  readonly output?: string;
  readonly compare?: boolean;
  readonly threshold?: string;
  readonly template?: string;
  readonly numprocesses?: string;
  readonly runInBand?: boolean;
  readonly jestConfig?: string;
  readonly broker?: boolean;
  readonly shard?: string;
  readonly clients?: string;
  readonly replicates?: string;
  readonly failOnFindings?: boolean;
}

export interface RunOptions {
  readonly markerExpression: string;
  readonly testNameFilter: string | null;
  readonly keepResults: boolean;
  readonly reportsDir: string;
  /** The setting that chose `reportsDir`, named when it cannot be written. */
  readonly reportsDirSetting: '-o/--output' | 'BENCH_REPORTS_DIR';
  readonly rawResultsDir: string;
  /** Print the full comparison in the terminal (the report always has it). */
  readonly compare: boolean;
  /** Fail on a significant regression beyond this many percent; null = never. */
  readonly thresholdPercent: number | null;
  readonly templatePath: string | undefined;
  /** Jest workers; null = jest.config's setting. 1 = in band. */
  readonly maxWorkers: number | null;
  /** Another Jest config (tests point this at a throwaway benchmark project). */
  readonly jestConfigPath: string | null;
  /** Ask the broker its version for the environment record. */
  readonly queryBroker: boolean;
  /** Run only this shard (Jest --shard) and leave a shard manifest for `bench merge`; null = the whole run. */
  readonly shard: Shard | null;
  /** The clients under test (--clients, else BENCH_CLIENTS); handed to Jest as BENCH_CLIENTS. */
  readonly clients: readonly ClientSpec[];
  /** Replicates of every replicated measurement (--replicates, else BENCH_REPLICATES); null = each benchmark's own. */
  readonly replicates: number | null;
  /** A client's finding fails its test (--fail-on-findings, else BENCH_FAIL_ON_FINDINGS). */
  readonly failOnFindings: boolean;
}

export function resolveRunOptions(
  input: RunCommandInput,
  config: BenchConfig,
  cwd: string = process.cwd(),
  env: NodeJS.ProcessEnv = process.env,
): RunOptions {
  // -m wins; else BENCH_MARKERS from the environment (a user who set it expects it honoured, not
  // silently replaced by the default); else the quick or full selection.
  const origin = input.markers !== undefined ? '-m/--markers' : 'BENCH_MARKERS';
  const raw = input.markers ?? (env.BENCH_MARKERS || undefined);
  const markers = raw?.trim();
  if (raw !== undefined && !markers) throw new ConfigError(origin, 'a marker expression (e.g. "benchmark and not slow")', raw);
  // Checked here, before anything runs: Jest would otherwise fail every file with the same error.
  if (markers) parseMarkerExpression(markers, { origin });
  return Object.freeze({
    markerExpression: markers || (input.quick ? QUICK_MARKERS : FULL_MARKERS),
    testNameFilter: input.testName?.trim() || null,
    keepResults: input.keepResults === true,
    reportsDir: input.output ? path.resolve(cwd, input.output) : config.reportsDir,
    reportsDirSetting: input.output ? '-o/--output' : 'BENCH_REPORTS_DIR',
    rawResultsDir: config.rawResultsDir,
    compare: input.compare === true || input.threshold !== undefined,
    thresholdPercent: parseThreshold(input.threshold),
    templatePath: parseTemplate(input.template, cwd),
    maxWorkers: input.runInBand ? 1 : parseWorkers(input.numprocesses),
    jestConfigPath: input.jestConfig
      ? existingFile('--jest-config', input.jestConfig, cwd, 'a Jest config file that exists (e.g. jest.config.ts)')
      : null,
    queryBroker: input.broker !== false,
    shard: resolveShardOption(input.shard),
    clients: input.clients === undefined ? config.clients : resolveClientSelection('--clients', input.clients),
    replicates: input.replicates === undefined ? config.replicates : parseReplicates('--replicates', input.replicates.trim()),
    failOnFindings: input.failOnFindings === true || config.failOnFindings,
  });
}

export interface ReportCommandInput {
  readonly output?: string;
  readonly run?: string;
  readonly compare?: boolean;
  readonly threshold?: string;
  readonly template?: string;
}

export interface ReportOptions {
  readonly reportsDir: string;
  readonly runId: string | undefined;
  readonly compare: boolean;
  readonly thresholdPercent: number | null;
  readonly templatePath: string | undefined;
}

export function resolveReportOptions(input: ReportCommandInput, config: BenchConfig, cwd: string = process.cwd()): ReportOptions {
  if (input.run !== undefined && !/^run_\d{8}_\d{6}_[0-9a-f]{8}(?:_\d+)?$/.test(input.run)) {
    throw new ConfigError('--run', 'a run id like run_20250131_235959_1a2b3c4d (see benchmark_history.json)', input.run);
  }
  return Object.freeze({
    reportsDir: input.output ? path.resolve(cwd, input.output) : config.reportsDir,
    runId: input.run,
    compare: input.compare === true || input.threshold !== undefined,
    thresholdPercent: parseThreshold(input.threshold),
    templatePath: parseTemplate(input.template, cwd),
  });
}

function parseThreshold(raw: string | undefined): number | null {
  if (raw === undefined) return null;
  const value = Number(raw.trim().replace(/%$/, ''));
  if (raw.trim() === '' || !Number.isFinite(value) || value < 0)
    throw new ConfigError('--threshold', 'a percentage of 0 or more (e.g. 10 or 10%)', raw);
  return value;
}

function parseWorkers(raw: string | undefined): number | null {
  if (raw === undefined) return null;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1)
    throw new ConfigError('-n/--numprocesses', 'a whole number of Jest workers, 1 or more (1 runs in band)', raw);
  return value;
}

function parseTemplate(raw: string | undefined, cwd: string): string | undefined {
  return raw === undefined
    ? undefined
    : existingFile('--template', raw, cwd, 'a Handlebars template file that exists (e.g. my-report.md.hbs)');
}

function existingFile(option: string, raw: string, cwd: string, expected: string): string {
  const resolved = path.resolve(cwd, raw);
  if (!fs.existsSync(resolved) || !fs.statSync(resolved).isFile()) throw new ConfigError(option, expected, raw);
  return resolved;
}
