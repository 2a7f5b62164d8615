/**
 * A publish-throughput session: a dedicated queue, a bounded pool of publish worker threads
 * (connected, channels open, waiting at the barrier), and rounds run one at a time.
 *
 * Lifecycle: `openPublishSession` -> `open` -> `runRound()` as often as wanted (each round: all
 * workers start together, publish, flush; then the queue is checked to hold exactly the round's
 * messages and purged) -> `close()` -> `closed`. A failed round closes nothing by itself: the
 * caller's `finally` calls `close()`, which is safe to call twice and always stops the workers,
 * destroys the pool, deletes the queue and closes the admin connection.
 */
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import amqp, { type Channel, type ChannelModel } from 'amqplib';
import { describeError, WorkerError } from '../errors';
import { sleep } from '../measure/clock';
import { mergeHistograms, type LatencyHistogram } from '../measure/histogram';
import { isNonEmpty } from '../measure/statistics';
import { redactText } from '../redact';
import { settleWithin, type ThreadPool } from '../workers/pool';
import { borrowThreadPool } from '../workers/shelf';
import type { ClientSpec } from '../client/api';
import { DEFAULT_CLIENT } from '../client/api';
import type { PublishTask, PublishWorkerReport } from './publishThread';
import type { PublishWorkload } from './plan';
import { PublishBoard, PublishControl } from './publishBoard';
import { combineWorkerRounds, rateOf, type CombinedRound } from './rates';

export interface PublishSessionOptions {
  /** Broker URL (direct). */
  readonly url: string;
  readonly workload: PublishWorkload;
  /** The client under test that publishes. @default amqplib (defaults) */
  readonly client?: ClientSpec;
  /** Bound on the harness's own admin connection. @default 5000 */
  readonly connectTimeoutMs?: number;
  /** Bound on start-up: threads loaded, connected, channels open. @default 30000 + 50 per publisher */
  readonly startBoundMs?: number;
  /** How long to wait for the queue to hold a round's messages. @default 10000 */
  readonly arrivalBoundMs?: number;
  /**
   * Publishes per worker thread before the first measured round on threads new to the mode and
   * client (0: only `workload.warmupRounds`). @default FIRST_USE_WARMUP_PUBLISHES_PER_THREAD
   */
  readonly firstUseWarmupPublishesPerThread?: number;
  /** @default 'amqp-bench.throughput' */
  readonly queuePrefix?: string;
  /**
   * `x-max-length` of the queue: a safety bound so the broker never piles up messages if a purge
   * fails. Rounds are purged, so it is never reached in a healthy run (if it were, the arrival
   * check would fail, not pass silently). @default max(4 * messagesPerRound, 10000)
   */
  readonly maxQueueLength?: number;
}

export interface RoundOutcome extends CombinedRound {
  /** 1-based, warm-up rounds included. */
  readonly round: number;
  readonly warmup: boolean;
  /** Messages the round should have put in the queue. */
  readonly expected: number;
  /** Messages the queue held after the round (counted by the purge). */
  readonly received: number;
  readonly msgsPerSec: number;
  readonly mbPerSec: number;
}

export interface SessionReport {
  readonly workers: readonly PublishWorkerReport[];
  /** Publish latencies of the measured rounds, merged over every worker (µs). */
  readonly histogram: LatencyHistogram;
  readonly errorSamples: readonly string[];
}

export type SessionState = 'open' | 'closed';

export interface PublishSession {
  readonly queue: string;
  readonly workload: PublishWorkload;
  /**
   * Warm-up rounds of this session: `workload.warmupRounds`, or more on threads that have not
   * published in this mode yet (see FIRST_USE_WARMUP_PUBLISHES_PER_THREAD).
   */
  readonly warmupRounds: number;
  readonly state: SessionState;
  /** Runs the next round; rounds up to `warmupRounds` are warm-up. @throws WorkerError when a worker fails or the round exceeds its bound. */
  runRound(): Promise<RoundOutcome>;
  /** Waits until the queue holds `expected` messages (or the bound passes), purges it, returns the purged count. */
  collectQueue(expected: number): Promise<number>;
  /** Stops the workers and cleans everything up; safe to call twice. */
  close(): Promise<SessionReport>;
}

