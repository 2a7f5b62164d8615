/**
 * The run archive: everything one run produced, in one file that is never overwritten,
 * `run_<YYYYmmdd_HHMMSS>_<fingerprint>.json` (UTC time of the run's start).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { EnvironmentRecord } from '../environment';
import type { InvalidResultFile } from './collect';
import { isRecord } from './collect';
import { extractKeyMetrics, type KeyMetric } from './keyMetrics';
import type { SuiteError, TestCounts, TestOutcome } from './outcome';
import { countTests } from './outcome';
import type { RawResult } from './rawResult';
import { createJsonExclusively } from './safeWrite';
import type { ShardSummary } from './shardManifest';
import { upgradeRun } from './legacyParameters';

export const RUN_ARCHIVE_SCHEMA_VERSION = 1;

/**
 * `passed`: every test that ran passed; `failed`: a test or a suite failed, or Jest failed;
 * `interrupted`: stopped before the end (Ctrl-C), and saved itself; `killed`: stopped without a
 * word (SIGKILL, a cancelled CI job), and archived by the next run from what it left.
 */
export type RunStatus = 'passed' | 'failed' | 'interrupted' | 'killed';

export interface RunArchive {
  readonly schema_version: number;
  readonly run_id: string;
  readonly status: RunStatus;
  readonly started_at: string;
  readonly finished_at: string;
  readonly duration_ms: number;
  /** Marker expression the benchmarks were selected with; null = all. */
  readonly marker_expression: string | null;
  /** Jest `-t` test-name filter; null = none. */
  readonly test_name_filter: string | null;
  /** Who ran the pipeline: the run script, or the Jest reporter on a plain `jest` run. */
  readonly invoked_by: 'cli' | 'jest-reporter';
  /** Jest's exit code (null when Jest was ended by a signal or never exited through us). */
  readonly jest_exit_code: number | null;
  readonly environment: EnvironmentRecord;
  readonly counts: TestCounts;
  readonly tests: readonly TestOutcome[];
  readonly suite_errors: readonly SuiteError[];
  readonly results: readonly RawResult[];
  readonly key_metrics: readonly KeyMetric[];
  readonly invalid_result_files: readonly InvalidResultFile[];
  readonly warnings: readonly string[];
  /** A run merged from shards (`bench merge`): each shard and where it came from. */
  readonly shards?: readonly ShardSummary[];
}

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
  const status: RunStatus = input.killed ? 'killed' : input.interrupted ? 'interrupted' : failed ? 'failed' : 'passed';
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
 * runs start in the same second); returns the archive as written and its path.
 */
export function writeRunArchive(
  archive: RunArchive,
  reportsDir: string,
  secrets: readonly string[] = [],
): { archive: RunArchive; filePath: string } {
  fs.mkdirSync(reportsDir, { recursive: true });
  const base = runIdBase(new Date(archive.started_at), archive.environment.fingerprint);
  for (let attempt = 1; attempt < 1000; attempt += 1) {
    const runId = attempt === 1 ? base : `${base}_${attempt}`;
    const named = { ...archive, run_id: runId };
    const filePath = path.join(reportsDir, `${runId}.json`);
    if (createJsonExclusively(filePath, named, secrets)) return { archive: named, filePath };
  }
  throw new Error(`could not find a free archive name for ${base} in ${reportsDir}`);
}

/** Reads an archive; throws with the file name when it is not one. */
export function readRunArchive(filePath: string): RunArchive {
  const parsed: unknown = JSON.parse(fs.readFileSync(filePath, 'utf8'));
  if (!isRecord(parsed) || typeof parsed.run_id !== 'string' || !Array.isArray(parsed.results) || !isRecord(parsed.environment)) {
    throw new Error(`${filePath} is not a run archive (run_id, environment and results expected)`);
  }
  // Older archives in today's parameter names (legacyParameters.ts).
  return upgradeRun(parsed as unknown as RunArchive);
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
