/**
 * Runs one recovery scenario end to end and returns what every thread recorded:
 * (armed faults added at toxicity 0) -> threads connect through the fault proxy -> barrier ->
 * traffic flows -> (optional pre-fault, e.g. latency) -> fault injected (added, or an armed one
 * fired) -> wait (bounded) until every thread detected -> toxics removed and threads told so ->
 * wait (bounded) until every thread proved recovery with a round trip -> stop. Whatever
 * happens, toxics are removed, traffic stopped and the pool destroyed.
 *
 * Why arm: real Toxiproxy closes a link with a true RST only when a reset_peer toxic was in its
 * chain when the link started; a reset_peer added to open links closes them with a FIN.
 */
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { ClientSpec } from '../client/api';
import { WorkerError } from '../errors';
import {
  strongestRemoval,
  type ActiveToxic,
  type ArmedToxic,
  type FaultEvent,
  type ProxyServerIdentity,
  type ProxyTarget,
  type Removal,
} from '../faults';
import { clockAnchor, nowNs, sleep, type Bracket, type ClockAnchor } from '../measure/clock';
import { CAUSE_NAMES, Control, IntSlot, ThreadBoard, ThreadState, TimeSlot } from './board';
import { settleWithin, startThreadPool } from '../workers/pool';
import type { RecoveryTask, RecoveryThreadReport } from './consumerThread';
import { startFanoutTraffic } from './traffic';

/**
 * How a fault gets onto the proxy: added when it is due (`inject`), or armed at toxicity 0
 * before the threads connect and fired (toxicity 1) when it is due (`arm`).
 */
export type FaultPlan =
  { readonly inject: (proxy: ProxyTarget) => Promise<ActiveToxic> } | { readonly arm: (proxy: ProxyTarget) => Promise<ArmedToxic> };

export interface RecoveryScenarioOptions {
  readonly threads: number;
  /** The client under test (its library and settings profile). */
  readonly client: ClientSpec;
  readonly proxy: ProxyTarget;
  /** Broker URL through the proxy (what the threads use). */
  readonly proxiedUrl: string;
  /** Broker URL direct (the traffic source). */
  readonly directUrl: string;
  /** The fault being measured. */
  readonly fault: FaultPlan;
  /** Optional condition before the fault (e.g. a latency toxic), held for `preFaultMs`. */
  readonly preFault?: FaultPlan;
  /** @default 1000 */
  readonly preFaultMs?: number;
  /** The client's drain deadline. @default 1000 */
  readonly drainTimeoutMs?: number;
  /**
   * Background traffic interval. Light enough not to load two cores (at 50 threads a 5 ms
   * fanout is 10k deliveries/s), frequent enough for a 100 ms drain deadline.
   * @default max(5, threads / 2)
   */
  readonly trafficIntervalMs?: number;
  /** Traffic before the fault, so every connection is busy. @default 300 */
  readonly warmupMs?: number;
  /** How long to wait for every thread to detect. @default 5000 */
  readonly detectionBoundMs?: number;
  /** How long to wait for every thread to recover after removal. @default 15000 */
  readonly recoveryBoundMs?: number;
}

export interface ThreadRecord {
  readonly threadIndex: number;
  readonly readyNs: bigint | null;
  readonly detectedNs: bigint | null;
  readonly detectionCause: (typeof CAUSE_NAMES)[number];
  readonly recoveryStartedNs: bigint | null;
  readonly recoveredNs: bigint | null;
  /** Local port of the connection the fault hit (matches the proxy's record of the client). */
  readonly faultedLocalPort: number;
  readonly reconnectAttempts: number;
  readonly deliveries: number;
  readonly falseAlarms: number;
  readonly error?: string;
}

