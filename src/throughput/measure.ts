/**
 * The publish-throughput measurement: open a session, run the warm-up rounds, then the measured
 * rounds, close (always), and hand back every round and the merged latency histogram.
 */
import type { PublishWorkload } from './plan';
import type { UnsettledPublish } from './publishThread';
import { openPublishSession, type PublishSessionOptions, type RoundOutcome, type SessionReport } from './session';

export interface PublishThroughputOutcome {
  readonly workload: PublishWorkload;
  /** Warm-up rounds first, then the measured ones. */
  readonly rounds: readonly RoundOutcome[];
  readonly report: SessionReport;
}

/**
 * Runs the session's warm-up rounds (`workload.warmupRounds`, more on threads new to the mode),
 * then `workload.rounds` measured rounds, in one session. A round in which a publish never settled
 * within the publish bound is the last: its publisher stopped there, and every later round would
 * only measure the bound again (the outcome's `unsettled` names each such publish). So is a round
 * cut at the round bound (`cut`): the client is too slow for the workload, and every later round
 * would be cut the same way, each costing the whole bound.
 * @throws WorkerError when a worker fails, or the workers do not finish a cut round (the session is closed first).
 */
export async function measurePublishThroughput(
  options: Omit<PublishSessionOptions, 'workload'>,
  workload: PublishWorkload,
): Promise<PublishThroughputOutcome> {
  const session = await openPublishSession({ ...options, workload });
  const rounds: RoundOutcome[] = [];
  let report: SessionReport;
  try {
    for (let round = 0; round < session.warmupRounds + workload.rounds; round += 1) {
      const outcome = await session.runRound();
      rounds.push(outcome);
      if (outcome.unsettled > 0 || outcome.cut) break;
    }
  } finally {
    // Idempotent: after a failed round it returns the report the failure already built.
    report = await session.close();
  }
  return { workload, rounds, report };
}

/** Every publish of the outcome that never settled within the publish bound, in round and publisher order. */
export function unsettledPublishes(outcome: Pick<PublishThroughputOutcome, 'report'>): UnsettledPublish[] {
  return outcome.report.workers.flatMap((worker) => worker.unsettled).sort((a, b) => a.round - b.round || a.publisher - b.publisher);
}

/** The measured (non-warm-up) rounds. */
export function measuredRounds(outcome: Pick<PublishThroughputOutcome, 'rounds'>): RoundOutcome[] {
  return outcome.rounds.filter((round) => !round.warmup);
}

/** The round cut at the round bound (the last one run), if any. */
export function cutRound(outcome: Pick<PublishThroughputOutcome, 'rounds'>): RoundOutcome | undefined {
  return outcome.rounds.find((round) => round.cut);
}
