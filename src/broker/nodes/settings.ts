/**
 * Settings of the local benchmark cluster (`npm run cluster:up`) and of the failover scenarios,
 * read once from the environment and validated at the boundary, like src/config.ts does for the
 * single broker. Kept beside the cluster code: nothing else in the harness needs them.
 */
import path from 'node:path';
import { envReader, workDir, type Env } from '../../config';
import { ConfigError } from '../../errors';

/** The node names, in order; the first is the one the others join. */
export const CLUSTER_NODE_LETTERS = ['a', 'b', 'c'] as const;

export interface ClusterSettings {
  /** BENCH_CLUSTER_DIR: the nodes' configs, data, logs, cookie and state (git-ignored). @default <project>/.cluster */
  readonly dir: string;
  /** BENCH_CLUSTER_AMQP_PORT: AMQP port of the first node; the others follow (5681, 5682, 5683). @default 5681 */
  readonly firstAmqpPort: number;
  /** BENCH_CLUSTER_DIST_PORT: Erlang distribution port of the first node; the others follow. @default 25681 */
  readonly firstDistPort: number;
  /** BENCH_CLUSTER_HOST: the host the nodes listen on and are named after (`bench-a@<host>`). @default localhost */
  readonly nodeHost: string;
  /** BENCH_CLUSTER_USER / BENCH_CLUSTER_PASSWORD: AMQP login (the nodes' default user, loopback only). @default guest / guest */
  readonly user: string;
  readonly password: string;
  /** BENCH_CLUSTER_SBIN: folder of RabbitMQ's own scripts (not Debian's /usr/sbin wrappers, which write the system node's logs). @default /usr/lib/rabbitmq/bin */
  readonly rabbitmqBinDir: string;
}

export const CLUSTER_DEFAULTS = {
  dir: '.cluster',
  firstAmqpPort: 5681,
  firstDistPort: 25681,
  nodeHost: 'localhost',
  user: 'guest',
  password: 'guest',
  rabbitmqBinDir: '/usr/lib/rabbitmq/bin',
} as const;

/** Ports the system broker uses (AMQP, its distribution port): a cluster node must never take them. */
const SYSTEM_BROKER_PORTS: readonly number[] = [5672, 25672];

/** @throws ConfigError naming the first bad variable */
export function resolveClusterSettings(env: Env = process.env): ClusterSettings {
  const value = envReader(env);
  const firstAmqpPort = parsePortBase('BENCH_CLUSTER_AMQP_PORT', value('BENCH_CLUSTER_AMQP_PORT'), CLUSTER_DEFAULTS.firstAmqpPort);
  const firstDistPort = parsePortBase('BENCH_CLUSTER_DIST_PORT', value('BENCH_CLUSTER_DIST_PORT'), CLUSTER_DEFAULTS.firstDistPort);
  const amqpPorts = portsFrom(firstAmqpPort);
  const distPorts = portsFrom(firstDistPort);
  if (amqpPorts.some((port) => distPorts.includes(port)))
    throw new ConfigError(
      'BENCH_CLUSTER_DIST_PORT',
      `a port range that does not overlap the AMQP ports ${amqpPorts.join(', ')}`,
      String(firstDistPort),
    );
  const host = value('BENCH_CLUSTER_HOST') ?? CLUSTER_DEFAULTS.nodeHost;
  if (!/^[A-Za-z0-9][A-Za-z0-9.-]{0,62}$/.test(host)) throw new ConfigError('BENCH_CLUSTER_HOST', 'a host name (e.g. localhost)', host);
  return Object.freeze({
    dir: path.resolve(workDir(), value('BENCH_CLUSTER_DIR') ?? CLUSTER_DEFAULTS.dir),
    firstAmqpPort,
    firstDistPort,
    nodeHost: host,
    user: value('BENCH_CLUSTER_USER') ?? CLUSTER_DEFAULTS.user,
    password: env.BENCH_CLUSTER_PASSWORD ?? CLUSTER_DEFAULTS.password,
    rabbitmqBinDir: path.resolve(value('BENCH_CLUSTER_SBIN') ?? CLUSTER_DEFAULTS.rabbitmqBinDir),
  });
}

function portsFrom(first: number): number[] {
  return CLUSTER_NODE_LETTERS.map((_, index) => first + index);
}

function parsePortBase(variable: string, raw: string | undefined, fallback: number): number {
  const expected = `a port from 1024 to 65000 whose next ${CLUSTER_NODE_LETTERS.length - 1} ports are free for the other nodes, not the system broker's 5672 or 25672 (e.g. ${fallback})`;
  if (raw === undefined) return fallback;
  const port = Number(raw);
  if (!/^\d{4,5}$/.test(raw) || port < 1024 || port > 65000) throw new ConfigError(variable, expected, raw);
  if (portsFrom(port).some((each) => SYSTEM_BROKER_PORTS.includes(each))) throw new ConfigError(variable, expected, raw);
  return port;
}
