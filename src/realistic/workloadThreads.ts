/**
 * The worker threads of one realistic workload (./workload.ts): the consumer and producer pools,
 * their tasks, the start-up waits, and collecting what every thread reports once told to stop.
 * A thread that crashed or did not finish within the bound after the stop signal is the
 * harness's failure; a thread's own report carries the client's error apart from the harness's.
 */
import path from 'node:path';
import { WorkerError } from '../errors';
import { elapsedMs, nowNs, pollUntil } from '../measure/clock';
import type { ThreadPlan } from '../suite-kit/distribution';
import { Word, type WorkloadBoard } from '../suite-kit/workloadBoard';
import { settleWithin, startThreadPool } from '../workers/pool';
import { borrowThreadPool, type BorrowedPool } from '../workers/shelf';
import type { ConsumerTask, ConsumerThreadReport } from './consumerThread';
import type { ResolvedRound, WorkloadOptions } from './options';
import type { ProducerSlice, ProducerTask, ProducerThreadReport } from './producerThread';
import { partitionRange } from '../suite-kit/distribution';

/** The workload's waits poll every 2 ms: the consumer start-up it reports is timed by one of them. */
export const POLL_SLICE_MS = 2;

/** Bound on threads finishing after the stop signal. */
const SETTLE_BOUND_MS = 15_000;

export interface ThreadReports {
  readonly consumers: ConsumerThreadReport[];
  readonly producers: ProducerThreadReport[];
  /** Threads that crashed or did not finish after the stop signal, and the harness's own errors a thread reported. */
  readonly harnessProblems: string[];
}

/** The threads of one run: started in order (consumers, then producers), always settled and destroyed. */
export class WorkloadThreads {
  private readonly pools: BorrowedPool[] = [];
  private consumerTasks: Promise<ConsumerThreadReport>[] = [];
  private producerTasks: Promise<ProducerThreadReport>[] = [];

  constructor(
    private readonly options: WorkloadOptions,
    private readonly board: WorkloadBoard,
    private readonly queue: string,
    private readonly plan: readonly ThreadPlan[],
  ) {}

  private common() {
    const { options } = this;
    return {
      buffer: this.board.buffer,
      layout: this.board.layout,
      queue: this.queue,
      client: options.client,
      recover: options.recover,
      connectBoundMs: options.connectBoundMs,
    };
  }

  /** A pool of `threads` threads running `entry`: from the shelf, or (reuseThreads false) started for this run and destroyed after it. */
  private pool(entry: string, threads: number): BorrowedPool {
    const entryPath = path.join(__dirname, entry);
    if (this.options.reuseThreads) return borrowThreadPool(entryPath, threads);
    const own = startThreadPool(entryPath, threads);
    return { ...own, discard: own.destroy };
  }

  private failed(): boolean {
    return this.board.flag(Word.THREADS_FAILED) > 0;
  }

  /**
   * Starts every consumer and waits until each consumes; returns the start-up time (dispatch to all consuming).
   * @throws WorkerError with every thread's reason when they did not all start
   */
  async startConsumers(): Promise<number> {
    const { options, board, plan } = this;
    const pool = this.pool('consumerThread.ts', plan.length);
    this.pools.push(pool);
    const lifetimeBoundMs =
      options.startupBoundMs + options.rounds.reduce((sum, round) => sum + 2 * options.roundBoundMs + round.gapAfterMs, 0) + 60_000;
    const dispatchedNs = nowNs();
    this.consumerTasks = plan.map((thread) =>
      pool.run<ConsumerTask, ConsumerThreadReport>({
        ...this.common(),
        threadIndex: thread.thread,
        url: options.consumerUrl,
        connections: thread.connections,
        prefetch: options.prefetch,
        lifetimeBoundMs,
      }),
    );
    // Awaited in settle(); until then a rejection must not count as unhandled.
    for (const task of this.consumerTasks) task.catch(() => undefined);
    const ready = await pollUntil(
      () => board.flag(Word.CONSUMERS_READY) >= options.consumers || this.failed(),
      options.startupBoundMs,
      POLL_SLICE_MS,
    );
    const startupMs = elapsedMs(dispatchedNs, nowNs());
    if (!ready || this.failed()) {
      const started = board.flag(Word.CONSUMERS_READY);
      throw new WorkerError(
        `only ${started} of ${options.consumers} consumers started within ${options.startupBoundMs} ms: ${await this.reasons()}`,
      );
    }
    return startupMs;
  }

