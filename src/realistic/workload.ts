/**
 * Runs one realistic workload end to end: a fresh queue; consumers spread over a bounded pool
 * of consumer threads (../suite-kit/distribution.ts); producer threads; rounds of publishing,
 * each waited for until every one of its messages was delivered; then stop, collect, clean up.
 *
 * Whatever happens, the threads are told to stop and awaited (bounded), the pools destroyed and
 * the queue deleted. A thread that fails ends the current round early instead of letting it run
 * to its bound; a start-up failure throws (nothing to measure). What went wrong later is in the
 * outcome: the client's part in the thread reports and the rounds, the harness's own in
 * `harnessProblems` (./checks.ts tells findings from harness failures).
 */
import { randomUUID } from 'node:crypto';
import { elapsedMs, nowNs, pollUntil, sleep } from '../measure/clock';
import type { LedgerCounts } from '../suite-kit/accounting';
import type { ConsumerThreadReport } from './consumerThread';
import { planConsumers, type ThreadPlan } from '../suite-kit/distribution';
import { resolveWorkloadOptions, type ResolvedRound, type WorkloadInput, type WorkloadOptions } from './options';
import type { ProducerThreadReport } from './producerThread';
import { QueueAdmin } from '../broker/queueAdmin';
import { Word, WorkloadBoard } from '../suite-kit/workloadBoard';
import { POLL_SLICE_MS, WorkloadThreads } from './workloadThreads';

export { producerSlices } from './workloadThreads';

export interface RoundOutcome {
  readonly round: ResolvedRound;
  /** Every message of the round was delivered within the bound. */
  readonly drained: boolean;
  /** Why not, when not. */
  readonly problem?: string;
}

export interface WorkloadOutcome {
  readonly options: WorkloadOptions;
  readonly queue: string;
  readonly plan: readonly ThreadPlan[];
  /** Consumer tasks dispatched -> every logical consumer consuming. */
  readonly consumerStartupMs: number;
  /** Rounds that ran (a failed round ends the run). */
  readonly rounds: readonly RoundOutcome[];
  readonly consumerReports: readonly ConsumerThreadReport[];
  readonly producerReports: readonly ProducerThreadReport[];
  /** The delivery ledger once every thread stopped. */
  readonly ledger: LedgerCounts;
  readonly consumerReconnects: number;
  readonly producerReconnects: number;
  /** Connections still down when the threads were stopped, after the recovery grace (every thread recovered: 0). */
  readonly connectionsDownAtEnd: number;
  /** How long, after the grace, the last connections took to come back (0 when none was down; the bound when some never did). */
  readonly endRecoveryWaitMs: number;
  readonly foreignDeliveries: number;
  /** Ready messages left in the queue at the end; null when it could not be checked. */
  readonly queueMessagesLeft: number | null;
  /** The harness's own failures: a thread that crashed, did not finish after the stop signal, or hit a bound of the harness's own. */
  readonly harnessProblems: readonly string[];
}

/**
 * @throws WorkerError when the consumers or producers cannot start (with every thread's reason).
 * @example
 * const outcome = await runWorkload({ directUrl, consumers: 4, rounds: [{ messages: 200, measured: false }, { messages: 5000 }] });
 */
