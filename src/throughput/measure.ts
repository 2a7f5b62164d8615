/**
 * The publish-throughput measurement: open a session, run the warm-up rounds, then the measured
 * rounds, close (always), and hand back every round and the merged latency histogram.
 */
import type { PublishWorkload } from './plan';
import { openPublishSession, type PublishSessionOptions, type RoundOutcome, type SessionReport } from './session';

export interface PublishThroughputOutcome {
  readonly workload: PublishWorkload;
  /** Warm-up rounds first, then the measured ones. */
  readonly rounds: readonly RoundOutcome[];
  readonly report: SessionReport;
}

/**
 * Runs the session's warm-up rounds (`workload.warmupRounds`, more on threads new to the mode),
 * then `workload.rounds` measured rounds, in one session.
 * @throws WorkerError when a worker fails or a round exceeds its bound (the session is closed first).
 */
export async function measurePublishThroughput(
  options: Omit<PublishSessionOptions, 'workload'>,
  workload: PublishWorkload,
): Promise<PublishThroughputOutcome> {
  const session = await openPublishSession({ ...options, workload });
  const rounds: RoundOutcome[] = [];
  let report: SessionReport;
  try {
    for (let round = 0; round < session.warmupRounds + workload.rounds; round += 1) rounds.push(await session.runRound());
  } finally {
    // Idempotent: after a failed round it returns the report the failure already built.
    report = await session.close();
  }
  return { workload, rounds, report };
}

/** The measured (non-warm-up) rounds. */
export function measuredRounds(outcome: Pick<PublishThroughputOutcome, 'rounds'>): RoundOutcome[] {
  return outcome.rounds.filter((round) => !round.warmup);
}
