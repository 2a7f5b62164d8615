/**
 * A sustained consume session: a dedicated queue kept between two depths by harness producer
 * threads (plain amqplib), a pool of consumer threads of the client under test (connected, idle
 * until a phase opens), and the broker's queue depth sampled every few ms.
 *
 * Lifecycle: `openConsumeSession` (queue declared, producers and consumers connected, queue
 * filled to exactly its start depth by the start fill, ./queueFill.ts: what the first phase can
 * drain, with a margin, watermarks.ts; then the producers keep it between the watermarks) -> `open` -> `runPhase()` any number of times, one at a time
 * (consumers start, warm up, the counters are read at each window's edges, consumers are
 * cancelled) with anything else consuming the same queue in between (the bare script) -> `close()`
 * -> `closed`. `close()` is safe to call twice and always stops every thread, destroys both pools,
 * deletes the queue and closes the admin connection; a failed phase closes the session itself.
 */
import { randomUUID } from 'node:crypto';
import type { ClientSpec } from '../client/api';
import { QueueAdmin } from '../broker/queueAdmin';
import { WorkerError } from '../errors';
import { ConsumeControl } from './consumeBoard';
import type { ConsumeWorkload } from './consumePlan';
import { depthDuring, type DepthSummary } from './consumeRates';
import { runConsumePhase, type PhaseOptions, type PhaseOutcome } from './consumePhase';
import { ConsumeSessionRuntime, type ConsumeSessionReport } from './consumeSessionRuntime';
import { startDepthSampler } from './depthSampler';
import { fillQueue } from './queueFill';

export interface ConsumeSessionOptions {
  /** Broker URL (direct). */
  readonly url: string;
  readonly client: ClientSpec;
  readonly workload: ConsumeWorkload;
  /** Bound on one connection (client or producer). @default 10000 */
  readonly connectBoundMs?: number;
  /** Bound on each wait of the start fill for the broker (./queueFill.ts), and on a later top-up that stopped growing. @default 30000 */
  readonly fillBoundMs?: number;
  /** Bound on every thread's whole task. @default 600000 */
  readonly lifetimeBoundMs?: number;
  /** @default 'amqp-bench.consume' */
  readonly queuePrefix?: string;
}

export type { AccountOutcome } from './consumeAccount';
export type { PhaseOptions, PhaseOutcome } from './consumePhase';
export type { ConsumeSessionReport } from './consumeSessionRuntime';

export interface ConsumeSession {
  readonly queue: string;
  readonly workload: ConsumeWorkload;
  /** Every connection of the session (client and producers) is named with this prefix. */
  readonly connectionPrefix: string;
  readonly state: 'open' | 'closed';
  /**
   * One phase: start every consumer, warm up for `workload.warmupMs`, measure `windows`
   * consecutive windows of `workload.windowMs`, then, with `account`, stop the producers, purge the
   * queue and wait (while deliveries keep coming, at most `accountBoundMs`, default 300000) until
   * every message published in the session is counted or purged (consumeAccount.ts) — only in the
   * session's first phase, when nothing else has consumed (an exact account) — and cancel.
   * @throws WorkerError when a thread fails, or a phase does not start (the session is closed first)
   */
  runPhase(windows: number, options?: PhaseOptions): Promise<PhaseOutcome>;
  /** The queue between two moments (e.g. another consumer's window). */
  depthDuring(startNs: bigint, endNs: bigint): DepthSummary;
  /**
   * Waits until the producers have the queue back at its low watermark (e.g. before another
   * consumer's turn, so each turn starts as full as the first).
   * @throws WorkerError when it is not within `boundMs` (@default 30000) or a thread failed (the session is closed first)
   */
  waitUntilFull(boundMs?: number): Promise<void>;
  close(): Promise<ConsumeSessionReport>;
}