export async function runWorkload(input: WorkloadInput): Promise<WorkloadOutcome> {
  const options = resolveWorkloadOptions(input);
  const queue = `amqp-bench.realistic.${randomUUID()}`;
  const plan = planConsumers(options.consumers, {
    maxThreads: options.maxConsumerThreads,
    maxChannelsPerConnection: options.maxChannelsPerConnection,
  });
  const board = new WorkloadBoard({ sequences: options.sequences, rounds: options.rounds.length });
  const admin = await QueueAdmin.open(options.directUrl);
  await admin.declare(queue, { durable: options.durableQueue }).catch(async (error: unknown) => {
    await admin.close();
    throw error;
  });
  const threads = new WorkloadThreads(options, board, queue, plan);
  try {
    const consumerStartupMs = await threads.startConsumers();
    await threads.startProducers();
    const rounds = await runRounds(board, options);
    await sleep(options.graceMs);
    const endRecoveryWaitMs = await waitForEndRecovery(board, options);
    const queueMessagesLeft = await admin.messagesLeft(queue).catch(() => null);
    const connectionsDownAtEnd = board.flag(Word.CONNECTIONS_DOWN);
    const reports = await threads.settle();
    return {
      options,
      queue,
      plan,
      consumerStartupMs,
      rounds,
      consumerReports: reports.consumers,
      producerReports: reports.producers,
      ledger: board.snapshot(),
      consumerReconnects: board.flag(Word.CONSUMER_RECONNECTS),
      producerReconnects: board.flag(Word.PRODUCER_RECONNECTS),
      connectionsDownAtEnd,
      endRecoveryWaitMs,
      foreignDeliveries: board.flag(Word.FOREIGN),
      queueMessagesLeft,
      harnessProblems: reports.harnessProblems,
    };
  } finally {
    await threads.close();
    await admin.close();
  }
}

/** Every round in order, until one does not drain. */
async function runRounds(board: WorkloadBoard, options: WorkloadOptions): Promise<RoundOutcome[]> {
  const rounds: RoundOutcome[] = [];
  for (const round of options.rounds) {
    const outcome = await runRound(board, options, round);
    rounds.push(outcome);
    if (!outcome.drained) break;
    // The gap separates a round from the next one. After the last round there is none to
    // separate: every figure is per round (produce span and drain end inside it), nothing is
    // sampled while idle, and the wait for late deliveries is the grace, which keeps its own
    // length. Waiting it out too only lengthened the test (burst traffic: 0.5 s).
    if (round.gapAfterMs > 0 && round.index < options.rounds.length - 1) await sleep(round.gapAfterMs);
  }
  return rounds;
}

/** A connection still in its library's reconnection delay gets the recovery grace to come back; returns how long that took. */
async function waitForEndRecovery(board: WorkloadBoard, options: WorkloadOptions): Promise<number> {
  const startedNs = nowNs();
  await pollUntil(
    () => board.flag(Word.CONNECTIONS_DOWN) <= 0 || board.flag(Word.THREADS_FAILED) > 0,
    options.recoveryGraceMs,
    POLL_SLICE_MS,
  );
  return Math.round(elapsedMs(startedNs, nowNs()));
}

/** Starts `round`, waits until its producers are done and every message was delivered. */
async function runRound(board: WorkloadBoard, options: WorkloadOptions, round: ResolvedRound): Promise<RoundOutcome> {
  const failed = () => board.flag(Word.THREADS_FAILED) > 0;
  try {
    await options.hooks.beforeRound?.(round.index);
    board.raise(Word.ROUND, round.index + 1);
    const published = await pollUntil(
      () => board.flag(Word.PRODUCER_ROUNDS_DONE) >= options.producerThreads * (round.index + 1) || failed(),
      options.roundBoundMs,
      POLL_SLICE_MS,
    );
    if (!published || failed())
      return {
        round,
        drained: false,
        problem: `${round.label}: producers did not finish publishing${failed() ? ' (a thread failed)' : ` within ${options.roundBoundMs} ms`}`,
      };
    const drained = await pollUntil(
      () => board.roundUnique(round.index) >= round.messages || failed(),
      options.roundBoundMs,
      POLL_SLICE_MS,
    );
    if (!drained || failed()) {
      return {
        round,
        drained: false,
        problem: `${round.label}: ${board.roundUnique(round.index)} of ${round.messages} messages delivered${failed() ? ' (a thread failed)' : ` within ${options.roundBoundMs} ms`}`,
      };
    }
    return { round, drained: true };
  } finally {
    await options.hooks.afterRound?.(round.index);
  }
}
