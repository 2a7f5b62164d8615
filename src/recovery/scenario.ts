/**
 * Runs one recovery scenario end to end and returns what every thread recorded:
 * faults prepared (armed toxics added at toxicity 0) -> threads connect through the fault proxy
 * -> barrier -> traffic flows -> (optional pre-fault, e.g. latency) -> fault injected through the
 * fault model (src/faults) -> wait (bounded) until every thread detected -> faults removed and
 * threads told so -> wait (bounded) until every thread proved recovery with a round trip -> stop.
 * Whatever happens, faults are removed, traffic stopped and the pool destroyed.
 *
 * Why prepare: real Toxiproxy closes a link with a true RST only when a reset_peer toxic was in
 * its chain when the link started; a reset_peer added to open links closes them with a FIN.
 */
import os from 'node:os';
import { randomUUID } from 'node:crypto';
import type { ClientSpec } from '../client/api';
import { sharedBrokerActions } from '../broker/actions';
import type { FaultEvent, ProxyServerIdentity, ProxyTarget } from '../faults';
import { createFault, type FaultSpec } from '../faults/kinds/registry';
import type { Fault, FaultRemoval, Injection } from '../faults/model';
import { clockAnchor, nowNs, sleep, type Bracket, type ClockAnchor } from '../measure/clock';
import type { RecoveryConsumers, StartConsumers, ThreadRecord } from './consumers';
import { startHarnessConsumers } from './harnessConsumers';
import { startFanoutTraffic, type TrafficSource } from './traffic';

export type { ThreadRecord } from './consumers';

export interface RecoveryScenarioOptions {
  readonly threads: number;
  /** The client under test (its library and settings profile). */
  readonly client: ClientSpec;
  readonly proxy: ProxyTarget;
  /** Broker URL through the proxy (what the threads use). */
  readonly proxiedUrl: string;
  /** Broker URL direct (the traffic source). */
  readonly directUrl: string;
  /** The fault being measured (a kind of the fault model, src/faults/kinds/). */
  readonly fault: FaultSpec;
  /** Optional condition before the fault (e.g. latency), held for `preFaultMs`. */
  readonly preFault?: FaultSpec;
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
  /** Whose consumer threads: the harness's (the client under test) or the bare floor's. @default startHarnessConsumers */
  readonly consumers?: StartConsumers;
}

