/**
 * Who a RabbitMQ node of the harness's own is (pure: names, paths, port rules; no I/O). Every start
 * gets an identity of its own — `<kind>-<pid>-<n>@<host>`, its own folder under
 * `<cluster dir>/solo-nodes/` and AMQP and distribution ports the OS chose — so two users of the
 * same kind at once (two Jest workers, the fault matrix beside a CI run) never meet: neither can
 * take the other's ports or stop the other's node as a leftover.
 */
import path from 'node:path';
import { rabbitAdvancedConfig, type ClusterLayout, type ClusterNode } from './layout';
import { CLUSTER_NODE_LETTERS, type ClusterSettings } from './settings';

/** What a node is for: the first part of its name, and the settings it starts with. */
export interface SoloKind {
  /** First part of the node's name (`bench-solo` → `bench-solo-<pid>-<n>@<host>`). */
  readonly kind: string;
  /** Settings of the rabbit application it starts with (its advanced.config); none: RabbitMQ's defaults. */
  readonly rabbitSettings?: Readonly<Record<string, number>>;
}

/** The fault matrix's node (alarm and pause scenarios). */
export const SOLO_NODE: SoloKind = { kind: 'bench-solo' };
/**
 * The fault matrix's node for a fault that needs the broker configured (a short consumer_timeout):
 * apart from SOLO_NODE, whose faults must meet RabbitMQ's defaults.
 */
export function configuredSoloNode(rabbitSettings: Readonly<Record<string, number>>): SoloKind {
  return { kind: 'bench-solo-conf', rabbitSettings };
}
/** bench load's node, for a resource alarm or a node fault in its schedule. */
export const LOAD_NODE: SoloKind = { kind: 'bench-load' };
/** check-adapter's node (--alarm-node). */
export const CHECK_ADAPTER_NODE: SoloKind = { kind: 'bench-check' };

/** One start's identity: short name, ports, settings. */
export interface SoloIdentity {
  /** `bench-solo-<pid>-<n>`: also the node's folder under SOLO_NODES_FOLDER. */
  readonly short: string;
  readonly amqpPort: number;
  readonly distPort: number;
  readonly rabbitSettings?: Readonly<Record<string, number>>;
}

/** The folder (under the cluster folder) that holds one folder per solo node. */
export const SOLO_NODES_FOLDER = 'solo-nodes';

/**
 * The CLI's distribution ports are the node's plus 10000 to 10010 (layout.ts): a node's
 * distribution port must leave room for them below 65536.
 */
const CLI_PORT_OFFSETS = { first: 10_000, last: 10_010 } as const;
const HIGHEST_PORT = 65_535;

/** `bench-solo-4711-2`: the kind, the owner's pid, and the owner's count of starts. */
export function soloShortName(kind: SoloKind, ownerPid: number, count: number): string {
  return `${kind.kind}-${ownerPid}-${count}`;
}

/** Where the solo node `short` lives: `<cluster dir>/solo-nodes/<short>`. */
export function soloFolder(settings: Pick<ClusterSettings, 'dir'>, short: string): string {
  return path.join(settings.dir, SOLO_NODES_FOLDER, short);
}

/**
 * Ports a solo node must never take: the system broker's (AMQP, management, distribution, epmd,
 * its CLI's 35672-35682) and the benchmark cluster's (AMQP, distribution, their CLIs').
 */
export function reservedPorts(settings: Pick<ClusterSettings, 'firstAmqpPort' | 'firstDistPort'>): ReadonlySet<number> {
  const reserved = new Set<number>([4369, 5672, 15672, 25672]);
  for (let port = 25672 + CLI_PORT_OFFSETS.first; port <= 25672 + CLI_PORT_OFFSETS.last; port += 1) reserved.add(port);
  CLUSTER_NODE_LETTERS.forEach((_, index) => {
    reserved.add(settings.firstAmqpPort + index);
    const distPort = settings.firstDistPort + index;
    reserved.add(distPort);
    for (let port = distPort + CLI_PORT_OFFSETS.first; port <= distPort + CLI_PORT_OFFSETS.last; port += 1) reserved.add(port);
  });
  return reserved;
}

/**
 * True when the pair can serve a solo node: two different ports, none reserved, and the
 * distribution port's CLI range inside the port space and clear of reserved ports and the AMQP port.
 */
export function portsUsable(ports: { readonly amqpPort: number; readonly distPort: number }, reserved: ReadonlySet<number>): boolean {
  const { amqpPort, distPort } = ports;
  if (amqpPort === distPort || reserved.has(amqpPort) || reserved.has(distPort)) return false;
  if (distPort + CLI_PORT_OFFSETS.last > HIGHEST_PORT) return false;
  for (let port = distPort + CLI_PORT_OFFSETS.first; port <= distPort + CLI_PORT_OFFSETS.last; port += 1) {
    if (port === amqpPort || reserved.has(port)) return false;
  }
  return true;
}

/** The layout of one solo node: everything (config, data, logs, cookie) inside its own folder. */
export function soloLayout(settings: ClusterSettings, identity: SoloIdentity): ClusterLayout {
  const dir = soloFolder(settings, identity.short);
  const { short } = identity;
  const nodeDir = path.join(dir, 'node');
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
