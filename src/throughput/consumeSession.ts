/**
 * A sustained consume session: a dedicated queue kept between two depths by harness producer
 * threads (plain amqplib), a pool of consumer threads of the client under test (connected, idle
 * until a phase opens), and the broker's queue depth sampled every few ms.
 *
 * Lifecycle: `openConsumeSession` (queue declared, producers and consumers connected, queue
 * filled to its low watermark) -> `open` -> `runPhase()` any number of times, one at a time
 * (consumers start, warm up, the counters are read at each window's edges, consumers are
 * cancelled) with anything else consuming the same queue in between (the bare script) -> `close()`
 * -> `closed`. `close()` is safe to call twice and always stops every thread, destroys both pools,
 * deletes the queue and closes the admin connection; a failed phase closes the session itself.
 */
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import type { ClientSpec } from '../client/api';
import { QueueAdmin } from '../broker/queueAdmin';
import { describeError, WorkerError } from '../errors';
import { elapsedMs, nowNs, sleep } from '../measure/clock';
import { threadsCpuMs } from '../measure/threadCpu';
import { redactText } from '../redact';
import { settleWithin, type ThreadPool } from '../workers/pool';
import { borrowThreadPool } from '../workers/shelf';
import { ConsumeBoard, ConsumeControl, type CounterReading } from './consumeBoard';
import type { ConsumeWorkload } from './consumePlan';
import { consumeWindow, depthDuring, isSteady, type ConsumeWindow, type DepthSummary } from './consumeRates';
import { closeAccount, type AccountOutcome } from './consumeAccount';
import type { ConsumeTask, ConsumeThreadReport } from './consumeThread';
import { startDepthSampler, type DepthSampler } from './depthSampler';
import type { LoadProducerReport, LoadProducerTask } from './loadProducerThread';

export interface ConsumeSessionOptions {
  /** Broker URL (direct). */
  readonly url: string;
  readonly client: ClientSpec;
  readonly workload: ConsumeWorkload;
  /** Bound on one connection (client or producer). @default 10000 */
  readonly connectBoundMs?: number;
  /** Bound on filling the queue to its low watermark at start. @default 30000 */
  readonly fillBoundMs?: number;
  /** Bound on every thread's whole task. @default 600000 */
  readonly lifetimeBoundMs?: number;
  /** @default 'amqp-bench.consume' */
  readonly queuePrefix?: string;
}

export type { AccountOutcome } from './consumeAccount';

export interface PhaseOutcome {
  readonly phase: number;
  /** Consumers started (phase opened) to every consumer consuming. */
  readonly startupMs: number;
  readonly windows: readonly ConsumeWindow[];
  /**
   * How the windows ended: `steady` (the last ones agreed, before the most asked for), `dry` (the
   * queue ran dry in one of them: the figure is producer-bound whatever follows, before the most
   * asked for) or `max` (all asked for).
   */
  readonly windowsEnded: 'steady' | 'dry' | 'max';
  /** Present when the phase closed the session's account (see `runPhase`). */
  readonly account?: AccountOutcome;
}

export interface ConsumeSessionReport {
  readonly consumers: readonly ConsumeThreadReport[];
  readonly producers: readonly LoadProducerReport[];
  readonly depthSamples: number;
  /** Failures of threads, of the depth sampling, of the queue admin. */
  readonly errors: readonly string[];
}

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

export interface PhaseOptions {
  readonly account?: boolean;
  readonly accountBoundMs?: number;
  /**
   * End before `windows`, after `minWindows` at least, once the last `minWindows` windows' rates
   * agree within `withinPercent` (consumeRates.ts isSteady), or once a window ran dry.
   */
  readonly steady?: { readonly minWindows: number; readonly withinPercent: number };
}

const SETTLE_BOUND_MS = 15_000;

/**
 * Declares the queue, starts both pools, and waits until every thread is connected and the
 * queue holds its low watermark.
 * @throws WorkerError when a thread cannot connect or the queue does not fill within the bounds (everything is cleaned up).
 * @example
 * const session = await openConsumeSession({ url, client, workload: resolveConsumeWorkload({ consumers: 10 }) });
 * try { (await session.runPhase(3)).windows; } finally { await session.close(); }
 */
