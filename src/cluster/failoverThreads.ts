/**
 * The threads of a failover scenario: consumer threads of the client under test (spread over the
 * nodes) and one at-least-once producer with confirms, sharing a board (episodes, words) and a
 * ledger (every sequence's deliveries). `stop()` is safe whatever state they are in.
 */
import path from 'node:path';
import type { ClientSpec } from '../client/api';
import { WorkerError } from '../errors';
import { redactText } from '../redact';
import { WorkloadBoard } from '../suite-kit/workloadBoard';
import { settleWithin, startThreadPool, type ThreadPool } from '../workers/pool';
import type { FailoverConsumerTask, FailoverThreadReport } from './consumerThread';
import { FailoverBoard, FailoverWord } from './failoverBoard';
import type { FailoverProducerReport, FailoverProducerTask } from './producerThread';

export const SETTLE_BOUND_MS = 15_000;
export const PRODUCER_SETTLE_BOUND_MS = 20_000;
const LIFETIME_BOUND_MS = 900_000;

export interface FailoverThreadsSpec {
  readonly client: ClientSpec;
  readonly queue: string;
  /** The URL list of consumer thread `thread` (its home node first). */
  readonly consumerUrls: (thread: number) => string[];
  readonly producerUrls: string[];
  readonly prefetch: number;
  readonly silenceDeadlineMs: number | null;
  readonly ratePerSecond: number;
}

export interface SettledFailoverReports {
  readonly consumers: readonly (PromiseSettledResult<FailoverThreadReport> | { status: 'hung' })[];
  readonly producer: FailoverProducerReport | null;
}

export class FailoverThreads {
  readonly board: FailoverBoard;
  readonly ledger: WorkloadBoard;
  private readonly pools: ThreadPool[] = [];
  private consumerTasks: Promise<FailoverThreadReport>[] = [];
  private producerTask: Promise<FailoverProducerReport> | undefined;

  constructor(
    readonly consumers: number,
    sequences: number,
  ) {
    this.ledger = new WorkloadBoard({ sequences, rounds: 1 });
    this.board = new FailoverBoard(consumers + 1);
  }

  start(spec: FailoverThreadsSpec): void {
    const { consumers } = this;
    const consumerPool = startThreadPool(path.join(__dirname, 'consumerThread.ts'), consumers);
    this.pools.push(consumerPool);
    const producerPool = startThreadPool(path.join(__dirname, 'producerThread.ts'), 1);
    this.pools.push(producerPool);
    const shared = {
      threads: consumers + 1,
      board: this.board.buffer,
      ledger: this.ledger.buffer,
      ledgerLayout: this.ledger.layout,
      client: spec.client,
      queue: spec.queue,
    };
    this.consumerTasks = Array.from({ length: consumers }, (_, threadIndex) =>
      consumerPool.run<FailoverConsumerTask, FailoverThreadReport>({
        ...shared,
        threadIndex,
        urls: spec.consumerUrls(threadIndex),
        prefetch: spec.prefetch,
        silenceDeadlineMs: spec.silenceDeadlineMs,
        recoveryBoundMs: 60_000,
        lifetimeBoundMs: LIFETIME_BOUND_MS,
      }),
    );
    this.producerTask = producerPool.run<FailoverProducerTask, FailoverProducerReport>({
      ...shared,
      threadIndex: consumers,
      urls: spec.producerUrls,
      ratePerSecond: spec.ratePerSecond,
      messageBytes: 256,
      maxInFlight: 500,
      recoveryBoundMs: 60_000,
      settleBoundMs: PRODUCER_SETTLE_BOUND_MS,
      lifetimeBoundMs: LIFETIME_BOUND_MS,
    });
    for (const task of [...this.consumerTasks, this.producerTask]) task.catch(() => undefined);
  }

  /** @throws WorkerError naming what each thread said when not every thread connected. */
  async waitUntilConnected(): Promise<void> {
    const { board, consumers } = this;
    if ((await board.waitFor(FailoverWord.READY, consumers + 1, 60_000 + consumers * 2000)) && board.flag(FailoverWord.FAILED) === 0)
      return;
    const errors = await threadErrors(this.consumerTasks, this.producerTask);
    throw new WorkerError(`threads did not all connect: ${errors.join('; ') || 'no thread reported an error'}`);
  }

  /** Stops every thread and takes their reports (a thread that gave none within the bound is `hung`). */
  async settle(): Promise<SettledFailoverReports> {
    this.board.raise(FailoverWord.STOP);
    const [consumers, producers] = await Promise.all([
      settleWithin(this.consumerTasks, SETTLE_BOUND_MS),
      settleWithin(this.producerTask ? [this.producerTask] : [], SETTLE_BOUND_MS),
    ]);
    const producer = producers[0];
    return { consumers, producer: producer?.status === 'fulfilled' ? producer.value : null };
  }

  /** Stops whatever still runs and ends the pools; safe in any state. */
  async stop(): Promise<void> {
    this.board.raise(FailoverWord.STOP_PRODUCING);
    this.board.raise(FailoverWord.STOP);
    await settleWithin<unknown>([...this.consumerTasks, ...(this.producerTask ? [this.producerTask] : [])], SETTLE_BOUND_MS);
    await Promise.allSettled(this.pools.map((pool) => pool.destroy()));
  }
}

async function threadErrors(
  consumers: readonly Promise<FailoverThreadReport>[],
  producer: Promise<FailoverProducerReport> | undefined,
): Promise<string[]> {
  const settled = await settleWithin<FailoverThreadReport | FailoverProducerReport>([...consumers, ...(producer ? [producer] : [])], 5000);
  return settled.flatMap((result, index) => {
    const who = index < consumers.length ? `consumer thread ${index}` : 'producer';
    if (result.status === 'fulfilled') return result.value.error ? [`${who}: ${result.value.error}`] : [];
    return result.status === 'rejected' ? [`${who}: ${redactText(String(result.reason))}`] : [];
  });
}
