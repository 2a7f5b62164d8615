/**
 * Runs one realistic workload end to end: a fresh queue; consumers spread over a bounded pool
 * of consumer threads (./distribution.ts); producer threads; rounds of publishing, each waited
 * for until every one of its messages was delivered; then stop, collect, clean up.
 *
 * Whatever happens, the threads are told to stop and awaited (bounded), the pools destroyed and
 * the queue deleted. A thread that fails ends the current round early instead of letting it run
 * to its bound; a start-up failure throws (nothing to measure), a later one is in `errors`.
 */
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { WorkerError } from '../errors';
import { elapsedMs, nowNs, pollUntil, sleep } from '../measure/clock';
import { settleWithin, startThreadPool, type ThreadPool } from '../workers/pool';
import type { LedgerCounts } from '../suite-kit/accounting';
import type { ConsumerTask, ConsumerThreadReport } from './consumerThread';
import { partitionRange, planConsumers, type ThreadPlan } from '../suite-kit/distribution';
import { resolveWorkloadOptions, type ResolvedRound, type WorkloadInput, type WorkloadOptions } from './options';
import type { ProducerSlice, ProducerTask, ProducerThreadReport } from './producerThread';
import { QueueAdmin } from '../broker/queueAdmin';
import { Word, WorkloadBoard } from '../suite-kit/workloadBoard';
import { unhandledFinding } from '../client/unhandledTrap';

export interface RoundOutcome {
  readonly round: ResolvedRound;
  /** Every message of the round was delivered within the bound. */
  readonly drained: boolean;
  /** Why not, when not. */
  readonly problem?: string;
}

/** The workload's waits poll every 2 ms: the consumer start-up it reports is timed by one of them. */
const POLL_SLICE_MS = 2;

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
  /** Thread errors, hung threads, rounds that did not drain. Empty when all went well. */
  readonly errors: readonly string[];
}

