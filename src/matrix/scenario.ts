/**
 * Runs one fault-matrix cell end to end — one fault, one client configuration — and returns what
 * every thread recorded: topology declared (an exchange, a queue per thread) -> the fault prepared
 * -> threads connect through the fault proxy, publish with confirms and consume -> warm-up until
 * every thread has its own messages back -> the fault injected through the fault model -> wait
 * (bounded) until every thread noticed it (or `holdMs` for a fault held in place, an alarm) ->
 * the fault removed -> the harness's probes flow to every queue -> wait (bounded) until every
 * thread recovered -> publishing stops, what is in flight gets `settleMs` -> threads close
 * (bounded) -> what is left in each queue is read. Whatever happens: the fault removed, the pool
 * destroyed, the topology deleted. Nothing here asserts: every outcome is data (findings).
 */
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import amqp, { type Channel, type ChannelModel } from 'amqplib';
import type { ClientSpec } from '../client/api';
import { closeBounded, socketOf } from '../client/amqplib/common';
import type { ClosableBrokerActions, Topology } from '../broker/actions';
import { describeError } from '../errors';
import type { FaultEvent, ProxyServerIdentity, ProxyTarget } from '../faults';
import { createFault, type FaultSpec } from '../faults/kinds/registry';
import type { Fault, FaultContext, FaultRemoval, Injection, NodeActions } from '../faults/model';
import { nowNs, sleep } from '../measure/clock';
import { decodeHeader, encodeMessage } from '../suite-kit/message';
import { settleWithin, startThreadPool } from '../workers/pool';
import { MatrixBoard, MatrixControl, MatrixInt } from './board';
import { PROBE_ROUND, type MatrixThreadReport } from './report';
import type { MatrixTask } from './thread';

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

export interface MatrixCellOptions {
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
  /** How long every thread gets to notice the fault. */
  readonly detectionBoundMs: number;
  /** A fault held in place this long at least before removal (an alarm: what publishes do while blocked). @default 0 */
  readonly holdMs?: number;
  /** How long every thread gets to recover after the removal. */
  readonly recoveryBoundMs: number;
  /** What is still in flight after publishing stops gets this long to settle (else: hung). @default 3000 */
  readonly settleMs?: number;
  /** Bound on a client's close(). @default 5000 */
  readonly closeBoundMs?: number;
  /** Check that close() returns while blocked (thread 0, on a second connection). @default false */
  readonly closeCheck?: boolean;
}

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
  /** Moments of the phases (ns). */
  readonly startedNs: bigint;
  readonly removedNs: bigint | null;
  readonly settleStartedNs: bigint | null;
  readonly allDetected: boolean;
  readonly allRecovered: boolean;
  readonly options: Required<Omit<MatrixCellOptions, 'client' | 'fault' | 'broker'>>;
  /** What went wrong in the harness itself (not a finding about the client): a topology that could not be made, a thread that could not start. */
  readonly harnessProblems: readonly string[];
  /** The board's final counters (thread moments), read before the pool was destroyed. */
  readonly board: MatrixBoard;
}

const PROBE_INTERVAL_MS = 100;

