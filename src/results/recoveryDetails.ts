/**
 * A recovery result's `details`, typed by schemas/recovery-details.schema.json. Results written
 * since that schema carry `kind: 'recovery'` and follow it (checked with the raw result when it is
 * written and read); results of older runs carry no kind and may lack later fields, so a reader
 * gets every field optional, each typed as the schema says (the same harness wrote those names).
 */
import type { RecoveryDetails } from '../schemaTypes';
import { isRecord } from './collect';

export type { RecoveryDetails, RecoveryThread } from '../schemaTypes';
export type RecoveryDetailsRead = Partial<RecoveryDetails>;

export interface RecoveryReplicates {
  /** The result combines replicates (each one's details under `details.replicates`). */
  readonly replicated: boolean;
  /** One entry per replicate (one for a single run); `{}` where a replicate has no recovery details. */
  readonly replicates: readonly RecoveryDetailsRead[];
}

function asRecoveryDetails(value: unknown): RecoveryDetailsRead {
  if (!isRecord(value)) return {};
  const older = value.kind === undefined && Array.isArray(value.threads);
  return value.kind === 'recovery' || older ? value : {};
}

/** The recovery details of each replicate of `result`. */
export function recoveryReplicates(result: { readonly details?: unknown }): RecoveryReplicates {
  const details = result.details;
  if (isRecord(details) && Array.isArray(details.replicates))
    return { replicated: true, replicates: details.replicates.map(asRecoveryDetails) };
  return { replicated: false, replicates: [asRecoveryDetails(details)] };
}
