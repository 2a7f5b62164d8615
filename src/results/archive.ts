/**
 * The run archive: everything one run produced, in one file that is never overwritten,
 * `run_<YYYYmmdd_HHMMSS>_<fingerprint>.json` (UTC time of the run's start).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { EnvironmentRecord } from '../environment';
import { BenchError } from '../errors';
import type { InvalidResultFile } from './collect';
import { isRecord } from './collect';
import type { DeepReadonly } from './deepReadonly';
import { extractKeyMetrics } from './keyMetrics';
import type { SuiteError, TestOutcome } from './outcome';
import { countTests } from './outcome';
import type { RawResult } from './rawResult';
import { createJsonExclusively } from './safeWrite';
import { assertFollowsSchema, schemaProblem } from './schemas';
import type * as Schema from '../schemaTypes';
import { upgradeRun } from './legacyParameters';

export const RUN_ARCHIVE_SCHEMA_VERSION = 1;

/** A run archive as schemas/run-archive.schema.json describes it (generated type), read-only. */
export type RunArchive = DeepReadonly<Schema.RunArchive>;
export type { RunStatus } from '../schemaTypes';

export interface RunArchiveInput {
  readonly environment: EnvironmentRecord;
  readonly startedAt: Date;
  readonly finishedAt: Date;
  readonly markerExpression: string | null;
  readonly testNameFilter: string | null;
  readonly invokedBy: RunArchive['invoked_by'];
  readonly jestExitCode: number | null;
  /** Jest never reached the end of the run (Ctrl-C, killed). */
  readonly interrupted: boolean;
  /** The run was killed and is archived by the next run (src/cli/killedRun.ts). @default false */
  readonly killed?: boolean;
  readonly tests: readonly TestOutcome[];
  readonly suiteErrors: readonly SuiteError[];
  readonly results: readonly RawResult[];
  readonly invalidResultFiles: readonly InvalidResultFile[];
  readonly warnings: readonly string[];
}

/** Builds the archive record (pure); the run id gets its final suffix when written. */
export function buildRunArchive(input: RunArchiveInput): RunArchive {
  const counts = countTests(input.tests, input.suiteErrors);
  const failed = counts.failed > 0 || counts.failed_suites > 0 || (input.jestExitCode !== null && input.jestExitCode !== 0);
  const status: Schema.RunStatus = input.killed ? 'killed' : input.interrupted ? 'interrupted' : failed ? 'failed' : 'passed';
  const warnings = [...input.warnings];
  const foreign = input.results.filter((result) => result.fingerprint !== input.environment.fingerprint);
  if (foreign.length > 0) {
    warnings.push(
      `${foreign.length} raw result(s) carry another fingerprint than this run (${input.environment.fingerprint}): ${[...new Set(foreign.map((r) => r.fingerprint))].join(', ')}; kept from an earlier run?`,
    );
  }
  return {
    schema_version: RUN_ARCHIVE_SCHEMA_VERSION,
    run_id: runIdBase(input.startedAt, input.environment.fingerprint),
    status,
    started_at: input.startedAt.toISOString(),
    finished_at: input.finishedAt.toISOString(),
    duration_ms: Math.max(0, input.finishedAt.getTime() - input.startedAt.getTime()),
    marker_expression: input.markerExpression,
    test_name_filter: input.testNameFilter,
    invoked_by: input.invokedBy,
    jest_exit_code: input.jestExitCode,
    environment: input.environment,
    counts,
    tests: input.tests,
    suite_errors: input.suiteErrors,
    results: input.results,
    key_metrics: extractKeyMetrics(input.results),
    invalid_result_files: input.invalidResultFiles,
    warnings,
  };
}

/** `run_20250131_235959_1a2b3c4d` (UTC). */
export function runIdBase(startedAt: Date, fingerprint: string): string {
  const stamp = startedAt.toISOString().replace(/[-:]/g, '').replace('T', '_').slice(0, 15);
  return `run_${stamp}_${fingerprint}`;
}

