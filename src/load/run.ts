/**
 * One load run, from set-up to the last socket closed: queues (the harness's own admin
 * connection), the fault proxy entry, the fault schedule, the clients (through the adapter
 * interface), the pacing loop, the sampler and the metrics endpoint. Everything opened is closed
 * in `finally`, on an error and on an abort (Ctrl-C) too.
 */
import { adapterOf, clientInfo, connectClient } from '../client/registry';
import type { AckSupport, ClientConnection, Consumer } from '../client/api';
import { clientLabel } from '../client/api';
import { parseHostPort, proxiedAmqpUrl, type BenchConfig } from '../config';
import { ConfigError, describeError } from '../errors';
import { sharedBrokerActions, type ClosableBrokerActions } from '../broker/actions';
import { QueueAdmin } from '../broker/queueAdmin';
import { resolveClusterSettings } from '../broker/nodes/settings';
import { LOAD_NODE, soloProxyEntry, startSoloNode, type SoloNode } from '../broker/nodes/soloNode';
import type { FaultContext } from '../faults/model';
import { ensureProxyApi, type ProxyApiHandle } from '../faults/proxyProcess';
import { ensureProxyEntry } from '../faults/proxyEntry';
import type { ProxyTarget } from '../faults/toxics';
import { faultDefinition } from '../faults/kinds/registry';
import { nowNs, pollUntil, sleep } from '../measure/clock';
import { prepareFaultSchedule, type FaultScheduleRun, type FaultWindowRecord } from './faultSchedule';
import { startMetricsEndpoint, type MetricsEndpoint } from './metricsEndpoint';
import { LoadRecorder } from './recorder';
import { scheduleOf } from './schedule';
import { startSampler, type TimeSeriesPoint, type TimeSeriesSampler } from './timeseries';
import { startConsumer, startPublishing, superviseConnection, type ProducerPlan, type Publishing } from './traffic';
import { queueName, scheduleEndMs, type LoadWorkload } from './workload';
import { buildLoadResult, type ConnectionFaultRecord, type LoadResult } from './result';

/** The proxy entry in front of the run's own node. */
const OWN_NODE_ENTRY = 'bench-load-node';

export interface LoadRunOptions {
  readonly workload: LoadWorkload;
  readonly config: Pick<BenchConfig, 'amqpUrl' | 'proxyApiUrl' | 'embeddedProxy' | 'proxyName' | 'proxyListen' | 'proxyUpstream'>;
  /** Through the fault proxy (needed for proxy faults). @default true */
  readonly viaProxy: boolean;
  /** Time-series interval. @default 1000 */
  readonly intervalMs: number;
  /** Serve live metrics on this port (0 = a free one); undefined = no endpoint. */
  readonly metricsPort?: number;
  /** How long a publisher still behind schedule at the end keeps sending. @default 10000 */
  readonly catchUpMs: number;
  /** How long to wait for consumers to drain what was published. @default 15000 */
  readonly drainMs: number;
  readonly signal?: AbortSignal;
  readonly log: (line: string) => void;
  /** Each time-series point as it is taken (progress lines). */
  readonly onPoint?: (point: TimeSeriesPoint, recorder: LoadRecorder) => void;
  /**
   * Runs after the measured part and the drain, before anything is closed, with the URL the
   * clients used (`--compare-bare` runs the bare script there, under the same conditions).
   */
  readonly alongside?: (url: string, recorder: LoadRecorder) => Promise<void>;
  /** Called once the metrics endpoint listens. */
  readonly onMetrics?: (url: string) => void;
}