  /** Starts the producers and waits until each has its publisher. @throws WorkerError with every thread's reason */
  async startProducers(): Promise<void> {
    const { options, board } = this;
    const pool = this.pool('producerThread.ts', options.producerThreads);
    this.pools.push(pool);
    this.producerTasks = producerSlices(options.rounds, options.producerThreads).map((slices, threadIndex) =>
      pool.run<ProducerTask, ProducerThreadReport>({
        ...this.common(),
        threadIndex,
        url: options.producerUrl,
        slices,
        messageBytes: options.messageBytes,
        confirms: options.confirms,
        persistent: options.persistent,
        maxInFlight: options.maxInFlight,
        roundBoundMs: options.roundBoundMs,
      }),
    );
    for (const task of this.producerTasks) task.catch(() => undefined);
    const ready = await pollUntil(
      () => board.flag(Word.PRODUCERS_READY) >= options.producerThreads || this.failed(),
      options.connectBoundMs + 5000,
      POLL_SLICE_MS,
    );
    if (!ready || this.failed()) throw new WorkerError(`producers did not start: ${await this.reasons()}`);
  }

  /** Every thread's reason, after a failed start (the threads are stopped first). */
  private async reasons(): Promise<string> {
    const reports = await this.settle();
    const reasons = [
      ...reports.consumers.flatMap((report) => reasonOf(`consumer thread ${report.threadIndex}`, report)),
      ...reports.producers.flatMap((report) => reasonOf(`producer thread ${report.threadIndex}`, report)),
      ...reports.harnessProblems,
    ];
    return reasons.join('; ') || 'no thread reported an error';
  }

  /** Tells every thread to stop and collects what each reported (bounded). */
  async settle(): Promise<ThreadReports> {
    this.board.raise(Word.STOP);
    const [consumers, producers] = await Promise.all([
      settleWithin(this.consumerTasks, SETTLE_BOUND_MS),
      settleWithin(this.producerTasks, SETTLE_BOUND_MS),
    ]);
    const harnessProblems: string[] = [];
    const collect = <T extends { harnessError?: string }>(kind: string, settled: (PromiseSettledResult<T> | { status: 'hung' })[]): T[] =>
      settled.flatMap((result, index) => {
        if (result.status === 'fulfilled') {
          if (result.value.harnessError) harnessProblems.push(`${kind} thread ${index}: ${result.value.harnessError}`);
          return [result.value];
        }
        harnessProblems.push(
          `${kind} thread ${index}: ${result.status === 'rejected' ? String(result.reason) : `did not finish within ${SETTLE_BOUND_MS} ms of the stop signal`}`,
        );
        return [];
      });
    return { consumers: collect('consumer', consumers), producers: collect('producer', producers), harnessProblems };
  }

  /**
   * Stops and awaits every thread (bounded), then gives the pools back for the file's next
   * workload (src/workers/shelf.ts: threads and loaded modules only; each task opens its own
   * connections), or destroys them when the workload did not end clean: a thread that failed, a
   * reconnection, a connection still down or an error nobody handled may have left its library's
   * timers and sockets in the thread, and they must not surface in the next workload as its
   * errors. Safe after settle().
   */
  async close(): Promise<void> {
    const { board } = this;
    board.raise(Word.STOP);
    const settled = await settleWithin<ConsumerThreadReport | ProducerThreadReport>(
      [...this.consumerTasks, ...this.producerTasks],
      SETTLE_BOUND_MS,
    );
    const clean =
      board.flag(Word.THREADS_FAILED) === 0 &&
      board.flag(Word.CONNECTIONS_DOWN) <= 0 &&
      board.flag(Word.CONSUMER_RECONNECTS) + board.flag(Word.PRODUCER_RECONNECTS) === 0 &&
      settled.every((result) => result.status === 'fulfilled' && result.value.unhandled.length === 0);
    await Promise.allSettled(this.pools.map((pool) => (clean ? pool.destroy() : pool.discard())));
  }
}

function reasonOf(who: string, report: { readonly error?: string; readonly harnessError?: string }): string[] {
  const reason = report.error ?? report.harnessError;
  return reason ? [`${who}: ${reason}`] : [];
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
