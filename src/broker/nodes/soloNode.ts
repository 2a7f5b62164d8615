/**
 * A RabbitMQ node of the harness's own, for the faults that affect every client of a node (a
 * resource alarm, a paused VM): never the shared broker on 5672. Started from empty data by the
 * suite that needs it, beside the system broker and the benchmark cluster (its own name
 * `bench-solo@<host>`, ports, config, data, logs and cookie, under the cluster folder), and always
 * stopped again — also when the suite fails: `stop()` is safe twice and kills what does not stop.
 */
import fs from 'node:fs';
import path from 'node:path';
import { TimeoutError } from '../../errors';
import type { BrokerActions, NodeActions } from '../../faults/model';
import type { ProxyTarget } from '../../faults/toxics';
import type { ToxiproxyClient } from '../../faults/toxiproxyClient';
import { brokerActions, type ClosableBrokerActions, type Topology } from '../actions';
import { nodeAmqpUrl, rabbitAdvancedConfig, type ClusterLayout, type ClusterNode } from './layout';
import { ensureCookie } from './lifecycle';
import { nodeActions } from './nodeActions';
import { startNode, stopNode, waitForNode } from './nodeControl';
import { runningPid } from './processes';
import { runCli } from './rabbitmqctl';
import type { ClusterSettings } from './settings';

/**
 * Who a node of the harness's own is: its short name, folder and ports (clear of the system
 * broker's and the cluster's, 5681-5683). Each user has its own, so that one never stops the
 * other's node as a leftover (the fault matrix and check-adapter may run at once).
 */
export interface SoloIdentity {
  readonly short: string;
  /** Folder under the cluster folder. */
  readonly folder: string;
  readonly amqpPort: number;
  readonly distPort: number;
  /** Settings of the rabbit application it starts with (its advanced.config); none: RabbitMQ's defaults. */
  readonly rabbitSettings?: Readonly<Record<string, number>>;
}

/** The fault matrix's node (alarm and pause scenarios). */
export const SOLO_NODE: SoloIdentity = { short: 'bench-solo', folder: 'solo', amqpPort: 5690, distPort: 25690 };
/**
 * The fault matrix's node for a fault that needs the broker configured (a short consumer_timeout):
 * apart from SOLO_NODE, whose faults must meet RabbitMQ's defaults.
 */
export function configuredSoloNode(rabbitSettings: Readonly<Record<string, number>>): SoloIdentity {
  return { short: 'bench-solo-conf', folder: 'solo-conf', amqpPort: 5693, distPort: 25693, rabbitSettings };
}
/** bench load's node, for a resource alarm or a node fault in its schedule. */
export const LOAD_NODE: SoloIdentity = { short: 'bench-load', folder: 'load', amqpPort: 5692, distPort: 25692 };
/** check-adapter's node (--alarm-node). */
export const CHECK_ADAPTER_NODE: SoloIdentity = { short: 'bench-check', folder: 'check-adapter', amqpPort: 5691, distPort: 25691 };

/** Bound on the solo node's boot (one Erlang VM on two shared cores). */
const BOOT_BOUND_MS = 90_000;

export function soloLayout(settings: ClusterSettings, identity: SoloIdentity = SOLO_NODE): ClusterLayout {
  const dir = path.join(settings.dir, identity.folder);
  const short = identity.short;
  const nodeDir = path.join(dir, 'nodes', short);
  const node: ClusterNode = {
    letter: 'solo',
    index: 0,
    name: `${short}@${settings.nodeHost}`,
    amqpPort: identity.amqpPort,
    distPort: identity.distPort,
    nodeDir,
    configFile: path.join(nodeDir, 'rabbitmq.conf'),
    envFile: path.join(nodeDir, 'rabbitmq-env.conf'),
    advancedConfigFile: path.join(nodeDir, 'advanced.config'),
    ...(identity.rabbitSettings ? { advancedConfig: rabbitAdvancedConfig(identity.rabbitSettings) } : {}),
    enabledPluginsFile: path.join(nodeDir, 'enabled_plugins'),
    pidFile: path.join(nodeDir, `${short}.pid`),
    mnesiaBase: path.join(nodeDir, 'data'),
    mnesiaDir: path.join(nodeDir, 'data', short),
    logDir: path.join(nodeDir, 'log'),
    consoleLog: path.join(nodeDir, 'log', 'console.log'),
  };
  const homeDir = path.join(dir, 'home');
  return {
    dir,
    homeDir,
    cookieFile: path.join(homeDir, '.erlang.cookie'),
    stateFile: path.join(dir, 'solo.json'),
    nodes: [node],
    rabbitmqBinDir: settings.rabbitmqBinDir,
  };
}

