/**
 * The phases of a fault-matrix cell, in order (./scenario.ts runs them): threads started and
 * warmed up; the fault injected, noticed and held; removed, and the threads recovering; the settle
 * bound, every publish classed, the threads stopped and what is left in the queues read. Each
 * bound the harness sets itself and misses is a harness problem, never a finding.
 */
import { describeError } from '../errors';
import type { FaultEvent, ProxyConnection } from '../faults';
import type { FaultRemoval, Injection } from '../faults/model';
import { pollUntil, sleep } from '../measure/clock';
import { settleWithin } from '../workers/pool';
import { MatrixControl, MatrixInt, MatrixTime } from './board';
import { delayToPhaseMs, firstThreadPhase, openDelayMs } from './phases';
import type { MatrixThreadReport } from './report';
import type { Cell } from './scenario';
import { recoveredWhileDelivering } from './recoveryWait';
import type { MatrixTask } from './thread';

/** What a cell's run has produced so far (filled in phase by phase). */
export interface CellRun {
  tasks: Promise<MatrixThreadReport>[];
  injection: Injection | null;
  removal: FaultRemoval | null;
  settleStartedNs: bigint | null;
  allDetected: boolean;
  allRecovered: boolean;
  reports: MatrixThreadReport[];
  leftInQueue: Map<number, number>[];
  faultEvents: readonly FaultEvent[] | null;
  /** Every connection through the proxy entry (null: the proxy keeps no such list). */
  proxyConnections: readonly ProxyConnection[] | null;
  problems: string[];
}

/** Harness probes to every queue after the removal, this often. */
const PROBE_INTERVAL_MS = 100;
/** Every thread has its own messages back within this long of the start (warm-up). */
const WARMUP_BOUND_MS = 20_000;
/** After the recovery bound, a consumer not back but still being delivered its own messages is checked this often (./recoveryWait.ts). */
const DELIVERING_STEP_MS = 1000;
/** Every consumer has one of its own deliveries in its handler within this long (deliveries come every publish interval). */
const ACK_HOLD_BOUND_MS = 5000;

/** Threads started (staggered over a heartbeat interval when one is given), warmed up, and the silence's phase waited for. */
export async function startAndWarmUp(cell: Cell, run: CellRun): Promise<void> {
  const { options, board } = cell;
  const { threads } = options;
  const intervalMs = options.heartbeatIntervalMs ?? undefined;
  const staggerMs = intervalMs ?? 0;
  const phaseBoundMs = options.detectionBoundMs + options.holdMs + options.recoveryBoundMs * 2 + options.settleMs + staggerMs * 2 + 60_000;
  run.tasks = cell.queues.map((queue, threadIndex) =>
    cell.pool.run<MatrixTask, MatrixThreadReport>({
      threadIndex,
      threads,
      buffer: board.buffer,
      client: cell.client,
      url: cell.broker.proxiedUrl,
      connectionName: `${cell.prefix}.${threadIndex}`,
      exchange: cell.exchange,
      queue,
      confirmWindow: options.confirmWindow,
      publishIntervalMs: options.publishIntervalMs,
      messageBytes: options.messageBytes,
      prefetch: options.prefetch,
      settleMs: options.settleMs,
      phaseBoundMs,
      closeBoundMs: options.closeBoundMs,
      stall: options.stall,
      holdDelivery: cell.fault.definition.holdsDelivery ?? false,
    }),
  );
  for (const task of run.tasks) task.catch(() => undefined);
  // Workers take a while to load (each compiles the client's code): the stagger starts once all are waiting.
  if (!(await board.waitFor(MatrixControl.LOADED, threads, 30_000 + threads * 2000)))
    run.problems.push(`only ${board.flag(MatrixControl.LOADED)} of ${threads} threads loaded within the bound`);
  const openAtNs = process.hrtime.bigint() + 20_000_000n;
  for (let thread = 0; thread < threads; thread += 1)
    board.setTimeOnce(thread, MatrixTime.OPEN_AT, openAtNs + BigInt(Math.round(openDelayMs(thread, threads, intervalMs) * 1e6)));
  board.raise(MatrixControl.OPEN);
  if (!(await board.waitFor(MatrixControl.READY, threads, 30_000 + threads * 1000 + staggerMs)))
    run.problems.push(`only ${board.flag(MatrixControl.READY)} of ${threads} threads started within the bound`);
  board.raise(MatrixControl.GO);
  const everyThread = Array.from({ length: threads }, (_, thread) => thread);
  const warm = await pollUntil(
    () => everyThread.every((thread) => board.int(thread, MatrixInt.DELIVERED) >= options.warmupMessages),
    WARMUP_BOUND_MS,
    20,
  );
  if (!warm)
    run.problems.push(
      `not every thread had ${options.warmupMessages} of its own messages back within ${WARMUP_BOUND_MS / 1000} s of the start (warm-up)`,
    );
  await keepAcksForTheFault(cell, run);
  const openedNs = board.time(0, MatrixTime.OPENED);
  if (intervalMs !== undefined && openedNs !== 0n)
    await sleep(delayToPhaseMs(openedNs, process.hrtime.bigint(), intervalMs, firstThreadPhase(threads)));
}