/** Bound on threads finishing after the stop signal. */
const SETTLE_BOUND_MS = 15_000;

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
  const pools: ThreadPool[] = [];
  let consumerTasks: Promise<ConsumerThreadReport>[] = [];
  let producerTasks: Promise<ProducerThreadReport>[] = [];
  const errors: string[] = [];
  const settle = async () => {
    board.raise(Word.STOP);
    const [consumers, producers] = await Promise.all([
      settleWithin(consumerTasks, SETTLE_BOUND_MS),
      settleWithin(producerTasks, SETTLE_BOUND_MS),
    ]);
    const collect = <T extends { error?: string; unhandled: readonly string[] }>(
      kind: string,
      settled: (PromiseSettledResult<T> | { status: 'hung' })[],
    ): T[] =>
      settled.flatMap((result, index) => {
        if (result.status === 'fulfilled') {
          if (result.value.error) errors.push(`${kind} thread ${index}: ${result.value.error}`);
          const finding = unhandledFinding(`${kind} thread ${index}`, result.value.unhandled);
          if (finding) errors.push(finding);
          return [result.value];
        }
        errors.push(
          `${kind} thread ${index}: ${result.status === 'rejected' ? String(result.reason) : `did not finish within ${SETTLE_BOUND_MS} ms of the stop signal`}`,
        );
        return [];
      });
    return { consumers: collect('consumer', consumers), producers: collect('producer', producers) };
  };

  try {
    const consumerPool = startThreadPool(path.join(__dirname, 'consumerThread.ts'), plan.length);
    pools.push(consumerPool);
    const producerPool = startThreadPool(path.join(__dirname, 'producerThread.ts'), options.producerThreads);
    pools.push(producerPool);
    const common = {
      buffer: board.buffer,
      layout: board.layout,
      queue,
      client: options.client,
      recover: options.recover,
      connectBoundMs: options.connectBoundMs,
    };
    const lifetimeBoundMs =
      options.startupBoundMs + options.rounds.reduce((sum, round) => sum + 2 * options.roundBoundMs + round.gapAfterMs, 0) + 60_000;

    const dispatchedNs = nowNs();
    consumerTasks = plan.map((thread) =>
      consumerPool.run<ConsumerTask, ConsumerThreadReport>({
        ...common,
        threadIndex: thread.thread,
        url: options.consumerUrl,
        connections: thread.connections,
        prefetch: options.prefetch,
        lifetimeBoundMs,
      }),
    );
    // Awaited in settle(); until then a rejection must not count as unhandled.
    for (const task of consumerTasks) task.catch(() => undefined);
    const consumersReady = await pollUntil(
      () => board.flag(Word.CONSUMERS_READY) >= options.consumers || board.flag(Word.THREADS_FAILED) > 0,
      options.startupBoundMs,
      POLL_SLICE_MS,
    );
    const consumerStartupMs = elapsedMs(dispatchedNs, nowNs());
    if (!consumersReady || board.flag(Word.THREADS_FAILED) > 0) {
      const ready = board.flag(Word.CONSUMERS_READY);
      await settle();
      throw new WorkerError(
        `only ${ready} of ${options.consumers} consumers started within ${options.startupBoundMs} ms: ${errors.join('; ') || 'no thread reported an error'}`,
      );
    }

    const slices = producerSlices(options.rounds, options.producerThreads);
    producerTasks = slices.map((threadSlices, threadIndex) =>
      producerPool.run<ProducerTask, ProducerThreadReport>({
        ...common,
        threadIndex,
        url: options.producerUrl,
        slices: threadSlices,
        messageBytes: options.messageBytes,
        confirms: options.confirms,
        persistent: options.persistent,
        maxInFlight: options.maxInFlight,
        roundBoundMs: options.roundBoundMs,
      }),
    );
    for (const task of producerTasks) task.catch(() => undefined);
    if (
      !(await pollUntil(
        () => board.flag(Word.PRODUCERS_READY) >= options.producerThreads || board.flag(Word.THREADS_FAILED) > 0,
        options.connectBoundMs + 5000,
        POLL_SLICE_MS,
      )) ||
      board.flag(Word.THREADS_FAILED) > 0
    ) {
      await settle();
      throw new WorkerError(`producers did not start: ${errors.join('; ') || 'no thread reported an error'}`);
    }

    const rounds: RoundOutcome[] = [];
    for (const round of options.rounds) {
      const outcome = await runRound(board, options, round);
      rounds.push(outcome);
      if (!outcome.drained) break;
      // The gap separates a round from the next one. After the last round there is none to
      // separate: every figure is per round (produce span and drain end inside it), nothing is
      // sampled while idle, and the wait for late deliveries is the grace below, which keeps its
      // own length. Waiting it out too only lengthened the test (burst traffic: 0.5 s).
      if (round.gapAfterMs > 0 && round.index < options.rounds.length - 1) await sleep(round.gapAfterMs);
    }
    await sleep(options.graceMs);
    // A connection still in its library's reconnection delay gets the recovery grace to come back.
    const endRecoveryStartedNs = nowNs();
    await pollUntil(
      () => board.flag(Word.CONNECTIONS_DOWN) <= 0 || board.flag(Word.THREADS_FAILED) > 0,
      options.recoveryGraceMs,
      POLL_SLICE_MS,
    );
    const endRecoveryWaitMs = Math.round(elapsedMs(endRecoveryStartedNs, nowNs()));
    const queueMessagesLeft = await admin.messagesLeft(queue).catch(() => null);
    const connectionsDownAtEnd = board.flag(Word.CONNECTIONS_DOWN);
    const reports = await settle();
    for (const round of rounds) if (round.problem) errors.push(round.problem);
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
      errors,
    };
  } finally {
    board.raise(Word.STOP);
    await settleWithin<unknown>([...consumerTasks, ...producerTasks], SETTLE_BOUND_MS);
    await Promise.allSettled(pools.map((pool) => pool.destroy()));
    await admin.close();
  }
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

/** Per producer thread, its slice of every round (sequence ranges split evenly, pace shared). */
export function producerSlices(rounds: readonly ResolvedRound[], producerThreads: number): ProducerSlice[][] {
  const perThread: ProducerSlice[][] = Array.from({ length: producerThreads }, () => []);
  for (const round of rounds) {
    partitionRange(round.firstSeq, round.messages, producerThreads).forEach((range, thread) => {
      perThread[thread]!.push({
        round: round.index,
        start: range.start,
        count: range.count,
        ratePerSecond: round.ratePerSecond === null ? null : round.ratePerSecond / producerThreads,
      });
    });
  }
  return perThread;
}