export async function runMatrixCell(input: MatrixCellOptions): Promise<MatrixOutcome> {
  const options = {
    threads: 2,
    confirmWindow: 50,
    publishIntervalMs: 5,
    messageBytes: 256,
    prefetch: 20,
    warmupMessages: 20,
    holdMs: 0,
    settleMs: 3000,
    closeBoundMs: 5000,
    closeCheck: false,
    ...input,
  };
  const { threads, broker } = options;
  const startedNs = nowNs();
  const prefix = `amqp-bench.matrix.${randomUUID()}`;
  const exchange = prefix;
  const queues = Array.from({ length: threads }, (_, index) => `${prefix}.${index}`);
  const topology: Topology = {
    exchanges: [{ name: exchange, type: 'direct' }],
    queues: queues.map((queue) => ({ name: queue, bindings: [{ exchange, routingKey: queue }] })),
  };
  const harnessProblems: string[] = [];
  const proxyServer = await broker.proxy.client.identify();
  const actions = broker.actions(topology);
  const context: FaultContext = {
    proxy: broker.proxy,
    broker: actions,
    connectionNamePrefix: prefix,
    exchange,
    queues,
    ...(broker.node ? { node: broker.node } : {}),
  };
  const fault = createFault(input.fault, context);
  const board = new MatrixBoard(threads);
  const admin = await openAdmin(broker.directUrl);
  const pool = startThreadPool(path.join(__dirname, 'thread.ts'), threads);
  let tasks: Promise<MatrixThreadReport>[] = [];
  let injection: Injection | null = null;
  let removal: FaultRemoval | null = null;
  let removedNs: bigint | null = null;
  let settleStartedNs: bigint | null = null;
  let allDetected = false;
  let allRecovered = false;
  let probing: NodeJS.Timeout | undefined;
  let reports: MatrixThreadReport[] = [];
  let leftInQueue: Map<number, number>[] = [];
  let faultEvents: readonly FaultEvent[] | null = null;
  try {
    await admin.channel.assertExchange(exchange, 'direct', { durable: false, autoDelete: false });
    for (const queue of queues) {
      await admin.channel.assertQueue(queue, { durable: false, autoDelete: false, arguments: { 'x-expires': 600_000 } });
      await admin.channel.bindQueue(queue, exchange, queue);
    }
    await fault.prepare();
    const phaseBoundMs = options.detectionBoundMs + options.holdMs + options.recoveryBoundMs + options.settleMs + 60_000;
    tasks = queues.map((queue, threadIndex) =>
      pool.run<MatrixTask, MatrixThreadReport>({
        threadIndex,
        threads,
        buffer: board.buffer,
        client: options.client,
        url: broker.proxiedUrl,
        connectionName: `${prefix}.${threadIndex}`,
        exchange,
        queue,
        confirmWindow: options.confirmWindow,
        publishIntervalMs: options.publishIntervalMs,
        messageBytes: options.messageBytes,
        prefetch: options.prefetch,
        phaseBoundMs,
        closeBoundMs: options.closeBoundMs,
      }),
    );
    for (const task of tasks) task.catch(() => undefined);
    if (!(await board.waitFor(MatrixControl.READY, threads, 30_000 + threads * 1000)))
      harnessProblems.push(`only ${board.flag(MatrixControl.READY)} of ${threads} threads started within the bound`);
    board.raise(MatrixControl.GO);
    const warm = await waitUntil(
      () => range(threads).every((thread) => board.int(thread, MatrixInt.DELIVERED) >= options.warmupMessages),
      20_000,
    );
    if (!warm)
      harnessProblems.push(`not every thread had ${options.warmupMessages} of its own messages back within 20 s of the start (warm-up)`);

    board.raise(MatrixControl.INJECTED);
    injection = await fault.inject();
    const detectionStartedMs = Date.now();
    allDetected = await board.waitFor(MatrixControl.DETECTED, threads, options.detectionBoundMs);
    if (options.closeCheck) {
      board.raise(MatrixControl.CLOSE_CHECK);
      await board.waitFor(MatrixControl.CLOSE_CHECKED, 1, options.closeBoundMs + 10_000);
    }
    const heldMs = Date.now() - detectionStartedMs;
    if (heldMs < options.holdMs) await sleep(options.holdMs - heldMs);

    removal = await fault.remove();
    removedNs = removal.completedNs;
    board.raise(MatrixControl.REMOVED);
    // The harness's probes tell a consumer that works from a publisher that does not.
    probing = setInterval(() => probe(admin, exchange, queues), PROBE_INTERVAL_MS);
    allRecovered = await board.waitFor(MatrixControl.RECOVERED, threads, options.recoveryBoundMs);

    settleStartedNs = nowNs();
    board.raise(MatrixControl.SETTLE);
    await waitUntil(() => range(threads).every((thread) => board.int(thread, MatrixInt.OUTSTANDING) === 0), options.settleMs);
    clearInterval(probing);
    probing = undefined;
    faultEvents = await broker.proxy.client.events(broker.proxy.name, injection.bracket.startedNs).catch(() => null);
    board.raise(MatrixControl.STOP);
    const settled = await settleWithin(tasks, options.closeBoundMs + 5000);
    reports = settled.map((result, threadIndex) => reportOf(result, threadIndex));
    leftInQueue = await Promise.all(queues.map((queue) => drain(admin, queue)));
  } catch (error) {
    harnessProblems.push(`the cell stopped early: ${describeError(error)}`);
  } finally {
    if (probing) clearInterval(probing);
    const undone = await fault.remove().catch((error: unknown) => ({ problems: [describeError(error)] }));
    harnessProblems.push(...undone.problems);
    board.raise(MatrixControl.SETTLE);
    board.raise(MatrixControl.STOP);
    board.raise(MatrixControl.GO);
    if (reports.length === 0 && tasks.length > 0) {
      const settled = await settleWithin(tasks, options.closeBoundMs + 5000);
      reports = settled.map((result, threadIndex) => reportOf(result, threadIndex));
    }
    await pool.destroy();
    for (const queue of queues) await admin.channel.deleteQueue(queue).catch(() => undefined);
    await admin.channel.deleteExchange(exchange).catch(() => undefined);
    await closeBounded(admin.model, socketOf(admin.model));
    await actions.close();
  }
  return {
    client: options.client,
    fault,
    proxyServer,
    threads: reports,
    leftInQueue,
    injection,
    removal,
    faultEvents,
    startedNs,
    removedNs,
    settleStartedNs,
    allDetected,
    allRecovered,
    options: {
      threads,
      confirmWindow: options.confirmWindow,
      publishIntervalMs: options.publishIntervalMs,
      messageBytes: options.messageBytes,
      prefetch: options.prefetch,
      warmupMessages: options.warmupMessages,
      detectionBoundMs: options.detectionBoundMs,
      holdMs: options.holdMs,
      recoveryBoundMs: options.recoveryBoundMs,
      settleMs: options.settleMs,
      closeBoundMs: options.closeBoundMs,
      closeCheck: options.closeCheck,
    },
    harnessProblems,
    board,
  };
}