/**
 * Publishes per worker thread before the first measured round on threads new to the mode: a
 * thread's publish path reaches its speed only after thousands of calls (V8 compiles it in
 * tiers). Seen on two cores with pools reused across replicates: 10x100 plain went from 30k to
 * 117k msg/s over six replicates (18 rounds of 250 publishes a thread); fresh pools per replicate
 * stayed cold (16k-35k). Once per pool, mode and client, so every replicate is measured on warm threads.
 */
export const FIRST_USE_WARMUP_PUBLISHES_PER_THREAD = 5_000;
/** Bound on those extra warm-up rounds (tiny rounds would otherwise need very many). */
const MAX_FIRST_USE_WARMUP_ROUNDS = 30;

/**
 * Declares the queue, borrows a pool (src/workers/shelf.ts) and waits until every worker is connected.
 * @throws WorkerError when a worker cannot connect within the start-up bound (everything started is cleaned up).
 * @example
 * const session = await openPublishSession({ url, workload: resolvePublishWorkload({ threads: 10, messagesPerThread: 100 }) });
 * try { await session.runRound(); } finally { await session.close(); }
 */
export async function openPublishSession(options: PublishSessionOptions): Promise<PublishSession> {
  const { workload } = options;
  const arrivalBoundMs = options.arrivalBoundMs ?? 10_000;
  const queue = `${options.queuePrefix ?? 'amqp-bench.throughput'}.${randomUUID()}`;
  const board = new PublishBoard(workload.workerThreads);
  const adminErrors: string[] = [];
  let admin: ChannelModel | undefined;
  let channel: Channel | undefined;
  let pool: ThreadPool | undefined;
  let tasks: Promise<PublishWorkerReport>[] = [];
  let state: SessionState = 'open';
  let closing: Promise<SessionReport> | undefined;
  let round = 0;
  let warmupRounds = workload.warmupRounds;

  const settleReports = async (boundMs: number): Promise<PublishWorkerReport[]> => {
    const settled = await settleWithin(tasks, boundMs);
    return settled.map((result, worker): PublishWorkerReport => {
      if (result.status === 'fulfilled') return result.value;
      const fatal =
        result.status === 'rejected'
          ? `worker task rejected: ${redactText(describeError(result.reason))}`
          : `worker did not finish within ${boundMs} ms of the stop signal`;
      return { worker, rounds: [], histogram: { encoded: '', unit: 'us', count: 0 }, errorSamples: [], fatal };
    });
  };

  const close = (): Promise<SessionReport> => {
    closing ??= (async () => {
      state = 'closed';
      board.raise(PublishControl.STOP);
      // Idle workers wait on GO with STOP as their abort word, which they used to read only at
      // the end of a 50 ms slice: woken now, they stop at once. After the rounds, so no round's
      // figures can change; a worker still in a round does not wait on GO and is not affected.
      board.wake(PublishControl.GO);
      try {
        const workers = await settleReports(15_000);
        const histogram = mergeHistograms(workers.filter((report) => report.histogram.count > 0).map((report) => report.histogram));
        const errorSamples = [...new Set([...workers.flatMap((report) => report.errorSamples), ...adminErrors])].slice(0, 10);
        return { workers, histogram, errorSamples };
      } finally {
        await pool?.destroy();
        await channel?.deleteQueue(queue).catch(() => undefined);
        await admin?.close().catch(() => undefined);
      }
    })();
    return closing;
  };

  /** Stops the session and builds an error naming what each failed worker said. */
  const failure = async (what: string): Promise<WorkerError> => {
    const report = await close();
    const reasons = report.workers.filter((worker) => worker.fatal).map((worker) => `worker ${worker.worker}: ${worker.fatal}`);
    return new WorkerError(`${what}${reasons.length > 0 ? `; ${reasons.join('; ')}` : ''}`);
  };

  const collectQueue = async (expected: number): Promise<number> => {
    if (!channel) throw new WorkerError('the session has no admin channel');
    const deadline = Date.now() + arrivalBoundMs;
    for (;;) {
      const { messageCount } = await channel.checkQueue(queue);
      if (messageCount >= expected || Date.now() >= deadline) break;
      // A short poll: the round's figures are taken already (the workers' own times), so the
      // poll only decides how soon the count is read once the queue has caught up (a 10 ms poll
      // lost up to 10 ms after each plain round, warm-up rounds included). Same count, same bound.
      await sleep(2);
    }
    const { messageCount } = await channel.purgeQueue(queue);
    return messageCount;
  };

  try {
    admin = await amqp.connect(options.url, { noDelay: true, timeout: options.connectTimeoutMs ?? 5000 });
    admin.on('error', (error: Error) => adminErrors.push(`admin connection: ${error.message}`));
    channel = await admin.createChannel();
    channel.on('error', (error: Error) => adminErrors.push(`admin channel: ${error.message}`));
    const maxLength = options.maxQueueLength ?? Math.max(4 * workload.messagesPerRound, 10_000);
    // x-expires: a queue left behind by a killed run disappears on its own after 10 idle minutes.
    await channel.assertQueue(queue, { durable: false, arguments: { 'x-max-length': maxLength, 'x-expires': 600_000 } });

    pool = borrowThreadPool(path.join(__dirname, 'publishThread.ts'), workload.workerThreads);
    const started = pool;
    // Per client too: a pool reused across clients (bench:clients) has not warmed the next one's library.
    const client = options.client ?? DEFAULT_CLIENT;
    const warmupTag = `publish-${workload.mode}-${client.module ?? client.name}:${client.profile}`;
    if (!started.warmedUp.has(warmupTag)) {
      const publishesPerThreadRound = workload.messagesPerRound / workload.workerThreads;
      const firstUseRounds = Math.ceil(
        (options.firstUseWarmupPublishesPerThread ?? FIRST_USE_WARMUP_PUBLISHES_PER_THREAD) / publishesPerThreadRound,
      );
      warmupRounds = Math.max(warmupRounds, Math.min(MAX_FIRST_USE_WARMUP_ROUNDS, firstUseRounds));
      started.warmedUp.add(warmupTag);
    }
    tasks = workload.assignments.map((assignment) =>
      started.run<PublishTask, PublishWorkerReport>({
        worker: assignment.worker,
        workers: workload.workerThreads,
        buffer: board.buffer,
        url: options.url,
        queue,
        publishers: assignment.publishers,
        messagesPerThread: workload.messagesPerThread,
        messageSizeBytes: workload.messageSizeBytes,
        mode: workload.mode,
        warmupRounds,
        client,
        phaseBoundMs: workload.roundBoundMs,
      }),
    );
    const startBoundMs = options.startBoundMs ?? 30_000 + workload.threads * 50;
    const ready = await board.waitFor(PublishControl.READY, workload.workerThreads, startBoundMs);
    if (!ready || board.flag(PublishControl.FAILED) > 0) {
      throw await failure(
        ready
          ? 'publish workers failed to start'
          : `only ${board.flag(PublishControl.READY)} of ${workload.workerThreads} publish workers were ready within ${startBoundMs} ms`,
      );
    }
  } catch (error) {
    await close().catch(() => undefined);
    throw error;
  }

  return {
    queue,
    workload,
    warmupRounds,
    get state() {
      return state;
    },
    collectQueue,
    close,
    async runRound(): Promise<RoundOutcome> {
      if (state !== 'open') throw new WorkerError('the publish session is closed; open a new one');
      round += 1;
      board.raise(PublishControl.GO, round);
      const target = workload.workerThreads * round;
      const complete = await board.waitFor(PublishControl.DONE, target, workload.roundBoundMs, PublishControl.FAILED);
      if (!complete) {
        const failed = board.flag(PublishControl.FAILED);
        throw await failure(
          failed > 0
            ? `${failed} publish worker(s) failed in round ${round}`
            : `round ${round} did not complete within ${workload.roundBoundMs} ms`,
        );
      }
      const parts = Array.from({ length: workload.workerThreads }, (_, worker) => board.readRound(worker));
      if (!isNonEmpty(parts)) throw new WorkerError('a publish session needs at least one worker thread');
      const combined = combineWorkerRounds(parts);
      const received = await collectQueue(workload.messagesPerRound);
      const rate = rateOf(combined.published, workload.messageSizeBytes, combined.durationMs);
      return { ...combined, round, warmup: round <= warmupRounds, expected: workload.messagesPerRound, received, ...rate };
    },
  };
}