export interface RecoveryOutcome {
  readonly threads: readonly ThreadRecord[];
  /** The server behind the proxy API (embedded, or Toxiproxy with its version). */
  readonly proxyServer: ProxyServerIdentity;
  /** Toxic type(s) of the fault, pre-fault first (`latency+reset_peer`). */
  readonly toxic: string;
  readonly preFault: Bracket | null;
  /** Around the API call(s) that made the fault act (the add, or the toxicity raise of an armed one). */
  readonly injection: Bracket;
  readonly injectionMode: ActiveToxic['injection'];
  readonly removal: Removal | null;
  /** The proxy's fault timeline since the injection; null for a proxy without one (real Toxiproxy). */
  readonly faultEvents: readonly FaultEvent[] | null;
  readonly allDetected: boolean;
  readonly allRecovered: boolean;
  readonly trafficIntervalMs: number;
  readonly drainTimeoutMs: number;
  /** Cores this process may run on (`os.availableParallelism()`), which the threads share with the broker and the proxy. */
  readonly cpuCount: number;
  /** The monotonic clock beside the wall clock, read right after the run (null when not taken). */
  readonly clockAnchor: ClockAnchor | null;
}

const optionalNs = (ns: bigint): bigint | null => (ns === 0n ? null : ns);
/** How long past the warm-up a thread that has seen no traffic yet is waited for. */
const WARMUP_GRACE_MS = 10_000;

export async function runRecoveryScenario(options: RecoveryScenarioOptions): Promise<RecoveryOutcome> {
  const threads = options.threads;
  const trafficIntervalMs = options.trafficIntervalMs ?? Math.max(5, Math.round(threads / 2));
  const drainTimeoutMs = options.drainTimeoutMs ?? 1000;
  const detectionBoundMs = options.detectionBoundMs ?? 5000;
  const recoveryBoundMs = options.recoveryBoundMs ?? 15000;
  const phaseBoundMs = detectionBoundMs + recoveryBoundMs + 30_000;
  const board = new ThreadBoard(threads);
  const exchange = `amqp-bench.recovery.${randomUUID()}`;
  const queues = Array.from({ length: threads }, (_, thread) => `${exchange}.${thread}`);
  const proxyServer = await options.proxy.client.identify();
  // Also what re-creating the entry needs, should a removal get no answer (resetProxyEntry).
  await options.proxy.client.getProxy(options.proxy.name);
  const toxics: { remove(): Promise<Removal> }[] = [];
  const traffic = await startFanoutTraffic(options.directUrl, exchange, trafficIntervalMs, queues);
  const pool = startThreadPool(path.join(__dirname, 'consumerThread.ts'), threads);
  let tasks: Promise<RecoveryThreadReport>[] = [];
  try {
    // Armed before any thread connects, so that every link starts with them in its chain.
    const armedPreFault = options.preFault && 'arm' in options.preFault ? await options.preFault.arm(options.proxy) : undefined;
    if (armedPreFault) toxics.push(armedPreFault);
    const armedFault = 'arm' in options.fault ? await options.fault.arm(options.proxy) : undefined;
    if (armedFault) toxics.push(armedFault);
    tasks = Array.from({ length: threads }, (_, threadIndex) =>
      pool.run<RecoveryTask, RecoveryThreadReport>({
        threadIndex,
        threads,
        buffer: board.buffer,
        client: options.client,
        url: options.proxiedUrl,
        queue: queues[threadIndex]!,
        drainTimeoutMs,
        phaseBoundMs,
        roundTripTimeoutMs: 5000,
      }),
    );
    // Thread start-up on two cores takes a while for 50 threads; bound it generously.
    if (!(await board.waitFor(Control.READY, threads, 30_000 + threads * 500))) {
      throw new WorkerError(`only ${board.flag(Control.READY)} of ${threads} threads connected within the start-up bound`);
    }
    const failedAtStart = await failedThreads(board, tasks);
    if (failedAtStart.length > 0) throw new WorkerError(`threads failed to connect through the proxy: ${failedAtStart.join('; ')}`);

    board.raise(Control.GO);
    await sleep(options.warmupMs ?? 300);
    // On a loaded machine a thread may not have run yet: wait for it (bounded) rather than fail.
    const silentThreads = () => range(threads).filter((thread) => board.int(thread, IntSlot.DELIVERIES) === 0);
    for (const warmDeadline = Date.now() + WARMUP_GRACE_MS; silentThreads().length > 0 && Date.now() < warmDeadline;) await sleep(20);
    const silent = silentThreads();
    if (silent.length > 0)
      throw new WorkerError(
        `no traffic reached threads ${silent.join(', ')} during warm-up (${options.warmupMs ?? 300} ms + ${WARMUP_GRACE_MS} ms grace)`,
      );

    let preFault: Bracket | null = null;
    let toxicTypes: string[] = [];
    if (options.preFault) {
      const pre = armedPreFault ? await armedPreFault.fire() : await injectNow(options.preFault, options.proxy);
      if (!armedPreFault) toxics.push(pre);
      preFault = pre.injected;
      toxicTypes = [pre.type];
      await sleep(options.preFaultMs ?? 1000);
    }

    board.raise(Control.INJECTED);
    const toxic = armedFault ? await armedFault.fire() : await injectNow(options.fault, options.proxy);
    if (!armedFault) toxics.push(toxic);
    toxicTypes = [...toxicTypes, toxic.type];
    // The fault acts on the next data: send it to every connection at once, now.
    traffic.pulse();
    const allDetected = await board.waitFor(Control.DETECTED, threads, detectionBoundMs);

    // Remove every toxic of the scenario, then tell the threads (they recover from here).
    const removalStartedNs = nowNs();
    const methods = (await Promise.all(toxics.map((active) => active.remove()))).map((done) => done.method);
    const removal: Removal = { startedNs: removalStartedNs, completedNs: nowNs(), method: strongestRemoval(methods) };
    board.raise(Control.TOXIC_REMOVED);

    const allRecovered = await waitForRecoveries(board, threads, allDetected ? recoveryBoundMs : Math.min(recoveryBoundMs, 5000));
    const faultEvents = await options.proxy.client.events(options.proxy.name, toxic.injected.startedNs).catch(() => null);

    board.raise(Control.STOP);
    const settled = await settleWithin(tasks, 10_000);
    const reports = settled.map((result, threadIndex): RecoveryThreadReport => {
      if (result.status === 'fulfilled') return result.value;
      if (result.status === 'rejected') return { threadIndex, error: String(result.reason), falseAlarms: 0 };
      return { threadIndex, error: 'thread did not finish within 10 s of the stop signal', falseAlarms: 0 };
    });
    return {
      threads: reports.map((report) => threadRecord(board, report)),
      proxyServer,
      toxic: toxicTypes.join('+'),
      preFault,
      injection: toxic.injected,
      injectionMode: toxic.injection,
      removal,
      faultEvents,
      allDetected,
      allRecovered,
      trafficIntervalMs,
      drainTimeoutMs,
      cpuCount: os.availableParallelism(),
      clockAnchor: clockAnchor(),
    };
  } finally {
    board.raise(Control.STOP);
    board.raise(Control.GO);
    board.raise(Control.TOXIC_REMOVED);
    await Promise.all(toxics.map((active) => active.remove().catch(() => undefined)));
    await settleWithin(tasks, 10_000);
    await traffic.stop();
    await pool.destroy();
  }
}