function range(count: number): number[] {
  return Array.from({ length: count }, (_, index) => index);
}

async function waitUntil(predicate: () => boolean, boundMs: number): Promise<boolean> {
  const deadline = Date.now() + boundMs;
  while (!predicate()) {
    if (Date.now() >= deadline) return false;
    await sleep(20);
  }
  return true;
}

function reportOf(result: PromiseSettledResult<MatrixThreadReport> | { status: 'hung' }, threadIndex: number): MatrixThreadReport {
  if (result.status === 'fulfilled') return result.value;
  const error =
    result.status === 'rejected'
      ? `thread failed: ${describeError(result.reason)}`
      : 'thread did not finish within its bound after the stop (abandoned)';
  return {
    threadIndex,
    error,
    state: new Uint8Array(),
    phase: new Uint8Array(),
    publishedAtNs: new BigInt64Array(),
    settledAtNs: new BigInt64Array(),
    deliveries: new Uint16Array(),
    rejections: [],
    events: [],
    unhandled: [],
    closeMs: null,
  };
}

interface Admin {
  readonly model: ChannelModel;
  readonly channel: Channel;
}

async function openAdmin(url: string): Promise<Admin> {
  const model = await amqp.connect(url, { timeout: 5000, noDelay: true });
  model.on('error', () => undefined);
  const channel = await model.createChannel();
  channel.on('error', () => undefined);
  return { model, channel };
}

let probeSeq = 0;

/** One probe message to every queue, straight from the harness (not through the client under test). */
function probe(admin: Admin, exchange: string, queues: readonly string[]): void {
  const sentNs = nowNs();
  for (const queue of queues) {
    try {
      admin.channel.publish(
        exchange,
        queue,
        encodeMessage({ round: PROBE_ROUND, seq: probeSeq++, sentNs, scheduledNs: sentNs, paced: false }, 64),
      );
    } catch {
      // The admin channel died (the exchange gone mid-fault): the next tick tries again.
    }
  }
}

/** The thread's own messages left in `queue`: sequence number -> copies (probes ignored). */
async function drain(admin: Admin, queue: string): Promise<Map<number, number>> {
  const left = new Map<number, number>();
  for (let taken = 0; taken < 200_000; taken += 1) {
    const message = await admin.channel.get(queue, { noAck: true }).catch(() => false as const);
    if (!message) break;
    const header = decodeHeader(message.content);
    if (header && header.round !== PROBE_ROUND) left.set(header.seq, (left.get(header.seq) ?? 0) + 1);
  }
  return left;
}
