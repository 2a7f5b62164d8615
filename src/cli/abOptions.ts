/**
 * Options of `bench ab`, resolved once from argv into a typed, validated object: everything that
 * could fail after minutes of checking out and measuring (a marker expression, a module that is
 * not there, a bad number) is refused here, before anything starts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseReplicates, type BenchConfig } from '../config';
import { ConfigError } from '../errors';
import { parseMarkerExpression } from '../markers';
import { QUICK_MARKERS } from './runOptions';

/** As commander hands them over. */
export interface AbCommandInput {
  readonly adapters?: boolean;
  /** The quick selection, named (it is the default; -m wins, as in `bench run`). */
  readonly quick?: boolean;
  readonly markers?: string;
  readonly testName?: string;
  readonly clients?: string;
  readonly replicates?: string;
  readonly threshold?: string;
  readonly output?: string;
  readonly workDir?: string;
}

export interface AbOptions {
  /** `refs`: two git refs (or `.`) of the project; `adapters`: two adapter modules under one harness. */
  readonly mode: 'refs' | 'adapters';
  /** The two builds as given: refs, or adapter modules' absolute paths. */
  readonly baseline: string;
  readonly candidate: string;
  readonly markerExpression: string;
  readonly testNameFilter: string | null;
  /** `--clients`, handed to both sides as given (refs only). */
  readonly clients: string | null;
  readonly replicates: number | null;
  /** A metric judged worse by more than this fails the comparison (0: any judged worse). */
  readonly thresholdPercent: number;
  readonly outputDir: string;
  /** Where checkouts go; null: the default for the repository. */
  readonly workRoot: string | null;
  readonly projectDir: string;
}

/** `ab_20261127_101500`: the paired run's id (UTC). */
export function abRunId(now: Date): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace('T', '_').slice(0, 15);
  return `ab_${stamp}`;
}

export function resolveAbOptions(
  baseline: string,
  candidate: string,
  input: AbCommandInput,
  config: BenchConfig,
  cwd: string = process.cwd(),
  now: Date = new Date(),
): AbOptions {
  const mode = input.adapters ? 'adapters' : 'refs';
  const markers = input.markers?.trim();
  if (input.markers !== undefined && !markers)
    throw new ConfigError('-m/--markers', 'a marker expression (e.g. "benchmark and not slow")', input.markers);
  if (markers) parseMarkerExpression(markers, { origin: '-m/--markers' });
  if (mode === 'adapters' && input.clients !== undefined)
    throw new ConfigError('--clients', 'left out with --adapters (the two adapter modules are the clients)', input.clients);
  const [a, b] =
    mode === 'adapters'
      ? [adapterModule('the baseline', baseline, cwd), adapterModule('the candidate', candidate, cwd)]
      : [baseline, candidate];
  if (mode === 'refs')
    for (const [role, spec] of [
      ['the baseline', baseline],
      ['the candidate', candidate],
    ] as const)
      refuseModuleAsRef(role, spec, cwd);
  return Object.freeze({
    mode,
    baseline: a,
    candidate: b,
    markerExpression: markers || QUICK_MARKERS,
    testNameFilter: input.testName?.trim() || null,
    clients: input.clients?.trim() || null,
    replicates: replicatesOf(input.replicates),
    thresholdPercent: percentage('--threshold', input.threshold ?? '0'),
    outputDir: input.output ? path.resolve(cwd, input.output) : path.join(config.reportsDir, 'ab', abRunId(now)),
    workRoot: input.workDir ? path.resolve(cwd, input.workDir) : null,
    projectDir: cwd,
  });
}

/** At least 3: the first pair of each measurement warms up, and a judgement needs two pairs more. */
function replicatesOf(raw: string | undefined): number | null {
  const count = raw === undefined ? null : parseReplicates('--replicates', raw.trim());
  if (count !== null && count < 3)
    throw new ConfigError(
      '--replicates',
      "3 or more in a paired run (each measurement's first pair is a warm-up, and a judgement needs two more)",
      raw,
    );
  return count;
}

/** The module's absolute path, its profile (`:defaults`, `:normalised`) kept. */
function adapterModule(role: string, raw: string, cwd: string): string {
  const [, modulePath, profile] = /^(.*?)(:defaults|:normalised)?$/.exec(raw)!;
  const resolved = path.resolve(cwd, modulePath!);
  if (!fs.existsSync(resolved) || !fs.statSync(resolved).isFile())
    throw new ConfigError(
      role,
      'an adapter module that exists, optionally with its profile (with --adapters, e.g. ./bench/adapter.js:defaults)',
      raw,
    );
  return `${resolved}${profile ?? ''}`;
}

/** A file given where a ref is expected: the user most likely meant --adapters. */
function refuseModuleAsRef(role: string, spec: string, cwd: string): void {
  const resolved = path.resolve(cwd, spec);
  if (/\.(c|m)?(j|t)s$/.test(spec) && fs.existsSync(resolved) && fs.statSync(resolved).isFile())
    throw new ConfigError(role, `a git ref or "." (${spec} is a file: to compare two adapter modules, add --adapters)`, spec);
}

function percentage(option: string, raw: string): number {
  const value = Number(raw.trim().replace(/%$/, ''));
  if (raw.trim() === '' || !Number.isFinite(value) || value < 0)
    throw new ConfigError(option, 'a percentage of 0 or more (e.g. 10 or 10%)', raw);
  return value;
}