export interface RecoveryOutcome {
  readonly threads: readonly ThreadRecord[];
  /** The server behind the proxy API (embedded, or Toxiproxy with its version). */
  readonly proxyServer: ProxyServerIdentity;
  /** The fault measured (its definition, target and options). */
  readonly fault: Fault;
  /** The condition before it, if any. */
  readonly preFault: { readonly fault: Fault; readonly injected: Bracket } | null;
  /** Around the call(s) that made the fault act. */
  readonly injection: Injection;
  /** The removal of every fault of the scenario (the strongest method any needed). */
  readonly removal: FaultRemoval | null;
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

export async function runRecoveryScenario(options: RecoveryScenarioOptions): Promise<RecoveryOutcome> {
  const threads = options.threads;
  const trafficIntervalMs = options.trafficIntervalMs ?? Math.max(5, Math.round(threads / 2));
  const drainTimeoutMs = options.drainTimeoutMs ?? 1000;
  const bounds = { detectionMs: options.detectionBoundMs ?? 5000, recoveryMs: options.recoveryBoundMs ?? 15000 };
  const exchange = `amqp-bench.recovery.${randomUUID()}`;
  const queues = Array.from({ length: threads }, (_, thread) => `${exchange}.${thread}`);
  const proxyServer = await options.proxy.client.identify();
  // Also what re-creating the entry needs, should a removal get no answer (resetProxyEntry).
  await options.proxy.client.getProxy(options.proxy.name);
  // What a fault may act on: the proxy entry, the threads' own connections (by name), their queues.
  const broker = sharedBrokerActions(options.directUrl);
  const context = { proxy: options.proxy, broker, connectionNamePrefix: exchange, exchange };
  const preFault = options.preFault ? createFault(options.preFault, context) : undefined;
  const fault = createFault(options.fault, context);
  const faults = [...(preFault ? [preFault] : []), fault];
  const traffic = await startFanoutTraffic(options.directUrl, exchange, trafficIntervalMs, queues);
  let consumers: ReturnType<StartConsumers> | undefined;
  try {
    // Prepared before any thread connects, in order, so that every link starts with them in its chain.
    for (const each of faults) await each.prepare();
    consumers = (options.consumers ?? startHarnessConsumers)({
      threads,
      client: options.client,
      url: options.proxiedUrl,
      queues,
      connectionNamePrefix: exchange,
      drainTimeoutMs,
      phaseBoundMs: bounds.detectionMs + bounds.recoveryMs + 30_000,
    });
    await consumers.waitReady();
    await consumers.warmUp(options.warmupMs ?? 300);
    const phases = await faultPhases(consumers, { fault, preFault, preFaultMs: options.preFaultMs ?? 1000 }, traffic, bounds);
    const faultEvents = await options.proxy.client.events(options.proxy.name, phases.injection.bracket.startedNs).catch(() => null);
    const records = await consumers.finish();
    return {
      ...phases,
      threads: records,
      proxyServer,
      fault,
      faultEvents,
      trafficIntervalMs,
      drainTimeoutMs,
      cpuCount: os.availableParallelism(),
      clockAnchor: clockAnchor(),
    };
  } finally {
    await Promise.all(faults.map((each) => each.remove().catch(() => undefined)));
    await consumers?.close();
    await traffic.stop();
    await broker.close();
  }
}

/**
 * The measured part, on threads that are warm: (pre-fault held) -> fault injected (and, for a
 * fault that acts on the next data, one pulse to every connection) -> bounded wait for every
 * detection -> every fault removed, then the threads told -> bounded wait for every recovery.
 */
async function faultPhases(
  consumers: RecoveryConsumers,
  scenario: { readonly fault: Fault; readonly preFault: Fault | undefined; readonly preFaultMs: number },
  traffic: TrafficSource,
  bounds: { readonly detectionMs: number; readonly recoveryMs: number },
): Promise<Pick<RecoveryOutcome, 'preFault' | 'injection' | 'removal' | 'allDetected' | 'allRecovered'>> {
  const { fault, preFault } = scenario;
  let preFaulted: RecoveryOutcome['preFault'] = null;
  if (preFault) {
    preFaulted = { fault: preFault, injected: (await preFault.inject()).bracket };
    await sleep(scenario.preFaultMs);
  }

  const injection = await fault.inject();
  // Raised once the fault is in place, not before: a thread's silence counts as the fault only
  // from here. Raised before, a stall of a loaded machine while the proxy was still being told
  // (over 100 ms at a load of 6 on two cores) passed for a detection earlier than the fault.
  consumers.markInjected();
  // A fault that acts on the next data: send it to every connection at once, now.
  if (fault.definition.actsOnData) traffic.pulse();
  const allDetected = await consumers.waitDetected(bounds.detectionMs);

  // Remove every fault of the scenario, then tell the threads (they recover from here).
  const removalStartedNs = nowNs();
  const removals = await Promise.all([...(preFault ? [preFault] : []), fault].map((each) => each.remove()));
  const removal: FaultRemoval = {
    startedNs: removalStartedNs,
    completedNs: nowNs(),
    method: strongestFaultRemoval(removals.map((done) => done.method)),
    problems: removals.flatMap((done) => done.problems),
  };
  consumers.markRemoved();

  const allRecovered = await consumers.waitRecovered(allDetected ? bounds.recoveryMs : Math.min(bounds.recoveryMs, 5000));
  return { preFault: preFaulted, injection, removal, allDetected, allRecovered };
}

/** Of several removals, the method that says the most about what happened. */
function strongestFaultRemoval(methods: readonly FaultRemoval['method'][]): FaultRemoval['method'] {
  for (const method of ['entry_recreated', 'passthrough_then_deleted', 'deleted', 'undone'] as const)
    if (methods.includes(method)) return method;
  return 'nothing_to_undo';
}