export async function openConsumeSession(options: ConsumeSessionOptions): Promise<ConsumeSession> {
  const { workload } = options;
  const connectBoundMs = options.connectBoundMs ?? 10_000;
  const lifetimeBoundMs = options.lifetimeBoundMs ?? 600_000;
  const id = randomUUID();
  const queue = `${options.queuePrefix ?? 'amqp-bench.consume'}.${id}`;
  const connectionPrefix = `amqp-bench-consume-${id}`;
  const board = new ConsumeBoard({ consumerThreads: workload.consumerThreads, producerThreads: workload.producerThreads });
  const pools: ThreadPool[] = [];
  let consumerTasks: Promise<ConsumeThreadReport>[] = [];
  let producerTasks: Promise<LoadProducerReport>[] = [];
  let admin: QueueAdmin | undefined;
  let sampler: DepthSampler | undefined;
  let state: 'open' | 'closed' = 'open';
  let closing: Promise<ConsumeSessionReport> | undefined;
  let phase = 0;
  let accountable = true;

  const close = (): Promise<ConsumeSessionReport> => {
    closing ??= (async () => {
      state = 'closed';
      board.raise(ConsumeControl.PRODUCE_STOP);
      board.raise(ConsumeControl.STOP);
      // The consumer threads wait on PHASE / PHASE_END with STOP as their abort word: woken, they see it now, not a slice later.
      board.wake(ConsumeControl.PHASE);
      board.wake(ConsumeControl.PHASE_END);
      const errors: string[] = [];
      try {
        await sampler?.stop();
        if (sampler?.error) errors.push(sampler.error);
        const settled = <T extends { error?: string }>(kind: string, results: (PromiseSettledResult<T> | { status: 'hung' })[]): T[] =>
          results.flatMap((result, index) => {
            if (result.status === 'fulfilled') {
              if (result.value.error) errors.push(`${kind} thread ${index}: ${result.value.error}`);
              return [result.value];
            }
            const why =
              result.status === 'rejected' ? redactText(describeError(result.reason)) : `no report ${SETTLE_BOUND_MS} ms after stop`;
            errors.push(`${kind} thread ${index}: ${why}`);
            return [];
          });
        const [consumers, producers] = await Promise.all([
          settleWithin(consumerTasks, SETTLE_BOUND_MS),
          settleWithin(producerTasks, SETTLE_BOUND_MS),
        ]);
        return {
          consumers: settled('consumer', consumers),
          producers: settled('producer', producers),
          depthSamples: sampler?.samples.length ?? 0,
          errors,
        };
      } finally {
        await Promise.allSettled(pools.map((pool) => pool.destroy()));
        await admin?.close();
      }
    })();
    return closing;
  };

  /** Closes the session and builds an error with what every thread said. */
  const failure = async (what: string): Promise<WorkerError> => {
    const report = await close();
    return new WorkerError(`${what}${report.errors.length > 0 ? `: ${report.errors.join('; ')}` : ''}`);
  };
  const failedThreads = () => board.flag(ConsumeControl.CONSUMERS_FAILED) + board.flag(ConsumeControl.PRODUCERS_FAILED);

  try {
    admin = await QueueAdmin.open(options.url);
    // x-expires: a queue left behind by a killed run disappears on its own after 10 idle minutes.
    await admin.declare(queue, { arguments: { 'x-max-length': workload.maxQueueLength, 'x-expires': 600_000 } });
    const producerPool = borrowThreadPool(path.join(__dirname, 'loadProducerThread.ts'), workload.producerThreads);
    pools.push(producerPool);
    const consumerPool = borrowThreadPool(path.join(__dirname, 'consumeThread.ts'), workload.consumerThreads);
    pools.push(consumerPool);
    const common = { buffer: board.buffer, layout: board.layout, url: options.url, queue, lifetimeBoundMs };
    producerTasks = Array.from({ length: workload.producerThreads }, (_, producer) =>
      producerPool.run<LoadProducerTask, LoadProducerReport>({
        ...common,
        producer,
        messageSizeBytes: workload.messageSizeBytes,
        watermarks: workload.watermarks,
        connectionName: `${connectionPrefix}-producer-${producer}`,
        connectTimeoutMs: connectBoundMs,
      }),
    );
    consumerTasks = workload.consumersPerThread.map((consumers, thread) =>
      consumerPool.run<ConsumeTask, ConsumeThreadReport>({
        ...common,
        thread,
        client: options.client,
        consumers,
        prefetch: workload.prefetch,
        connectionName: `${connectionPrefix}-consumer-${thread}`,
        connectBoundMs,
      }),
    );
    // Awaited in close(); until then a rejection must not count as unhandled.
    for (const task of [...producerTasks, ...consumerTasks]) task.catch(() => undefined);
    sampler = startDepthSampler(admin, queue, board, workload.depthSamplingMs);

    const startBoundMs = 2 * connectBoundMs + 20_000;
    const ready =
      (await board.waitFor(ConsumeControl.PRODUCERS_READY, workload.producerThreads, startBoundMs)) &&
      (await board.waitFor(ConsumeControl.CONSUMERS_READY, workload.consumerThreads, startBoundMs));
    if (!ready || failedThreads() > 0)
      throw await failure(ready ? 'the session threads failed to start' : `the session threads were not ready within ${startBoundMs} ms`);
    await waitUntilFull(options.fillBoundMs ?? 30_000);
  } catch (error) {
    await close().catch(() => undefined);
    throw error;
  }

  const started = sampler;
  const queueAdmin = admin;
  const consumerThreads = workload.consumerThreads;
  /** Fails the session when a thread or the sampling failed. */
  const check = async (what: string): Promise<void> => {
    if (failedThreads() > 0 || started.error !== undefined) throw await failure(`${what} failed`);
  };

  return {
    queue,
    workload,
    connectionPrefix,
    get state() {
      return state;
    },
    depthDuring: (startNs, endNs) => depthDuring(started.samples, startNs, endNs),
    waitUntilFull: async (boundMs = 30_000) => {
      if (state !== 'open') throw new WorkerError('the consume session is closed; open a new one');
      await waitUntilFull(boundMs);
    },
    close,
    async runPhase(windows, phaseOptions = {}): Promise<PhaseOutcome> {
      if (state !== 'open') throw new WorkerError('the consume session is closed; open a new one');
      if (!Number.isInteger(windows) || windows < 0) throw new RangeError(`windows must be a whole number; got ${windows}`);
      if (phaseOptions.account && !accountable)
        throw new WorkerError('the account must be exact: only in the first phase, before anything else consumed the queue');
      accountable = false;
      phase += 1;
      const openedNs = nowNs();
      board.raise(ConsumeControl.PHASE, phase);
      const startBoundMs = 30_000 + 50 * workload.consumers;
      if (!(await board.waitFor(ConsumeControl.CONSUMING, consumerThreads * phase, startBoundMs, ConsumeControl.CONSUMERS_FAILED)))
        throw await failure(`phase ${phase}: consumers did not start within ${startBoundMs} ms`);
      const startupMs = elapsedMs(openedNs, nowNs());
      // The consumers fail the phase at once if they fail: the waits below wake on CONSUMERS_FAILED.
      await board.waitFor(ConsumeControl.CONSUMERS_FAILED, 1, workload.warmupMs);
      await check(`phase ${phase} (warm-up)`);
      const measured: ConsumeWindow[] = [];
      let edge = readEdge();
      let windowsEnded: PhaseOutcome['windowsEnded'] = 'max';
      for (let window = 0; window < windows; window += 1) {
        await board.waitFor(ConsumeControl.CONSUMERS_FAILED, 1, workload.windowMs);
        const next = readEdge();
        await check(`phase ${phase}, window ${window + 1}`);
        measured.push(consumeWindow(edge, next, workload.messageSizeBytes, started.samples));
        edge = next;
        // Ending early (before the most asked for, after the least) is only for a phase that asked for it.
        const steady = phaseOptions.steady;
        if (!steady || window + 1 >= windows) continue;
        if (
          isSteady(
            measured.map((each) => each.consumeRateMsgsPerSec),
            steady.minWindows,
            steady.withinPercent,
          )
        ) {
          windowsEnded = 'steady';
          break;
        }
        // A window that ran dry makes the figure producer-bound (consumeRates.ts boundOf): no later
        // window can make it a clean consume rate, so the least asked for is enough.
        if (window + 1 >= steady.minWindows && measured.some((each) => each.depth.ranDry === true)) {
          windowsEnded = 'dry';
          break;
        }
      }
      const account = phaseOptions.account
        ? await closeAccount(board, () => queueAdmin.purge(queue), phaseOptions.accountBoundMs ?? 300_000)
        : undefined;
      if (typeof account === 'string') throw await failure(account);
      board.raise(ConsumeControl.PHASE_END, phase);
      if (!(await board.waitFor(ConsumeControl.CANCELLED, consumerThreads * phase, 15_000)))
        throw await failure(`phase ${phase}: consumers were not cancelled within 15000 ms`);
      await check(`phase ${phase} (cancel)`);
      return { phase, startupMs, windows: measured, windowsEnded, ...(account ? { account } : {}) };
    },
  };

  /** The counters and the consumer threads' CPU time (null unless every thread's is known). */
  function readEdge(): CounterReading {
    const tids = Array.from({ length: workload.consumerThreads }, (_, thread) => board.threadIdOf(thread));
    return { ...board.read(), consumerCpuMs: threadsCpuMs(tids) };
  }

  /** Waits until the queue holds its low watermark (producers top it up whenever it is below). */
  async function waitUntilFull(boundMs: number): Promise<void> {
    const deadline = Date.now() + boundMs;
    while ((sampler?.samples.at(-1)?.ready ?? 0) < workload.watermarks.lowMessages) {
      if (failedThreads() > 0 || sampler?.error !== undefined) throw await failure('the queue could not be filled');
      if (Date.now() > deadline)
        throw await failure(`the producers did not fill the queue to ${workload.watermarks.lowMessages} messages within ${boundMs} ms`);
      await sleep(workload.depthSamplingMs);
    }
  }
}
