/**
 * Runs one fault-matrix cell end to end — one fault, one client configuration — and returns what
 * every thread recorded: topology declared (an exchange, a queue per thread) -> the fault prepared
 * -> threads connect through the fault proxy (staggered over one heartbeat interval for a silence
 * only heartbeats notice), publish with confirms and consume -> warm-up until every thread has its
 * own messages back -> (a heartbeat cell: wait for the phase grid) -> the fault injected through the
 * fault model -> wait (bounded) until every thread noticed it, and the fault's hold (an alarm, an
 * absent queue) -> the fault removed -> the harness's probes flow to every queue -> wait (bounded)
 * until every thread recovered -> publishing stops, what is in flight gets `settleMs`, then every
 * thread classes each publish (pending = hung) -> threads close (bounded) -> what is left in each
 * queue is read. Whatever happens: the fault removed, the pool destroyed, the topology deleted.
 * Nothing here asserts: every outcome is data (findings), and what went wrong in the harness
 * itself is listed as such.
 */
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import type { ClientSpec } from '../client/api';
import type { ClosableBrokerActions, Topology } from '../broker/actions';
import { describeError } from '../errors';
import type { FaultEvent, ProxyConnection, ProxyServerIdentity, ProxyTarget } from '../faults';
import { createFault, faultDefinition, type FaultSpec } from '../faults/kinds/registry';
import type { Fault, FaultRemoval, Injection, MatrixCellBounds, NodeActions } from '../faults/model';
import { nowNs } from '../measure/clock';
import { startThreadPool, type ThreadPool } from '../workers/pool';
import { CellAdmin } from './admin';
import { MatrixBoard } from './board';
import { injectAndHold, releaseThreads, removeAndRecover, settleAndCollect, startAndWarmUp, type CellRun } from './cellPhases';
import type { MatrixThreadReport } from './report';

/** Where the clients of a cell connect: the shared broker, or the node the harness started for it. */
export interface MatrixBroker {
  /** Direct AMQP URL (the harness's admin side and its probes). */
  readonly directUrl: string;
  /** The proxy entry in front of it. */
  readonly proxy: ProxyTarget;
  /** The broker through the proxy (what the threads use). */
  readonly proxiedUrl: string;
  /** Broker actions for the cell's topology (close connections, delete and restore, alarms where allowed). */
  readonly actions: (topology: Topology) => ClosableBrokerActions;
  /** The node itself, when it is the harness's own (pauses). */
  readonly node?: NodeActions;
}

export interface MatrixCellOptions extends MatrixCellBounds {
  readonly client: ClientSpec;
  readonly fault: FaultSpec;
  readonly broker: MatrixBroker;
  /** @default 2 */
  readonly threads?: number;
  /** Publishes awaiting their confirm at most, per thread. @default 50 */
  readonly confirmWindow?: number;
  /** @default 5 (200 msg/s per thread) */
  readonly publishIntervalMs?: number;
  /** @default 256 */
  readonly messageBytes?: number;
  /** @default 20 */
  readonly prefetch?: number;
  /** Own messages every thread must have had back before the fault. @default 20 */
  readonly warmupMessages?: number;
  /**
   * The clients' heartbeat interval, for a silence only heartbeats notice: the threads' connections
   * open staggered over it and the injection meets them at a grid of phases (./phases.ts).
   * Absent: connections open at once and the silence begins whenever the warm-up ends.
   */
  readonly heartbeatIntervalMs?: number;
  /** What is still in flight after publishing stops gets this long to settle (else: hung). @default 3000 */
  readonly settleMs?: number;
  /** Bound on a client's close(). @default 5000 */
  readonly closeBoundMs?: number;
}

/** The options a cell ran with, every default filled in. */
export type ResolvedCellOptions = Required<Omit<MatrixCellOptions, 'client' | 'fault' | 'broker' | 'heartbeatIntervalMs'>> & {
  readonly heartbeatIntervalMs: number | null;
};

export interface MatrixOutcome {
  readonly client: ClientSpec;
  readonly fault: Fault;
  readonly proxyServer: ProxyServerIdentity;
  readonly threads: readonly MatrixThreadReport[];
  /** Own messages left in each thread's queue at the end: sequence number -> copies. */
  readonly leftInQueue: readonly ReadonlyMap<number, number>[];
  readonly injection: Injection | null;
  readonly removal: FaultRemoval | null;
  readonly faultEvents: readonly FaultEvent[] | null;
  /** Every connection through the proxy entry, as the proxy listed them at the end (null: it keeps no list). */
  readonly proxyConnections: readonly ProxyConnection[] | null;
  /** Moments of the phases (ns). */
  readonly startedNs: bigint;
  readonly removedNs: bigint | null;
  readonly settleStartedNs: bigint | null;
  readonly allDetected: boolean;
  readonly allRecovered: boolean;
  readonly options: ResolvedCellOptions;
  /** The harness's probes after the removal: rounds published, and rounds that failed to publish. */
  readonly probes: { readonly sent: number; readonly failed: number };
  /** What went wrong in the harness itself (not a finding about the client): a topology that could not be made, a thread that could not start, a bound of its own hit. */
  readonly harnessProblems: readonly string[];
  /** The board's final counters (thread moments), read before the pool was destroyed. */
  readonly board: MatrixBoard;
}

