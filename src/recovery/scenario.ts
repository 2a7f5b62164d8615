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
import { randomUUID } from 'node:crypto';
import type { ClientSpec } from '../client/api';
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
import type { StartConsumers, ThreadRecord } from './consumers';
import { startHarnessConsumers } from './harnessConsumers';
import { startFanoutTraffic } from './traffic';

export type { ThreadRecord } from './consumers';

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
  /** Whose consumer threads: the harness's (the client under test) or the bare floor's. @default startHarnessConsumers */
  readonly consumers?: StartConsumers;
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

export async function runRecoveryScenario(options: RecoveryScenarioOptions): Promise<RecoveryOutcome> {
  const threads = options.threads;
  const trafficIntervalMs = options.trafficIntervalMs ?? Math.max(5, Math.round(threads / 2));
  const drainTimeoutMs = options.drainTimeoutMs ?? 1000;
  const detectionBoundMs = options.detectionBoundMs ?? 5000;
  const recoveryBoundMs = options.recoveryBoundMs ?? 15000;
  const phaseBoundMs = detectionBoundMs + recoveryBoundMs + 30_000;
  const exchange = `amqp-bench.recovery.${randomUUID()}`;
  const queues = Array.from({ length: threads }, (_, thread) => `${exchange}.${thread}`);
  const proxyServer = await options.proxy.client.identify();
  // Also what re-creating the entry needs, should a removal get no answer (resetProxyEntry).
  await options.proxy.client.getProxy(options.proxy.name);
  const toxics: { remove(): Promise<Removal> }[] = [];
  const traffic = await startFanoutTraffic(options.directUrl, exchange, trafficIntervalMs, queues);
  let consumers: ReturnType<StartConsumers> | undefined;
  try {
    // Armed before any thread connects, so that every link starts with them in its chain.
    const armedPreFault = options.preFault && 'arm' in options.preFault ? await options.preFault.arm(options.proxy) : undefined;
    if (armedPreFault) toxics.push(armedPreFault);
    const armedFault = 'arm' in options.fault ? await options.fault.arm(options.proxy) : undefined;
    if (armedFault) toxics.push(armedFault);
    consumers = (options.consumers ?? startHarnessConsumers)({
      threads,
      client: options.client,
      url: options.proxiedUrl,
      queues,
      drainTimeoutMs,
      phaseBoundMs,
    });
    await consumers.waitReady();
    await consumers.warmUp(options.warmupMs ?? 300);

    let preFault: Bracket | null = null;
    let toxicTypes: string[] = [];
    if (options.preFault) {
      const pre = armedPreFault ? await armedPreFault.fire() : await injectNow(options.preFault, options.proxy);
      if (!armedPreFault) toxics.push(pre);
      preFault = pre.injected;
      toxicTypes = [pre.type];
      await sleep(options.preFaultMs ?? 1000);
    }

    consumers.markInjected();
    const toxic = armedFault ? await armedFault.fire() : await injectNow(options.fault, options.proxy);
    if (!armedFault) toxics.push(toxic);
    toxicTypes = [...toxicTypes, toxic.type];
    // The fault acts on the next data: send it to every connection at once, now.
    traffic.pulse();
    const allDetected = await consumers.waitDetected(detectionBoundMs);

    // Remove every toxic of the scenario, then tell the threads (they recover from here).
    const removalStartedNs = nowNs();
    const methods = (await Promise.all(toxics.map((active) => active.remove()))).map((done) => done.method);
    const removal: Removal = { startedNs: removalStartedNs, completedNs: nowNs(), method: strongestRemoval(methods) };
    consumers.markRemoved();

    const allRecovered = await consumers.waitRecovered(allDetected ? recoveryBoundMs : Math.min(recoveryBoundMs, 5000));
    const faultEvents = await options.proxy.client.events(options.proxy.name, toxic.injected.startedNs).catch(() => null);

    const records = await consumers.finish();
    return {
      threads: records,
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
    await Promise.all(toxics.map((active) => active.remove().catch(() => undefined)));
    await consumers?.close();
    await traffic.stop();
  }
}

/** Adds a fault that was not armed. */
function injectNow(plan: FaultPlan, proxy: ProxyTarget): Promise<ActiveToxic> {
  if (!('inject' in plan)) throw new Error('an armed fault is fired, not injected');
  return plan.inject(proxy);
}
