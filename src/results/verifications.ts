/**
 * reports/benchmarks/verifications.json: what `bench verify` found, oldest first (the harness's
 * own witnesses, the capture check, the A/A check), so a report can cite the latest verification
 * of its build — or, when its build was never verified, the nearest earlier one, said as such.
 * Appended under a lock with an atomic write; a file that does not parse or follow the schema is
 * moved aside (never overwritten), like the history.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type * as Schema from '../schemaTypes';
import { withFileLock, type FileLockOptions } from './fileLock';
import { writeJsonSafely } from './safeWrite';
import { assertFollowsSchema } from './schemas';
import { moveCorruptAside, readVersionedJson } from './versionedFile';

export const VERIFICATIONS_FILE_NAME = 'verifications.json';
export const VERIFICATIONS_SCHEMA_VERSION = 1;

export type Verification = Schema.Verification;
export type VerificationCheck = Schema.VerificationCheck;
export type VerificationMachine = Schema.VerificationMachine;

export interface VerificationsRead {
  readonly verifications: readonly Verification[];
  /** Why the file could not be used, and where it went (when moved aside). */
  readonly corrupt?: { readonly reason: string; readonly movedTo: string | null };
}

export function verificationsPath(reportsDir: string): string {
  return path.join(reportsDir, VERIFICATIONS_FILE_NAME);
}

/** This machine, as a verification names it (no user names, no addresses). */
export function thisMachine(): VerificationMachine {
  const cpus = os.cpus();
  return {
    hostname: os.hostname(),
    cpu_model: cpus[0]?.model.trim() || 'unknown',
    cpu_count: Math.max(1, cpus.length),
    platform: `${process.platform}-${process.arch}`,
  };
}

/** Reads the verifications (missing = none). Read-only: a corrupt file is reported, left where it is. */
export function readVerifications(reportsDir: string): VerificationsRead {
  const read = readVersionedJson(verificationsPath(reportsDir), 'verifications.schema.json', VERIFICATIONS_SCHEMA_VERSION);
  if (read.kind === 'missing') return { verifications: [] };
  if (read.kind === 'corrupt') return { verifications: [], corrupt: { reason: read.reason, movedTo: null } };
  return { verifications: (read.value as Schema.Verifications).verifications };
}

/** Appends one verification under the file's lock (read, append, atomic write); a corrupt file is moved aside first. */
export function appendVerification(
  reportsDir: string,
  verification: Verification,
  options: { readonly lock?: FileLockOptions; readonly secrets?: readonly string[]; readonly now?: () => Date } = {},
): VerificationsRead {
  fs.mkdirSync(reportsDir, { recursive: true });
  const filePath = verificationsPath(reportsDir);
  return withFileLock(
    `${filePath}.lock`,
    () => {
      const read = readVerifications(reportsDir);
      const corrupt = read.corrupt ? { ...read.corrupt, movedTo: moveCorruptAside(filePath, options.now?.() ?? new Date()) } : undefined;
      const file: Schema.Verifications = {
        schema_version: VERIFICATIONS_SCHEMA_VERSION,
        verifications: [...read.verifications, verification],
      };
      assertFollowsSchema('verifications.schema.json', file, `the verification of ${verification.fingerprint}`);
      writeJsonSafely(filePath, file, options.secrets);
      return { verifications: file.verifications, ...(corrupt ? { corrupt } : {}) };
    },
    options.lock,
  );
}

export interface CitedVerification {
  readonly verification: Verification;
  /** true: of this very build; false: the nearest earlier one (another build). */
  readonly sameBuild: boolean;
}

/**
 * The verification a run of `fingerprint` on `machine` cites: the latest of that build on that
 * kind of machine, else the latest earlier one there (verified before `before`), else none.
 */
export function citedVerification(
  verifications: readonly Verification[],
  fingerprint: string,
  machine: Pick<VerificationMachine, 'cpu_model' | 'cpu_count' | 'platform'>,
  before: Date,
): CitedVerification | null {
  // The same kind of machine, not the same host name: CI runners are new hosts every time.
  const here = verifications.filter(
    (one) =>
      one.machine.cpu_model === machine.cpu_model &&
      one.machine.cpu_count === machine.cpu_count &&
      one.machine.platform === machine.platform,
  );
  const same = here.filter((one) => one.fingerprint === fingerprint);
  if (same.length > 0) return { verification: same[same.length - 1]!, sameBuild: true };
  const earlier = here.filter((one) => Date.parse(one.verified_at) <= before.getTime());
  return earlier.length > 0 ? { verification: earlier[earlier.length - 1]!, sameBuild: false } : null;
}
