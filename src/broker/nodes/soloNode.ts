/**
 * A RabbitMQ node of the harness's own, for the faults that affect every client of a node (a
 * resource alarm, a paused VM): never the shared broker on 5672. Started from empty data by the
 * suite that needs it, beside the system broker and the benchmark cluster, under an identity of
 * its own (soloIdentity.ts: `<kind>-<pid>-<n>@<host>`, free ports, its own folder with config, data,
 * logs and cookie), and always stopped again — also when the suite fails (`stop()` is safe twice
 * and kills what does not stop), and when its process ends without stopping it (soloReaper.ts;
 * soloOwner.ts sweeps what even that missed).
 */
import fs from 'node:fs';
import path from 'node:path';
import { TimeoutError } from '../../errors';
import type { BrokerActions, NodeActions } from '../../faults/model';
import type { ProxyTarget } from '../../faults/toxics';
import type { ToxiproxyClient } from '../../faults/toxiproxyClient';
import { brokerActions, type ClosableBrokerActions, type RabbitmqctlRunner, type Topology } from '../actions';
import { nodeAmqpUrl, type ClusterLayout, type ClusterNode } from './layout';
import { ensureCookie } from './lifecycle';
import { nodeActions } from './nodeActions';
import { startNode, stopNode, waitForNode } from './nodeControl';
import { freePortPair, runningPid } from './processes';
import { runCli } from './rabbitmqctl';
import type { ClusterSettings } from './settings';
import {
  portsUsable,
  reservedPorts,
  SOLO_NODE,
  SOLO_NODES_FOLDER,
  soloFolder,
  soloLayout,
  soloShortName,
  type SoloIdentity,
  type SoloKind,
} from './soloIdentity';
import { ownerRecord, sweepSoloNodes, writeOwner } from './soloOwner';
import { startReaper } from './soloReaper';

export { CHECK_ADAPTER_NODE, configuredSoloNode, LOAD_NODE, SOLO_NODE, type SoloKind } from './soloIdentity';

export interface SoloNode {
  readonly node: ClusterNode;
  /** Direct AMQP URL (not through the proxy). */
  readonly url: string;
  /** The node's actions for faults (pause, resume, ...), with the proxy entry its clients use when given. */
  actions(proxy?: ProxyTarget): NodeActions;
  /** Broker actions on this node: alarms allowed (it is the harness's own). */
  brokerActions(topology: Topology): ClosableBrokerActions & BrokerActions;
  /** `rabbitmqctl <args>` aimed at this node (bounded); resolves with its stdout. */
  rabbitmqctl: RabbitmqctlRunner;
  /** Stops the node (resumed first if paused) and removes its data; safe twice. */
  stop(): Promise<void>;
}

export interface SoloPorts {
  readonly amqpPort: number;
  readonly distPort: number;
}

/** Bound on the solo node's boot (one Erlang VM on two shared cores). */
const BOOT_BOUND_MS = 90_000;
/** Tries with new ports when another process took one of the node's ports before it bound them. */
const PORT_ATTEMPTS = 3;

/**
 * Starts a solo node of `kind` from empty data, under an identity of its own (name, folder, free
 * ports), and waits until it serves (bounded). Sweeps first the solo nodes whose owner process is
 * gone. The node is ended by `stop()`, or by its reaper when this process ends without stopping it.
 * @param choosePorts where the ports come from (a test passes taken ones) @default two the OS reports free
 * @throws TimeoutError with the node's last console lines, after stopping what it started
 * @example const solo = await startSoloNode(resolveClusterSettings(), console.log, LOAD_NODE);
 */
export async function startSoloNode(
  settings: ClusterSettings,
  log: (line: string) => void = () => undefined,
  kind: SoloKind = SOLO_NODE,
  choosePorts: (reserved: ReadonlySet<number>) => Promise<SoloPorts> = (reserved) => freePortPair((pair) => portsUsable(pair, reserved)),
): Promise<SoloNode> {
  await sweepSoloNodes(settings, log);
  const reserved = reservedPorts(settings);
  for (let attempt = 1; ; attempt += 1) {
    const ports = await choosePorts(reserved);
    const short = claimFolder(settings, kind);
    const identity: SoloIdentity = { short, ...ports, ...(kind.rabbitSettings ? { rabbitSettings: kind.rabbitSettings } : {}) };
    try {
      return await bootSoloNode(settings, identity, log);
    } catch (error) {
      if (!(error instanceof PortTakenError) || attempt >= PORT_ATTEMPTS) throw error;
      log(`solo node: ${error.message}; starting again on other ports`);
    }
  }
}

