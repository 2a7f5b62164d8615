/**
 * What a consume session holds while it is open (its board, thread pools, tasks, queue admin and
 * depth sampler) and how it ends: `close()` stops every thread, settles their reports within a
 * bound, destroys both pools and closes the admin connection, once however often it is called.
 */
import path from 'node:path';
import type { ClientSpec } from '../client/api';
import type { QueueAdmin } from '../broker/queueAdmin';
import { describeError, WorkerError } from '../errors';
import { sleep } from '../measure/clock';
import { threadsCpuMs } from '../measure/threadCpu';
import { redactText } from '../redact';
import { settleWithin, type ThreadPool } from '../workers/pool';
import { borrowThreadPool } from '../workers/shelf';
import { ConsumeBoard, ConsumeControl, type CounterReading } from './consumeBoard';
import type { ConsumeWorkload } from './consumePlan';
import type { ConsumeTask, ConsumeThreadReport } from './consumeThread';
import type { DepthSampler } from './depthSampler';
import type { QueueFillOutcome } from './queueFill';
import type { LoadProducerReport, LoadProducerTask } from './loadProducerThread';

export interface ConsumeSessionReport {
  readonly consumers: readonly ConsumeThreadReport[];
  readonly producers: readonly LoadProducerReport[];
  /** The start fill (null when the session failed before it was done). */
  readonly fill: QueueFillOutcome | null;
  readonly depthSamples: number;
  /** Failures of threads, of the depth sampling, of the queue admin. */
  readonly errors: readonly string[];
}

/** Where the session's threads connect and what they are told to do. */
export interface SessionThreadsSpec {
  readonly url: string;
  readonly client: ClientSpec;
  readonly connectionPrefix: string;
  readonly connectBoundMs: number;
  readonly lifetimeBoundMs: number;
}

const SETTLE_BOUND_MS = 15_000;

export class ConsumeSessionRuntime {
  readonly board: ConsumeBoard;
  state: 'open' | 'closed' = 'open';
  admin: QueueAdmin | undefined;
  sampler: DepthSampler | undefined;
  /** The start fill, once done. */
  fill: QueueFillOutcome | undefined;
  /** Phases run so far. */
  phase = 0;
  /** Only the first phase, before anything else consumed the queue, can account exactly. */
  accountable = true;
  private readonly pools: ThreadPool[] = [];
  private consumerTasks: Promise<ConsumeThreadReport>[] = [];
  private producerTasks: Promise<LoadProducerReport>[] = [];
  private closing: Promise<ConsumeSessionReport> | undefined;

  constructor(
    readonly workload: ConsumeWorkload,
    readonly queue: string,
  ) {
    this.board = new ConsumeBoard({ consumerThreads: workload.consumerThreads, producerThreads: workload.producerThreads });
  }

  /** Starts the producer and consumer threads (they connect and report ready on the board). */
  startThreads(spec: SessionThreadsSpec): void {
    const { workload, board } = this;
    const producerPool = borrowThreadPool(path.join(__dirname, 'loadProducerThread.ts'), workload.producerThreads);
    this.pools.push(producerPool);
    const consumerPool = borrowThreadPool(path.join(__dirname, 'consumeThread.ts'), workload.consumerThreads);
    this.pools.push(consumerPool);
    const common = { buffer: board.buffer, layout: board.layout, url: spec.url, queue: this.queue, lifetimeBoundMs: spec.lifetimeBoundMs };
    this.producerTasks = Array.from({ length: workload.producerThreads }, (_, producer) =>
      producerPool.run<LoadProducerTask, LoadProducerReport>({
        ...common,
        producer,
        messageSizeBytes: workload.messageSizeBytes,
        watermarks: workload.watermarks,
        connectionName: `${spec.connectionPrefix}-producer-${producer}`,
        connectTimeoutMs: spec.connectBoundMs,
      }),
    );
    this.consumerTasks = workload.consumersPerThread.map((consumers, thread) =>
      consumerPool.run<ConsumeTask, ConsumeThreadReport>({
        ...common,
        thread,
        client: spec.client,
        consumers,
        prefetch: workload.prefetch,
        connectionName: `${spec.connectionPrefix}-consumer-${thread}`,
        connectBoundMs: spec.connectBoundMs,
      }),
    );
    // Awaited in close(); until then a rejection must not count as unhandled.
    for (const task of [...this.producerTasks, ...this.consumerTasks]) task.catch(() => undefined);
  }

