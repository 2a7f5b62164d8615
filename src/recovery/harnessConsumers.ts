/**
 * The harness's side of a recovery scenario: one consumer thread (consumerThread.ts) per
 * connection in a piscina pool, the client under test behind the client interface, talking to
 * the main thread through shared memory (./board.ts, the recovery board).
 *
 * A measurement borrows its threads from the file's shelf of pools (src/workers/shelf.ts), so its
 * later replicates run on threads that have been through a fault before; the harness/bare witness
 * starts fresh threads every run instead (`startFreshHarnessConsumers`), as the bare floor starts
 * a fresh process: at 50-100 threads, threads that had run the library's fault path once detected
 * their own RST 3-8 ms after it, fresh ones 15-75 ms, so a witness mixing the two compared
 * different work.
 */
import path from 'node:path';
import { WorkerError } from '../errors';
import { sleep } from '../measure/clock';
import { settleWithin } from '../workers/pool';
import { startThreadPool, type ThreadPool } from '../workers/pool';
import { borrowThreadPool } from '../workers/shelf';
import { RECEIVED_KINDS } from '../client/faults';
import { Control, IntSlot, ThreadBoard, ThreadState, TimeSlot } from './board';
import type { RecoveryTask, RecoveryThreadReport } from './consumerThread';
import { range, type ConsumersStart, type RecoveryConsumers, type ThreadRecord } from './consumers';

/** How long past the warm-up a thread that has seen no traffic yet is waited for. */
const WARMUP_GRACE_MS = 10_000;

const optionalNs = (ns: bigint): bigint | null => (ns === 0n ? null : ns);

const CONSUMER_THREAD = path.join(__dirname, 'consumerThread.ts');

/** The harness's threads, from the shelf of pools when a benchmark file keeps one (else fresh). */
export function startHarnessConsumers(start: ConsumersStart): RecoveryConsumers {
  return harnessConsumersOn(borrowThreadPool(CONSUMER_THREAD, start.threads), start);
}

/** The harness's threads on a pool started for this run alone (never the shelf's): what the bare floor has too. */
export function startFreshHarnessConsumers(start: ConsumersStart): RecoveryConsumers {
  return harnessConsumersOn(startThreadPool(CONSUMER_THREAD, start.threads), start);
}

function harnessConsumersOn(pool: ThreadPool, start: ConsumersStart): RecoveryConsumers {
  const { threads } = start;
  const board = new ThreadBoard(threads);
  const tasks = Array.from({ length: threads }, (_, threadIndex) =>
    pool.run<RecoveryTask, RecoveryThreadReport>({
      threadIndex,
      threads,
      buffer: board.buffer,
      client: start.client,
      url: start.url,
      queue: start.queues[threadIndex]!,
      connectionName: start.connectionNamePrefix === undefined ? undefined : `${start.connectionNamePrefix}.${threadIndex}`,
      drainTimeoutMs: start.drainTimeoutMs,
      phaseBoundMs: start.phaseBoundMs,
      roundTripTimeoutMs: 5000,
    }),
  );
  // A task that fails early must not be an unhandled rejection while nobody awaits it yet.
  for (const task of tasks) task.catch(() => undefined);
  let closed: Promise<void> | undefined;

  return {
    async waitReady() {
      // Thread start-up on two cores takes a while for 50 threads; bound it generously.
      if (!(await board.waitFor(Control.READY, threads, 30_000 + threads * 500))) {
        throw new WorkerError(`only ${board.flag(Control.READY)} of ${threads} threads connected within the start-up bound`);
      }
      const failedAtStart = await failedThreads(board, tasks);
      if (failedAtStart.length > 0) throw new WorkerError(`threads failed to connect through the proxy: ${failedAtStart.join('; ')}`);
    },
    async warmUp(warmupMs) {
      board.raise(Control.GO);
      await sleep(warmupMs);
      // On a loaded machine a thread may not have run yet: wait for it (bounded) rather than fail.
      const silentThreads = () => range(threads).filter((thread) => board.int(thread, IntSlot.DELIVERIES) === 0);
      for (const warmDeadline = Date.now() + WARMUP_GRACE_MS; silentThreads().length > 0 && Date.now() < warmDeadline;) await sleep(20);
      const silent = silentThreads();
      if (silent.length > 0)
        throw new WorkerError(
          `no traffic reached threads ${silent.join(', ')} during warm-up (${warmupMs} ms + ${WARMUP_GRACE_MS} ms grace)`,
        );
    },
    markInjected: () => board.raise(Control.INJECTED),
    waitDetected: (boundMs) => board.waitFor(Control.DETECTED, threads, boundMs),
    markRemoved: () => board.raise(Control.TOXIC_REMOVED),
    waitRecovered: (boundMs) => waitForRecoveries(board, threads, boundMs),
    async finish() {
      board.raise(Control.STOP);
      const settled = await settleWithin(tasks, 10_000);
      const reports = settled.map((result, threadIndex): RecoveryThreadReport => {
        if (result.status === 'fulfilled') return result.value;
        if (result.status === 'rejected') return { threadIndex, harnessError: `thread crashed: ${String(result.reason)}`, falseAlarms: 0 };
        return { threadIndex, harnessError: 'thread did not finish within 10 s of the stop signal', falseAlarms: 0 };
      });
      return reports.map((report) => threadRecord(board, report));
    },
    close() {
      closed ??= (async () => {
        board.raise(Control.STOP);
        board.raise(Control.GO);
        board.raise(Control.TOXIC_REMOVED);
        await settleWithin(tasks, 10_000);
        await pool.destroy();
      })();
      return closed;
    },
  };
}

