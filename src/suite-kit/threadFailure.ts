/**
 * Why a worker thread of a suite stopped, told apart at the source (the error does not cross the
 * thread boundary, its description does): a bound of the harness's own (`HarnessBoundError`: the
 * main thread never started a round, never sent the stop signal) is a harness failure; anything
 * else came from the client under test (it could not reconnect within its bound, an operation
 * threw) and is a finding.
 */
import { describeError, HarnessBoundError } from '../errors';
import { redactText } from '../redact';

export interface ThreadFailure {
  /** The client's error the thread stopped on (a finding). */
  readonly error?: string;
  /** The harness's own failure the thread stopped on (no verdict on the client). */
  readonly harnessError?: string;
}

/** The report fields of a thread that stopped on `caught` (redacted). */
export function threadFailure(caught: unknown): ThreadFailure {
  const described = redactText(describeError(caught));
  return caught instanceof HarnessBoundError ? { harnessError: described } : { error: described };
}