export interface SoloNode {
  readonly node: ClusterNode;
  /** Direct AMQP URL (not through the proxy). */
  readonly url: string;
  /** The node's actions for faults (pause, resume, ...), with the proxy entry its clients use when given. */
  actions(proxy?: ProxyTarget): NodeActions;
  /** Broker actions on this node: alarms allowed (it is the harness's own). */
  brokerActions(topology: Topology): ClosableBrokerActions & BrokerActions;
  /** Stops the node (resumed first if paused) and removes its data; safe twice. */
  stop(): Promise<void>;
}

/**
 * Starts the solo node from empty data and waits until it serves (bounded).
 * @throws TimeoutError with the node's last console lines, after stopping what it started
 */
export async function startSoloNode(
  settings: ClusterSettings,
  log: (line: string) => void = () => undefined,
  identity: SoloIdentity = SOLO_NODE,
): Promise<SoloNode> {
  const layout = soloLayout(settings, identity);
  const node = layout.nodes[0]!;
  // A node left by a killed run is stopped first: it would hold the ports.
  if (runningPid(node) !== undefined) await stopNode(layout, node);
  fs.rmSync(node.mnesiaBase, { recursive: true, force: true });
  fs.rmSync(node.consoleLog, { force: true });
  ensureCookie(layout);
  log(`solo node: starting ${node.name} (AMQP ${node.amqpPort}) for faults that affect every client of a node`);
  const { launcherPid } = startNode(layout, node);
  let stopped: Promise<void> | undefined;
  const stop = () => {
    stopped ??= (async () => {
      const pid = runningPid(node);
      // A paused VM cannot stop itself: continue it first.
      if (pid !== undefined) process.kill(pid, 'SIGCONT');
      await stopNode(layout, node, 30_000);
      fs.rmSync(node.mnesiaBase, { recursive: true, force: true });
      log(`solo node: ${node.name} stopped`);
    })();
    return stopped;
  };
  try {
    await waitForNode(node, BOOT_BOUND_MS, launcherPid);
  } catch (error) {
    await stop().catch(() => undefined);
    throw error instanceof TimeoutError ? error : new TimeoutError(`solo node ${node.name} did not start: ${(error as Error).message}`);
  }
  const url = nodeAmqpUrl(node, settings);
  return {
    node,
    url,
    actions: (proxy) => nodeActions(layout, node, proxy),
    brokerActions: (topology) =>
      brokerActions({
        node: node.name,
        adminUrl: url,
        topology,
        alarms: true,
        rabbitmqctl: async (args, boundMs) => (await runCli(layout, node, 'rabbitmqctl', args, boundMs)).stdout,
      }),
    stop,
  };
}

/**
 * A proxy entry in front of the solo node, named `name` (a leftover of that name is replaced):
 * the clients' way to the node, where proxy faults act. The caller deletes it when done.
 */
export async function soloProxyEntry(
  solo: SoloNode,
  client: ToxiproxyClient,
  name: string,
): Promise<{ proxy: ProxyTarget; proxiedUrl: string }> {
  await client.deleteProxy(name).catch(() => undefined);
  const entry = await client.createProxy({ name, listen: '127.0.0.1:0', upstream: `127.0.0.1:${solo.node.amqpPort}`, enabled: true });
  const url = new URL(solo.url);
  url.host = entry.listen;
  return { proxy: { client, name }, proxiedUrl: url.toString().replace(/\/$/, '') };
}