/** What the adapter interface lets a load run do: the acks it has. @throws ConfigError */
export function checkSupported(workload: LoadWorkload): void {
  let acks: AckSupport | undefined;
  try {
    acks = adapterOf({ name: workload.client.name }).acks;
  } catch (error) {
    throw new ConfigError('--client', `a client with an adapter (${describeError(error).replace(/^.*known: /, '')})`, workload.client.name);
  }
  if (workload.ack.kind === 'multiple' && acks?.multiple !== true)
    throw new ConfigError(
      '--ack',
      `auto, manual${acks?.nack ? ' or nack:FRACTION' : ''} for ${workload.client.name}: its adapter has no multiple ack (the library settles one delivery at a time)`,
      `multiple:${workload.ack.every}`,
    );
  if (workload.ack.kind === 'nack' && acks?.nack !== true)
    throw new ConfigError('--ack', `auto or manual for ${workload.client.name}: its adapter has no nack`, `nack:${workload.ack.fraction}`);
  // Acking every N-th delivery with prefetch below N would stall: the broker stops at the prefetch.
  if (workload.ack.kind === 'multiple' && workload.prefetch > 0 && workload.prefetch < workload.ack.every)
    throw new ConfigError(
      '--ack/--prefetch',
      `a prefetch of at least ${workload.ack.every} (or 0) with multiple:${workload.ack.every}`,
      `prefetch ${workload.prefetch}`,
    );
  if (workload.queueType === 'stream' && (workload.ack.kind === 'auto' || workload.prefetch === 0))
    throw new ConfigError(
      '--ack/--prefetch',
      'manual ack with a prefetch > 0 for a stream queue (RabbitMQ requires both)',
      `${workload.ack.kind}, prefetch ${workload.prefetch}`,
    );
}