/** Adds a fault that was not armed. */
function injectNow(plan: FaultPlan, proxy: ProxyTarget): Promise<ActiveToxic> {
  if (!('inject' in plan)) throw new Error('an armed fault is fired, not injected');
  return plan.inject(proxy);
}

function range(count: number): number[] {
  return Array.from({ length: count }, (_, index) => index);
}

async function failedThreads(board: ThreadBoard, tasks: Promise<RecoveryThreadReport>[]): Promise<string[]> {
  const failed = range(board.threads).filter((thread) => board.int(thread, IntSlot.STATE) === ThreadState.FAILED);
  if (failed.length === 0) return [];
  // A failed thread has already returned its report: collect the reasons.
  const settled = await settleWithin(
    failed.map((thread) => tasks[thread]!),
    5000,
  );
  return settled.map((result, index) => `thread ${failed[index]}: ${result.status === 'fulfilled' ? result.value.error : result.status}`);
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
    detectionCause: CAUSE_NAMES[board.int(thread, IntSlot.CAUSE)] ?? 'none',
    recoveryStartedNs: optionalNs(board.time(thread, TimeSlot.RECOVERY_STARTED)),
    recoveredNs: optionalNs(board.time(thread, TimeSlot.RECOVERED)),
    faultedLocalPort: board.int(thread, IntSlot.LOCAL_PORT),
    reconnectAttempts: board.int(thread, IntSlot.ATTEMPTS),
    deliveries: board.int(thread, IntSlot.DELIVERIES),
    falseAlarms: report.falseAlarms,
    ...(report.error ? { error: report.error } : {}),
  };
}
