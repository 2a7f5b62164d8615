/**
 * What a load run stands on before its clients connect: where they connect (the broker directly,
 * the fault proxy's entry, or a node of the run's own behind a proxy entry of its own), the
 * queues (the harness's own admin connection), and the fault schedule, prepared. `close()` undoes
 * all of it, in reverse, and is safe after a partial set-up.
 */
import { parseHostPort, proxiedAmqpUrl, type BenchConfig } from '../config';
import { describeError } from '../errors';
import { sharedBrokerActions, type ClosableBrokerActions } from '../broker/actions';
import { QueueAdmin } from '../broker/queueAdmin';
import { resolveClusterSettings } from '../broker/nodes/settings';
import { LOAD_NODE, soloProxyEntry, startSoloNode, type SoloNode } from '../broker/nodes/soloNode';
import type { FaultContext } from '../faults/model';
import { ensureProxyApi, type ProxyApiHandle } from '../faults/proxyProcess';
import { openRunProxy, type RunProxy } from '../faults/runProxy';
import type { ProxyTarget } from '../faults/toxics';
import { faultDefinition } from '../faults/kinds/registry';
import type { FaultPlacement } from './checks';
import { prepareFaultSchedule, type FaultScheduleRun } from './faultSchedule';
import type { LoadWorkload } from './workload';

/** The proxy entry in front of the run's own node. */
const OWN_NODE_ENTRY = 'bench-load-node';

export type LoadSetupConfig = Pick<
  BenchConfig,
  'amqpUrl' | 'proxyApiUrl' | 'embeddedProxy' | 'proxyScope' | 'proxyName' | 'proxyListen' | 'proxyUpstream'
>;

/**
 * `fresh`: the run owns its queues (deleted and declared again before, deleted after).
 * `shared`: declared when missing and left alone after (an agent of a fleet: whoever runs the
 * fleet owns them).
 */
export type QueueOwnership = 'fresh' | 'shared';

export interface LoadSetupOptions {
  readonly workload: LoadWorkload;
  readonly config: LoadSetupConfig;
  readonly viaProxy: boolean;
  readonly placement: FaultPlacement;
  readonly queues: readonly string[];
  readonly queueOwnership: QueueOwnership;
  /** Prefix of the connection names of the run's clients (a broker fault closes those, and only those). */
  readonly connectionNamePrefix: string;
  readonly log: (line: string) => void;
}

export interface LoadSetup {
  /** Where the clients connect. */
  readonly url: string;
  readonly proxy: ProxyTarget | undefined;
  readonly faults: FaultScheduleRun;
  close(): Promise<void>;
}

interface Opened {
  proxyApi?: ProxyApiHandle;
  runProxy?: RunProxy;
  solo?: SoloNode;
  admin?: QueueAdmin;
  broker?: ClosableBrokerActions;
  faults?: FaultScheduleRun;
}

/** Sets up where the run's clients go. @throws whatever a step throws, after undoing the steps before it */
export async function openLoadSetup(options: LoadSetupOptions): Promise<LoadSetup> {
  const opened: Opened = {};
  const close = () => closeSetup(opened, options.log);
  try {
    const { url, brokerUrl, proxy } = await openTarget(options, opened);
    opened.admin = await QueueAdmin.open(brokerUrl);
    const { workload } = options;
    // A node restart in the schedule: its queues must outlive it (classic ones declared durable).
    const durable = workload.queueType !== 'classic' || workload.faults.some((fault) => faultDefinition(fault.spec.kind).durableQueues);
    const spec = { durable, arguments: { 'x-queue-type': workload.queueType } };
    for (const queue of options.queues)
      if (options.queueOwnership === 'fresh') await opened.admin.declareFresh(queue, spec);
      else await opened.admin.declareShared(queue, spec);
    const context: FaultContext = {
      proxy,
      connectionNamePrefix: options.connectionNamePrefix,
      queues: options.queues,
      exchange: '',
      log: options.log,
      ...(opened.solo ? { node: opened.solo.actions(proxy) } : {}),
    };
    if (workload.faults.some((fault) => faultDefinition(fault.spec.kind).layer === 'broker')) {
      const topology = { exchanges: [], queues: options.queues.map((name) => ({ name, ...spec, bindings: [] })) };
      opened.broker = opened.solo ? opened.solo.brokerActions(topology) : sharedBrokerActions(options.config.amqpUrl, topology);
    }
    opened.faults = await prepareFaultSchedule(
      workload.faults,
      { ...context, ...(opened.broker ? { broker: opened.broker } : {}) },
      options.log,
    );
    return { url, proxy, faults: opened.faults, close };
  } catch (error) {
    await close();
    throw error;
  }
}

async function openTarget(
  options: LoadSetupOptions,
  opened: Opened,
): Promise<{ url: string; brokerUrl: string; proxy: ProxyTarget | undefined }> {
  const { config, log } = options;
  if (options.placement.ownNode) {
    opened.solo = await startSoloNode(resolveClusterSettings(), log, LOAD_NODE);
    opened.proxyApi = await ensureProxyApi(config, log);
    const { proxy, proxiedUrl } = await soloProxyEntry(opened.solo, opened.proxyApi.client, OWN_NODE_ENTRY);
    return { url: proxiedUrl, brokerUrl: opened.solo.url, proxy };
  }
  if (options.viaProxy) {
    // The run's own entry (on a proxy of its own, or `<name>-<pid>` on a shared one), deleted or stopped at close.
    opened.runProxy = await openRunProxy(config, log);
    const { entry } = opened.runProxy;
    const url = proxiedAmqpUrl({ amqpUrl: config.amqpUrl, proxyListen: parseHostPort('proxy listen', entry.listen) });
    return { url, brokerUrl: config.amqpUrl, proxy: entry.target };
  }
  return { url: config.amqpUrl, brokerUrl: config.amqpUrl, proxy: undefined };
}

async function closeSetup(opened: Opened, log: (line: string) => void): Promise<void> {
  await opened.faults?.stop(async () => null).catch(() => undefined);
  await opened.broker?.close().catch(() => undefined);
  await opened.admin?.close().catch((error: unknown) => log(`load: queues not deleted: ${describeError(error)}`));
  if (opened.solo) {
    await opened.proxyApi?.client.deleteProxy(OWN_NODE_ENTRY).catch(() => undefined);
    await opened.solo.stop().catch((error: unknown) => log(`load: its own node did not stop: ${describeError(error)}`));
  }
  await opened.proxyApi?.stop();
  await opened.runProxy?.close();
}