/** Runs `options.workload`; resolves with its result (also when aborted: then `aborted` is true). */
export async function runLoad(options: LoadRunOptions): Promise<LoadResult> {
  const { workload, log } = options;
  checkSupported(workload);
  const needsProxy = workload.faults.some((fault) => faultDefinition(fault.spec.kind).layer === 'network');
  if (needsProxy && !options.viaProxy)
    throw new ConfigError('--no-proxy', 'left out when a network fault is scheduled (it is injected in the proxy)', 'given');
  const onCluster = workload.faults.find((fault) => faultDefinition(fault.spec.kind).broker === 'cluster');
  if (onCluster)
    throw new ConfigError('--fault', `not ${onCluster.spec.kind} in a load run (it needs the benchmark cluster)`, onCluster.spec.kind);
  // A fault that affects every client of its node (an alarm, a node fault) never acts on the shared
  // broker: always on a node this run starts for it (its own name, ports and data), reached through
  // a proxy entry of its own.
  const ownNode = workload.faults.some((fault) => faultDefinition(fault.spec.kind).broker === 'own_node');
  if (ownNode && !options.viaProxy)
    throw new ConfigError(
      '--no-proxy',
      'left out when an alarm or a node fault is scheduled (the run reaches its own node through the proxy)',
      'given',
    );
  const prefix = `bench-load-${process.pid}-${Date.now().toString(36)}`;
  const queues = Array.from({ length: workload.queues }, (_, index) => queueName(workload.queuePattern, index));
  const connections: ClientConnection[] = [];
  const consumers: Consumer[] = [];
  const supervisors: ReturnType<typeof superviseConnection>[] = [];
  let proxyApi: ProxyApiHandle | undefined;
  let admin: QueueAdmin | undefined;
  let broker: ClosableBrokerActions | undefined;
  let faults: FaultScheduleRun | undefined;
  let sampler: TimeSeriesSampler | undefined;
  let metrics: MetricsEndpoint | undefined;
  let publishing: Publishing | undefined;
  let proxy: ProxyTarget | undefined;
  let solo: SoloNode | undefined;
  const onAbort = () => publishing?.stop();
  options.signal?.addEventListener('abort', onAbort);
  const aborted = () => options.signal?.aborted === true;
  try {
    let url = options.config.amqpUrl;
    let brokerUrl = options.config.amqpUrl;
    if (ownNode) {
      solo = await startSoloNode(resolveClusterSettings(), log, LOAD_NODE);
      brokerUrl = solo.url;
      proxyApi = await ensureProxyApi(options.config, log);
      ({ proxy, proxiedUrl: url } = await soloProxyEntry(solo, proxyApi.client, OWN_NODE_ENTRY));
    } else if (options.viaProxy) {
      proxyApi = await ensureProxyApi(options.config, log);
      const entry = await ensureProxyEntry(proxyApi.client, options.config, log);
      proxy = entry.target;
      url = proxiedAmqpUrl({ amqpUrl: options.config.amqpUrl, proxyListen: parseHostPort('proxy listen', entry.listen) });
    }
    admin = await QueueAdmin.open(brokerUrl);
    const durable = workload.queueType !== 'classic';
    for (const queue of queues) await admin.declareFresh(queue, { durable, arguments: { 'x-queue-type': workload.queueType } });
    const context: FaultContext = {
      proxy,
      connectionNamePrefix: prefix,
      queues,
      exchange: '',
      log,
      ...(solo ? { node: solo.actions(proxy) } : {}),
    };
    if (workload.faults.some((fault) => faultDefinition(fault.spec.kind).layer === 'broker')) {
      const topology = {
        exchanges: [],
        queues: queues.map((name) => ({ name, durable, arguments: { 'x-queue-type': workload.queueType }, bindings: [] })),
      };
      broker = solo ? solo.brokerActions(topology) : sharedBrokerActions(options.config.amqpUrl, topology);
    }
    faults = await prepareFaultSchedule(workload.faults, { ...context, ...(broker ? { broker } : {}) }, log);

    const spec = { name: workload.client.name, profile: workload.client.profile };
    const connect = async (role: string) => {
      const connection = await connectClient(spec, { urls: [url], connectionName: `${prefix}-${role}`, startBoundMs: 10_000 });
      connections.push(connection);
      supervisors.push(superviseConnection(connection, log));
      return connection;
    };
    const producerPlans: ProducerPlan[] = [];
    for (let index = 0; index < workload.producers; index += 1) {
      const connection = await connect(`p${index}`);
      const publisher = await connection.publisher({ confirms: workload.confirmWindow > 0 });
      producerPlans.push({ connection, publisher, queue: queues[index % queues.length]! });
    }
    const consumerConnections: ClientConnection[] = [];
    for (let index = 0; index < workload.consumers; index += 1) consumerConnections.push(await connect(`c${index}`));

    const startNs = nowNs() + 20_000_000n; // a moment for the consumers to start
    const recorder = new LoadRecorder(startNs, startNs + BigInt(workload.warmupMs) * 1_000_000n);
    for (const [index, connection] of consumerConnections.entries())
      consumers.push(
        await startConsumer(connection, queues[index % queues.length]!, { ack: workload.ack, prefetch: workload.prefetch }, recorder),
      );
    const schedule = scheduleOf(workload.rate);
    const endMs = scheduleEndMs(workload);
    const scheduleEndNs = startNs + BigInt(endMs) * 1_000_000n;
    const totalMessages = schedule.paced ? schedule.dueBy(endMs * 1e6) : Number.POSITIVE_INFINITY;
    const connectionsUp = () => connections.filter((connection) => connection.state === 'up').length;
    const outstanding = () => publishing?.outstanding() ?? 0;
    const schedules = faults;
    while (nowNs() < startNs) await sleep(1);
    let last: TimeSeriesPoint | undefined;
    sampler = startSampler({
      recorder,
      intervalMs: options.intervalMs,
      outstandingConfirms: outstanding,
      connectionsUp,
      faultState: () => schedules.state(),
      nowNs,
      onPoint: (point) => {
        last = point;
        options.onPoint?.(point, recorder);
      },
    });
    if (options.metricsPort !== undefined) {
      metrics = await startMetricsEndpoint(options.metricsPort, {
        recorder,
        outstandingConfirms: outstanding,
        connectionsUp,
        faultState: () => schedules.state(),
        lastPoint: () => last,
      });
      options.onMetrics?.(metrics.url);
    }
    faults.start(startNs);
    publishing = startPublishing({
      producers: producerPlans,
      schedule,
      size: workload.size,
      confirmWindow: workload.confirmWindow,
      recorder,
      totalMessages,
      scheduleEndNs,
      giveUpNs: scheduleEndNs + BigInt(options.catchUpMs) * 1_000_000n,
    });
    if (aborted()) publishing.stop();
    const published = await publishing.done;
    // As fast as possible: the rate counts until the broker has taken everything (one round
    // trip behind the last message on each channel), as the bare script's does.
    if (!schedule.paced && !aborted()) await Promise.allSettled(producerPlans.map((plan) => plan.publisher.flush(10_000)));
    const publishingEndedNs = nowNs();
    // Confirms still due, then what the consumers have yet to take (both bounded).
    await pollUntil(() => publishing!.outstanding() === 0 || aborted(), 10_000, 20);
    if (workload.consumers > 0 && !aborted()) await drained(recorder, options.drainMs, aborted);
    const endedNs = nowNs();
    sampler.stop();
    const windows: FaultWindowRecord[] = await faults.stop(() =>
      proxy ? proxy.client.events(proxy.name, startNs) : Promise.resolve(null),
    );
    if (options.alongside && !aborted()) await options.alongside(url, recorder);
    const connectionFaults: ConnectionFaultRecord[] = supervisors.flatMap((supervisor, index) =>
      supervisor.faults.map((fault) => ({
        connection: index < workload.producers ? `p${index}` : `c${index - workload.producers}`,
        kind: fault.kind,
        detectedAtMs: msFrom(startNs, fault.detectedNs),
        backAtMs: fault.backNs === null ? null : msFrom(startNs, fault.backNs),
      })),
    );
    return buildLoadResult({
      workload,
      client: { label: `${clientLabel(spec)} via the client adapter interface`, info: clientInfo(spec) },
      viaProxy: options.viaProxy,
      recorder,
      schedulePaced: schedule.paced,
      totalMessages,
      intendedMeasured: schedule.paced ? totalMessages - schedule.dueBy(workload.warmupMs * 1e6) : null,
      unsent: published.unsent,
      measuredMs: schedule.paced ? workload.durationMs : msFrom(startNs, publishingEndedNs) - workload.warmupMs,
      publishingEndedMs: msFrom(startNs, publishingEndedNs),
      endedMs: msFrom(startNs, endedNs),
      points: sampler.points,
      faults: windows,
      connectionFaults,
      aborted: aborted(),
      intervalMs: options.intervalMs,
    });
  } finally {
    options.signal?.removeEventListener('abort', onAbort);
    publishing?.stop();
    sampler?.stop();
    for (const supervisor of supervisors) supervisor.stop();
    await faults?.stop(async () => null).catch(() => undefined);
    await Promise.allSettled(consumers.map((consumer) => consumer.cancel()));
    await Promise.allSettled(connections.map((connection) => connection.close()));
    await metrics?.close();
    await broker?.close().catch(() => undefined);
    await admin?.close().catch((error: unknown) => log(`load: queues not deleted: ${describeError(error)}`));
    if (solo) {
      await proxyApi?.client.deleteProxy(OWN_NODE_ENTRY).catch(() => undefined);
      await solo.stop().catch((error: unknown) => log(`load: its own node did not stop: ${describeError(error)}`));
    }
    await proxyApi?.stop();
  }
}

function msFrom(startNs: bigint, ns: bigint): number {
  return Math.round(Number(ns - startNs) / 1000) / 1000;
}

/** Waits until every message published was consumed, or nothing new arrived for 3 s, within `boundMs`. */
async function drained(recorder: LoadRecorder, boundMs: number, aborted: () => boolean): Promise<void> {
  const deadline = Date.now() + boundMs;
  let lastCount = recorder.totals.consumed;
  let lastChange = Date.now();
  while (Date.now() < deadline && !aborted()) {
    if (recorder.consumedUnique >= recorder.totals.published) return;
    if (recorder.totals.consumed !== lastCount) {
      lastCount = recorder.totals.consumed;
      lastChange = Date.now();
    } else if (Date.now() - lastChange > 3000) return;
    await sleep(20);
  }
}