export const ARCHIVE_FILE_PATTERN = /^run_\d{8}_\d{6}_[0-9a-f]{8}(?:_\d+)?\.json$/;

/**
 * Writes the archive into `reportsDir` under a name no other run holds (`_2`, `_3`, ... when two
 * runs start in the same second); returns the archive as written and its path. With `claimsDir`,
 * a folder shared by runs whose archives go to different folders but must never share an id (the
 * two sides of `bench ab`, which start in the same second from the same build), each id is first
 * claimed there, so the second run to archive takes the next one.
 */
export function writeRunArchive(
  archive: RunArchive,
  reportsDir: string,
  secrets: readonly string[] = [],
  claimsDir: string | null = null,
): { archive: RunArchive; filePath: string } {
  const base = runIdBase(new Date(archive.started_at), archive.environment.fingerprint);
  assertFollowsSchema('run-archive.schema.json', { ...archive, run_id: base }, `the archive of run ${base}`);
  fs.mkdirSync(reportsDir, { recursive: true });
  if (claimsDir !== null) fs.mkdirSync(claimsDir, { recursive: true });
  for (let attempt = 1; attempt < 1000; attempt += 1) {
    const runId = attempt === 1 ? base : `${base}_${attempt}`;
    if (claimsDir !== null && !claimRunId(claimsDir, runId, reportsDir)) continue;
    const named = { ...archive, run_id: runId };
    const filePath = path.join(reportsDir, `${runId}.json`);
    if (createJsonExclusively(filePath, named, secrets)) return { archive: named, filePath };
  }
  throw new Error(`could not find a free archive name for ${base} in ${reportsDir}${claimsDir === null ? '' : ` and ${claimsDir}`}`);
}

/** Claims `runId` in `claimsDir` (a file created exclusively, naming where its archive goes); false when another run holds it. */
function claimRunId(claimsDir: string, runId: string, reportsDir: string): boolean {
  try {
    fs.writeFileSync(path.join(claimsDir, runId), `${reportsDir}\n`, { flag: 'wx' });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

/**
 * Reads an archive, checked against its schema (which every archive ever written follows: the
 * schema only grows optional fields).
 * @throws Error naming the file and what is wrong with it, or BenchError when a newer harness wrote it
 */
export function readRunArchive(filePath: string): RunArchive {
  const parsed: unknown = JSON.parse(fs.readFileSync(filePath, 'utf8'));
  if (isRecord(parsed) && typeof parsed.schema_version === 'number' && parsed.schema_version > RUN_ARCHIVE_SCHEMA_VERSION) {
    throw new BenchError(
      'RESULT_INVALID',
      `${filePath} has schema_version ${parsed.schema_version}, newer than this harness (${RUN_ARCHIVE_SCHEMA_VERSION}); update the harness to read it`,
    );
  }
  const problem = schemaProblem('run-archive.schema.json', parsed);
  if (problem !== undefined) throw new Error(`${filePath} is not a run archive (${problem})`);
  // Older archives in today's parameter names (legacyParameters.ts).
  return upgradeRun(parsed as RunArchive);
}

/** Archive files in `reportsDir`, oldest first (the name starts with the UTC start time). */
export function listRunArchives(reportsDir: string): string[] {
  try {
    return fs
      .readdirSync(reportsDir)
      .filter((name) => ARCHIVE_FILE_PATTERN.test(name))
      .sort((a, b) => archiveSortKey(a).localeCompare(archiveSortKey(b)))
      .map((name) => path.join(reportsDir, name));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

/** Time first, then the same-second suffix as a number (`_10` after `_9`). */
function archiveSortKey(name: string): string {
  const match = /^run_(\d{8}_\d{6})_[0-9a-f]{8}(?:_(\d+))?\.json$/.exec(name);
  return `${match?.[1] ?? ''}_${(match?.[2] ?? '1').padStart(4, '0')}_${name}`;
}