/** Everything a cell works with, made before anything runs. */
export interface Cell {
  readonly options: ResolvedCellOptions;
  readonly client: ClientSpec;
  readonly broker: MatrixBroker;
  readonly prefix: string;
  readonly exchange: string;
  readonly queues: readonly string[];
  readonly fault: Fault;
  readonly board: MatrixBoard;
  readonly admin: CellAdmin;
  readonly pool: ThreadPool;
  readonly actions: ClosableBrokerActions;
}

export function resolveCellOptions(input: MatrixCellOptions): ResolvedCellOptions {
  return {
    threads: input.threads ?? 2,
    confirmWindow: input.confirmWindow ?? 50,
    publishIntervalMs: input.publishIntervalMs ?? 5,
    messageBytes: input.messageBytes ?? 256,
    prefetch: input.prefetch ?? 20,
    warmupMessages: input.warmupMessages ?? 20,
    detectionBoundMs: input.detectionBoundMs,
    holdMs: input.holdMs ?? 0,
    recoveryBoundMs: input.recoveryBoundMs,
    settleMs: input.settleMs ?? 3000,
    closeBoundMs: input.closeBoundMs ?? 5000,
    closeCheck: input.closeCheck ?? false,
    heartbeatIntervalMs: input.heartbeatIntervalMs ?? null,
  };
}

async function openCell(input: MatrixCellOptions): Promise<Cell> {
  const options = resolveCellOptions(input);
  const prefix = `amqp-bench.matrix.${randomUUID()}`;
  const exchange = prefix;
  const queues = Array.from({ length: options.threads }, (_, index) => `${prefix}.${index}`);
  const topology: Topology = {
    exchanges: [{ name: exchange, type: 'direct' }],
    queues: queues.map((queue) => ({ name: queue, bindings: [{ exchange, routingKey: queue }] })),
  };
  const { broker } = input;
  const actions = broker.actions(topology);
  const fault = createFault(input.fault, {
    proxy: broker.proxy,
    broker: actions,
    connectionNamePrefix: prefix,
    exchange,
    queues,
    ...(broker.node ? { node: broker.node } : {}),
  });
  const admin = await CellAdmin.open(broker.directUrl);
  const board = new MatrixBoard(options.threads);
  const pool = startThreadPool(path.join(__dirname, 'thread.ts'), options.threads);
  return { options, client: input.client, broker, prefix, exchange, queues, fault, board, admin, pool, actions };
}

export async function runMatrixCell(input: MatrixCellOptions): Promise<MatrixOutcome> {
  const startedNs = nowNs();
  const proxyServer = await input.broker.proxy.client.identify();
  const cell = await openCell(input);
  const run: CellRun = {
    tasks: [],
    injection: null,
    removal: null,
    settleStartedNs: null,
    allDetected: false,
    allRecovered: false,
    reports: [],
    leftInQueue: [],
    faultEvents: null,
    proxyConnections: null,
    problems: [],
  };
  try {
    await cell.admin.declare(cell.exchange, cell.queues, faultDefinition(input.fault.kind).durableQueues ?? false);
    await cell.fault.prepare();
    await startAndWarmUp(cell, run);
    await injectAndHold(cell, run);
    await removeAndRecover(cell, run);
    await settleAndCollect(cell, run);
  } catch (error) {
    run.problems.push(`the cell stopped early: ${describeError(error)}`);
  } finally {
    await cleanUp(cell, run);
  }
  return {
    client: cell.client,
    fault: cell.fault,
    proxyServer,
    threads: run.reports,
    leftInQueue: run.leftInQueue,
    injection: run.injection,
    removal: run.removal,
    faultEvents: run.faultEvents,
    proxyConnections: run.proxyConnections,
    startedNs,
    removedNs: run.removal?.completedNs ?? null,
    settleStartedNs: run.settleStartedNs,
    allDetected: run.allDetected,
    allRecovered: run.allRecovered,
    options: cell.options,
    probes: { sent: cell.admin.probesSent, failed: cell.admin.probeFailures },
    harnessProblems: run.problems,
    board: cell.board,
  };
}

/** Whatever happened: the fault undone, every thread released and the pool gone, the topology deleted. */
async function cleanUp(cell: Cell, run: CellRun): Promise<void> {
  cell.admin.stopProbes();
  const undone = await cell.fault.remove().catch((error: unknown) => ({ problems: [describeError(error)] }));
  run.problems.push(...undone.problems);
  await releaseThreads(cell, run);
  await cell.pool.destroy();
  await cell.admin.dispose(cell.exchange, cell.queues);
  await cell.actions.close();
}