async function failedThreads(board: ThreadBoard, tasks: Promise<RecoveryThreadReport>[]): Promise<string[]> {
  const failed = range(board.threads).filter((thread) => board.int(thread, IntSlot.STATE) === ThreadState.FAILED);
  if (failed.length === 0) return [];
  // A failed thread has already returned its report: collect the reasons.
  const settled = await settleWithin(
    failed.map((thread) => tasks[thread]!),
    5000,
  );
  return settled.map(
    (result, index) =>
      `thread ${failed[index]}: ${result.status === 'fulfilled' ? (result.value.error ?? result.value.harnessError) : result.status}`,
  );
}

/** Waits until every thread recovered or gave up (failed), within the bound. */
async function waitForRecoveries(board: ThreadBoard, threads: number, boundMs: number): Promise<boolean> {
  const deadline = Date.now() + boundMs;
  while (Date.now() < deadline) {
    if (await board.waitFor(Control.RECOVERED, threads, Math.min(100, deadline - Date.now()))) return true;
    const settled = range(threads).every((thread) =>
      [ThreadState.RECOVERED, ThreadState.FAILED].includes(board.int(thread, IntSlot.STATE) as 5 | 6),
    );
    if (settled) return false;
  }
  return board.flag(Control.RECOVERED) >= threads;
}

function threadRecord(board: ThreadBoard, report: RecoveryThreadReport): ThreadRecord {
  const thread = report.threadIndex;
  return {
    threadIndex: thread,
    readyNs: optionalNs(board.time(thread, TimeSlot.READY)),
    detectedNs: optionalNs(board.time(thread, TimeSlot.DETECTED)),
    detectionCause: RECEIVED_KINDS[board.int(thread, IntSlot.CAUSE)] ?? 'none',
    recoveryStartedNs: optionalNs(board.time(thread, TimeSlot.RECOVERY_STARTED)),
    recoveredNs: optionalNs(board.time(thread, TimeSlot.RECOVERED)),
    faultedLocalPort: board.int(thread, IntSlot.LOCAL_PORT),
    reconnectAttempts: board.int(thread, IntSlot.ATTEMPTS),
    deliveries: board.int(thread, IntSlot.DELIVERIES),
    falseAlarms: report.falseAlarms,
    ...(report.error ? { error: report.error } : {}),
    ...(report.harnessError ? { harnessError: report.harnessError } : {}),
    ...(report.unhandled ? { unhandled: report.unhandled } : {}),
  };
}