  failedThreads(): number {
    return this.board.flag(ConsumeControl.CONSUMERS_FAILED) + this.board.flag(ConsumeControl.PRODUCERS_FAILED);
  }

  close(): Promise<ConsumeSessionReport> {
    this.closing ??= this.stopEverything();
    return this.closing;
  }

  /** Closes the session and builds an error with what every thread said. */
  async failure(what: string): Promise<WorkerError> {
    const report = await this.close();
    return new WorkerError(`${what}${report.errors.length > 0 ? `: ${report.errors.join('; ')}` : ''}`);
  }

  /** Fails the session when a thread or the sampling failed. */
  async check(what: string): Promise<void> {
    if (this.failedThreads() > 0 || this.sampler?.error !== undefined) throw await this.failure(`${what} failed`);
  }

  /** The counters and the consumer threads' CPU time (null unless every thread's is known). */
  readEdge(): CounterReading {
    const tids = Array.from({ length: this.workload.consumerThreads }, (_, thread) => this.board.threadIdOf(thread));
    return { ...this.board.read(), consumerCpuMs: threadsCpuMs(tids) };
  }

  /** Empties the session's queue (closing an account). */
  async purgeQueue(): Promise<number> {
    if (!this.admin) throw new WorkerError('the consume session has no queue admin');
    return this.admin.purge(this.queue);
  }

  /**
   * Waits until the queue holds `depthMessages` ready messages (producers top it up whenever it is
   * below the low mark, and fill it towards the high one). `boundMs` bounds a fill that stopped
   * growing, not the whole fill: a loaded machine fills slower but still fills (CI at load 12
   * took over 30 s for 180,000); ten bounds cap it all.
   */
  async waitUntilDepth(depthMessages: number, boundMs: number): Promise<void> {
    const { workload } = this;
    const startedMs = Date.now();
    let grewAtMs = startedMs;
    let most = 0;
    for (;;) {
      const ready = this.sampler?.samples.at(-1)?.ready ?? 0;
      if (ready >= depthMessages) return;
      if (this.failedThreads() > 0 || this.sampler?.error !== undefined) throw await this.failure('the queue could not be filled');
      const nowMs = Date.now();
      if (ready > most) [most, grewAtMs] = [ready, nowMs];
      if (nowMs - grewAtMs > boundMs || nowMs - startedMs > 10 * boundMs)
        throw await this.failure(
          `the producers did not fill the queue to ${depthMessages} messages: ${most} after ${nowMs - startedMs} ms, none more in the last ${nowMs - grewAtMs} ms (bound ${boundMs} ms without growth, ${10 * boundMs} ms in all)`,
        );
      await sleep(workload.depthSamplingMs);
    }
  }

  private async stopEverything(): Promise<ConsumeSessionReport> {
    const { board } = this;
    this.state = 'closed';
    board.raise(ConsumeControl.PRODUCE_STOP);
    board.raise(ConsumeControl.STOP);
    // The consumer threads wait on PHASE / PHASE_END with STOP as their abort word: woken, they see it now, not a slice later.
    board.wake(ConsumeControl.PHASE);
    board.wake(ConsumeControl.PHASE_END);
    const errors: string[] = [];
    try {
      await this.sampler?.stop();
      if (this.sampler?.error) errors.push(this.sampler.error);
      const [consumers, producers] = await Promise.all([
        settleWithin(this.consumerTasks, SETTLE_BOUND_MS),
        settleWithin(this.producerTasks, SETTLE_BOUND_MS),
      ]);
      return {
        consumers: settledReports('consumer', consumers, errors),
        producers: settledReports('producer', producers, errors),
        fill: this.fill ?? null,
        depthSamples: this.sampler?.samples.length ?? 0,
        errors,
      };
    } finally {
      await Promise.allSettled(this.pools.map((pool) => pool.destroy()));
      await this.admin?.close();
    }
  }
}

/** The reports of the threads that gave one; what each other thread said (or that it hung) goes to `errors`. */
function settledReports<T extends { error?: string }>(
  kind: string,
  results: readonly (PromiseSettledResult<T> | { status: 'hung' })[],
  errors: string[],
): T[] {
  return results.flatMap((result, index) => {
    if (result.status === 'fulfilled') {
      if (result.value.error) errors.push(`${kind} thread ${index}: ${result.value.error}`);
      return [result.value];
    }
    const why = result.status === 'rejected' ? redactText(describeError(result.reason)) : `no report ${SETTLE_BOUND_MS} ms after stop`;
    errors.push(`${kind} thread ${index}: ${why}`);
    return [];
  });
}
