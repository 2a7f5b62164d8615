/**
 * A publish-throughput session: a dedicated queue, a bounded pool of publish worker threads
 * (connected, channels open, waiting at the barrier), and rounds run one at a time.
 *
 * Lifecycle: `openPublishSession` -> `open` -> `runRound()` as often as wanted (each round: all
 * workers start together, publish, flush; then the queue is checked to hold exactly the round's
 * messages and purged; a round not finished within its bound is cut there, and the queue is
 * checked to hold what was published) -> `close()` -> `closed`. A failed round closes nothing by itself: the
 * caller's `finally` calls `close()`, which is safe to call twice and always stops the workers,
 * destroys the pool, deletes the queue and closes the admin connection.
 */
import { randomUUID } from 'node:crypto';
import type { LatencyHistogram } from '../measure/histogram';
import type { ClientSpec } from '../client/api';
import { DEFAULT_CLIENT } from '../client/api';
import type { PublishWorkerReport } from './publishThread';
import type { PublishWorkload } from './plan';
import type { CombinedRound } from './rates';
import { PublishSessionRuntime } from './publishSessionRuntime';

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
  /**
   * True: the round did not finish within the round bound and was cut there (no further publish,
   * the ones in flight settled): `published` is what the client published within it, below
   * `expected`, and its rate is that of an incomplete round, never a complete round's figure.
   */
  readonly cut: boolean;
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
  /**
   * Runs the next round; rounds up to `warmupRounds` are warm-up. A round not finished within the
   * round bound is cut there (`cut`), a result about the client.
   * @throws WorkerError when a worker fails, or the workers do not finish a cut round.
   */
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

/**
 * Declares the queue, borrows a pool (src/workers/shelf.ts) and waits until every worker is connected.
 * @throws WorkerError when a worker cannot connect within the start-up bound (everything started is cleaned up).
 * @example
 * const session = await openPublishSession({ url, workload: resolvePublishWorkload({ threads: 10, messagesPerThread: 100 }) });
 * try { await session.runRound(); } finally { await session.close(); }
 */
export async function openPublishSession(options: PublishSessionOptions): Promise<PublishSession> {
  const { workload } = options;
  const queue = `${options.queuePrefix ?? 'amqp-bench.throughput'}.${randomUUID()}`;
  const session = new PublishSessionRuntime(workload, queue, options.arrivalBoundMs ?? 10_000);
  try {
    const maxLength = options.maxQueueLength ?? Math.max(4 * workload.messagesPerRound, 10_000);
    await session.openQueue(options.url, options.connectTimeoutMs ?? 5000, maxLength);
    session.startWorkers({
      url: options.url,
      client: options.client ?? DEFAULT_CLIENT,
      firstUseWarmupPublishesPerThread: options.firstUseWarmupPublishesPerThread ?? FIRST_USE_WARMUP_PUBLISHES_PER_THREAD,
    });
    await session.waitUntilReady(options.startBoundMs ?? 30_000 + workload.threads * 50);
  } catch (error) {
    await session.close().catch(() => undefined);
    throw error;
  }
  return {
    queue,
    workload,
    warmupRounds: session.warmupRounds,
    get state() {
      return session.state;
    },
    collectQueue: (expected) => session.collectQueue(expected),
    close: () => session.close(),
    runRound: () => session.runRound(),
  };
}