/**
 * Declares the queue, starts both pools, fills the queue with exactly `workload.startMessages`
 * meanwhile (checked against the broker's count), and waits until every thread is connected; then
 * lets the producers publish (they go on filling towards the high mark).
 * @throws WorkerError when a thread cannot connect or the queue does not fill within the bounds (everything is cleaned up).
 * @example
 * const session = await openConsumeSession({ url, client, workload: resolveConsumeWorkload({ consumers: 10 }) });
 * try { (await session.runPhase(3)).windows; } finally { await session.close(); }
 */
export async function openConsumeSession(options: ConsumeSessionOptions): Promise<ConsumeSession> {
  const { workload } = options;
  const connectBoundMs = options.connectBoundMs ?? 10_000;
  const id = randomUUID();
  const queue = `${options.queuePrefix ?? 'amqp-bench.consume'}.${id}`;
  const connectionPrefix = `amqp-bench-consume-${id}`;
  const session = new ConsumeSessionRuntime(workload, queue);
  try {
    const admin = await QueueAdmin.open(options.url);
    session.admin = admin;
    // x-expires: a queue left behind by a killed run disappears on its own after 10 idle minutes.
    await admin.declare(queue, { arguments: { 'x-max-length': workload.maxQueueLength, 'x-expires': 600_000 } });
    const lifetimeBoundMs = options.lifetimeBoundMs ?? 600_000;
    session.startThreads({ url: options.url, client: options.client, connectionPrefix, connectBoundMs, lifetimeBoundMs });
    session.sampler = startDepthSampler(admin, queue, session.board, workload.depthSamplingMs);
    // The start fill while the threads connect; the producers wait for it (FILLED), the consumers for a phase.
    const [fill] = await Promise.all([
      fillQueue({
        url: options.url,
        queue,
        messages: workload.startMessages,
        messageSizeBytes: workload.messageSizeBytes,
        connectionName: `${connectionPrefix}-fill`,
        boundMs: options.fillBoundMs ?? 30_000,
        onPublished: (messages) => session.board.countFilled(messages),
        readyCount: () => admin.messagesLeft(queue),
        // A thread that failed to start closes the session: the fill need not go on.
        abandoned: () => session.state === 'closed',
      }),
      waitUntilReady(session, connectBoundMs),
    ]);
    session.fill = fill;
    session.board.raise(ConsumeControl.FILLED);
    // Already there (the fill checked it): the sampler, which the phases read, has seen it too.
    await session.waitUntilDepth(workload.startMessages, options.fillBoundMs ?? 30_000);
  } catch (error) {
    await session.close().catch(() => undefined);
    throw error;
  }
  const samples = session.sampler.samples;
  return {
    queue,
    workload,
    connectionPrefix,
    get state() {
      return session.state;
    },
    depthDuring: (startNs, endNs) => depthDuring(samples, startNs, endNs),
    waitUntilFull: async (boundMs = 30_000) => {
      if (session.state !== 'open') throw new WorkerError('the consume session is closed; open a new one');
      await session.waitUntilDepth(workload.watermarks.lowMessages, boundMs);
    },
    close: () => session.close(),
    runPhase: (windows, phaseOptions = {}) => runConsumePhase(session, windows, phaseOptions),
  };
}

/** Waits until every producer and consumer thread is connected. */
async function waitUntilReady(session: ConsumeSessionRuntime, connectBoundMs: number): Promise<void> {
  const { board, workload } = session;
  const startBoundMs = 2 * connectBoundMs + 20_000;
  const ready =
    (await board.waitFor(ConsumeControl.PRODUCERS_READY, workload.producerThreads, startBoundMs)) &&
    (await board.waitFor(ConsumeControl.CONSUMERS_READY, workload.consumerThreads, startBoundMs));
  if (!ready || session.failedThreads() > 0)
    throw await session.failure(
      ready ? 'the session threads failed to start' : `the session threads were not ready within ${startBoundMs} ms`,
    );
}