/** Every consumer keeps a delivery it has in its handler at the fault's moment (./faultMomentAck.ts); bounded. */
async function keepAcksForTheFault(cell: Cell, run: CellRun): Promise<void> {
  const { options, board } = cell;
  if (cell.fault.definition.holdsDelivery) return;
  board.raise(MatrixControl.HOLD_ACK);
  if (!(await board.waitFor(MatrixControl.ACK_HELD, options.threads, ACK_HOLD_BOUND_MS)))
    run.problems.push(
      `only ${board.flag(MatrixControl.ACK_HELD)} of ${options.threads} consumers had a delivery in their handler within ${ACK_HOLD_BOUND_MS / 1000} s, before the injection`,
    );
}

/** The fault injected; every thread given the detection bound to notice; held as long as asked; close() checked while it holds. */
export async function injectAndHold(cell: Cell, run: CellRun): Promise<void> {
  const { options, board } = cell;
  board.raise(MatrixControl.INJECTED);
  run.injection = await cell.fault.inject();
  const detectionStartedMs = Date.now();
  run.allDetected = await board.waitFor(MatrixControl.DETECTED, options.threads, options.detectionBoundMs);
  if (options.closeCheck) {
    board.raise(MatrixControl.CLOSE_CHECK);
    if (!(await board.waitFor(MatrixControl.CLOSE_CHECKED, 1, options.closeBoundMs + 10_000)))
      run.problems.push(`the close check did not finish within ${(options.closeBoundMs + 10_000) / 1000} s`);
  }
  const heldMs = Date.now() - detectionStartedMs;
  if (heldMs < options.holdMs) await sleep(options.holdMs - heldMs);
}

/** The fault removed; the harness's probes start; every thread given the recovery bound (longer while a slow consumer is still delivering). */
export async function removeAndRecover(cell: Cell, run: CellRun): Promise<void> {
  const { options, board } = cell;
  run.removal = await cell.fault.remove();
  board.raise(MatrixControl.REMOVED);
  // The harness's probes tell a consumer that works from a publisher that does not (its own
  // connection opened again first when the node it was on restarted).
  if (!(await cell.admin.reopenIfClosed())) run.problems.push('the harness could not connect to the broker again after the removal');
  cell.admin.startProbes(cell.exchange, cell.queues, PROBE_INTERVAL_MS);
  run.allRecovered = await recoveredWhileDelivering(board, options.threads, options.recoveryBoundMs, DELIVERING_STEP_MS);
}

/** Publishing stops; the settle bound; every publish classed (before anything is closed); threads stopped and their reports read; the queues drained. */
export async function settleAndCollect(cell: Cell, run: CellRun): Promise<void> {
  const { options, board } = cell;
  run.settleStartedNs = process.hrtime.bigint();
  board.raise(MatrixControl.SETTLE);
  const classBoundMs = options.settleMs + 5000;
  if (!(await board.waitFor(MatrixControl.CLASSED, options.threads, classBoundMs)))
    run.problems.push(
      `only ${board.flag(MatrixControl.CLASSED)} of ${options.threads} threads classed their publishes within ${classBoundMs / 1000} s of the settle`,
    );
  cell.admin.stopProbes();
  if (run.injection) {
    run.faultEvents = await cell.broker.proxy.client.events(cell.broker.proxy.name, run.injection.bracket.startedNs).catch(() => null);
    run.proxyConnections = await cell.broker.proxy.client.connections(cell.broker.proxy.name).catch(() => null);
  }
  await releaseThreads(cell, run);
  run.leftInQueue = await Promise.all(cell.queues.map((queue) => cell.admin.drain(queue)));
}

/** Every thread told to stop (whatever phase it waits in) and its report read, bounded (once). */
export async function releaseThreads(cell: Cell, run: CellRun): Promise<void> {
  const { board } = cell;
  board.raise(MatrixControl.SETTLE);
  board.raise(MatrixControl.STOP);
  board.raise(MatrixControl.OPEN);
  board.raise(MatrixControl.GO);
  if (run.reports.length > 0 || run.tasks.length === 0) return;
  const settled = await settleWithin(run.tasks, cell.options.closeBoundMs + 5000);
  run.reports = settled.map((result, threadIndex) => {
    if (result.status === 'fulfilled') return result.value;
    if (result.status === 'hung')
      run.problems.push(
        `thread ${threadIndex} did not finish within ${(cell.options.closeBoundMs + 5000) / 1000} s of the stop (abandoned)`,
      );
    return failedThread(threadIndex, result.status === 'rejected' ? `thread failed: ${describeError(result.reason)}` : 'abandoned');
  });
}

function failedThread(threadIndex: number, error: string): MatrixThreadReport {
  return {
    threadIndex,
    error,
    state: new Uint8Array(),
    settledOnlyByClose: 0,
    phase: new Uint8Array(),
    publishedAtNs: new BigInt64Array(),
    settledAtNs: new BigInt64Array(),
    deliveries: new Uint16Array(),
    deliveredAtNs: new BigInt64Array(),
    lastDeliveredAtNs: new BigInt64Array(),
    ports: [],
    rejections: [],
    events: [],
    unhandled: [],
    closeMs: null,
  };
}
