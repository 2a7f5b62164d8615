/**
 * The run manifest: what `bench run` leaves in the raw-results folder from its start until it is
 * saved (schemas/run-manifest.schema.json), so a run killed at any instant can be archived by the
 * next one: its environment and fingerprint, its start time (the archive's name), its selection,
 * where it archives, and how far it got (`phase`). Rewritten atomically at each phase change; a
 * dot file, never taken for a raw result and never set aside with them.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { EnvironmentRecord } from '../environment';
import { writeFileAtomic } from '../io/atomicFile';
import { schemaProblem } from './schemas';

export const RUN_MANIFEST_SCHEMA_VERSION = 1;
export const RUN_MANIFEST_FILE_NAME = '.bench-run.json';

/**
 * - `setting-aside`: the old raw results are being moved into `.previous-run/` (none of this run's yet);
 * - `running`: Jest writes this run's raw results; the old ones are set aside;
 * - `restoring`: this run's own files are archived or gone; the old ones are being put back;
 * - `finished`: the run is archived; the old ones are being deleted.
 */
export type RunPhase = 'setting-aside' | 'running' | 'restoring' | 'finished';

export interface RunManifest {
  readonly schema_version: number;
  readonly pid: number;
  readonly hostname: string;
  /** The run's start (its archive's `started_at` and name). */
  readonly started_at: string;
  readonly phase: RunPhase;
  readonly environment: EnvironmentRecord;
  readonly marker_expression: string | null;
  readonly test_name_filter: string | null;
  /** Absolute; the folder the run archives into, with its history. */
  readonly reports_dir: string;
  /** `i/n` for a shard run, else null. */
  readonly shard: string | null;
  /** Raw result files of earlier runs kept in the folder (`--keep-results`): not this run's. */
  readonly kept_files: readonly string[];
}

export type RunManifestInput = Omit<RunManifest, 'schema_version' | 'pid' | 'hostname'>;

export type FoundRunManifest =
  | { readonly kind: 'none' }
  | { readonly kind: 'found'; readonly manifest: RunManifest }
  | { readonly kind: 'unreadable'; readonly reason: string };

export function runManifestPath(rawResultsDir: string): string {
  return path.join(rawResultsDir, RUN_MANIFEST_FILE_NAME);
}

/** Writes the manifest of the run in this process (atomically); returns it as written. */
export function writeRunManifest(rawResultsDir: string, input: RunManifestInput): RunManifest {
  const manifest: RunManifest = { schema_version: RUN_MANIFEST_SCHEMA_VERSION, pid: process.pid, hostname: os.hostname(), ...input };
  writeFileAtomic(runManifestPath(rawResultsDir), `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
}

/** The same manifest in a new phase, written before the step it announces begins. */
export function setRunPhase(rawResultsDir: string, manifest: RunManifest, phase: RunPhase): RunManifest {
  const next = { ...manifest, phase };
  writeFileAtomic(runManifestPath(rawResultsDir), `${JSON.stringify(next, null, 2)}\n`);
  return next;
}

/** The run is saved (or recovered): the manifest goes last, so any step before it can be taken again. */
export function removeRunManifest(rawResultsDir: string): void {
  fs.rmSync(runManifestPath(rawResultsDir), { force: true });
}

/** The manifest left in `rawResultsDir`, if any, checked against its schema. */
export function readRunManifest(rawResultsDir: string): FoundRunManifest {
  let text: string;
  try {
    text = fs.readFileSync(runManifestPath(rawResultsDir), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'none' };
    return { kind: 'unreadable', reason: (error as NodeJS.ErrnoException).code ?? String(error) };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return { kind: 'unreadable', reason: `not valid JSON (${(error as Error).message})` };
  }
  const problem = schemaProblem('run-manifest.schema.json', parsed);
  return problem ? { kind: 'unreadable', reason: problem } : { kind: 'found', manifest: parsed as RunManifest };
}