/** A port of the node was taken between the OS naming it free and the node binding it. */
class PortTakenError extends TimeoutError {}

/**
 * Makes the folder of a new node of this process, owner file included (a sweep never sees it
 * without one), under the first name `<kind>-<pid>-<n>` not taken yet.
 */
function claimFolder(settings: ClusterSettings, kind: SoloKind): string {
  fs.mkdirSync(path.join(settings.dir, SOLO_NODES_FOLDER), { recursive: true });
  for (let count = 1; ; count += 1) {
    const short = soloShortName(kind, process.pid, count);
    const staging = soloFolder(settings, `.${short}.staging`);
    fs.rmSync(staging, { recursive: true, force: true });
    fs.mkdirSync(staging);
    writeOwner(staging, ownerRecord(`${short}@${settings.nodeHost}`));
    try {
      fs.renameSync(staging, soloFolder(settings, short));
      return short;
    } catch (error) {
      fs.rmSync(staging, { recursive: true, force: true });
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'EEXIST' && code !== 'ENOTEMPTY') throw error;
    }
  }
}

async function bootSoloNode(settings: ClusterSettings, identity: SoloIdentity, log: (line: string) => void): Promise<SoloNode> {
  const layout = soloLayout(settings, identity);
  const node = layout.nodes[0]!;
  ensureCookie(layout);
  log(`solo node: starting ${node.name} (AMQP ${node.amqpPort}) for faults that affect every client of a node`);
  // Watching before the launch: an owner killed while the node boots leaves nothing either.
  const reaper = startReaper(node);
  let stopped: Promise<void> | undefined;
  const stop = () => {
    stopped ??= (async () => {
      try {
        const pid = runningPid(node);
        // A paused VM cannot stop itself: continue it first.
        if (pid !== undefined) process.kill(pid, 'SIGCONT');
        await stopNode(layout, node, 30_000);
      } finally {
        // Released either way: its check kills whatever the stop left.
        reaper.release();
      }
      // The folder (logs, owner file) stays until a sweep finds its owner gone: so this process
      // never reuses the name, which the reaper released here may still be scanning for.
      fs.rmSync(node.mnesiaBase, { recursive: true, force: true });
      log(`solo node: ${node.name} stopped`);
    })();
    return stopped;
  };
  try {
    const { launcherPid } = startNode(layout, node);
    await waitForNode(node, BOOT_BOUND_MS, launcherPid);
  } catch (error) {
    const taken = portTaken(node);
    await stop().catch(() => undefined);
    if (taken) throw new PortTakenError(`${node.name}: port ${node.amqpPort} or ${node.distPort} taken by another process`);
    throw error instanceof TimeoutError ? error : new TimeoutError(`solo node ${node.name} did not start: ${(error as Error).message}`);
  }
  return soloNode(layout, node, settings, stop);
}

/** True when the node's logs say a port was taken: AMQP (eaddrinuse) or distribution (dist_port_already_used). */
function portTaken(node: ClusterNode): boolean {
  let files: string[];
  try {
    files = fs.readdirSync(node.logDir).map((name) => path.join(node.logDir, name));
  } catch {
    return false;
  }
  return files.some((file) => {
    try {
      return /eaddrinuse|dist_port_already_used/i.test(fs.readFileSync(file, 'utf8'));
    } catch {
      return false;
    }
  });
}

function soloNode(layout: ClusterLayout, node: ClusterNode, settings: ClusterSettings, stop: () => Promise<void>): SoloNode {
  const url = nodeAmqpUrl(node, settings);
  const rabbitmqctl: RabbitmqctlRunner = async (args, boundMs) => (await runCli(layout, node, 'rabbitmqctl', args, boundMs)).stdout;
  return {
    node,
    url,
    actions: (proxy) => nodeActions(layout, node, proxy),
    brokerActions: (topology) => brokerActions({ node: node.name, adminUrl: url, topology, alarms: true, rabbitmqctl }),
    rabbitmqctl,
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
