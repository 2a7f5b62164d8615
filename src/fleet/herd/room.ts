/**
 * Which broker a reconnect herd stands on, decided from the sockets the broker can hold. A RabbitMQ
 * node accepts connections only up to its sockets limit, which follows its process's open-files
 * limit (RabbitMQ 3.10 reports it as `file_descriptors.sockets_limit` in `rabbitmqctl status`): the
 * shared broker, started by its service with a soft limit of 1024, holds 832. A herd past it does
 * not fail at once: the connections past the limit hang in their handshake until the agents' bound
 * (a 1,000-connection herd on the shared broker ended in "did not connect within 90000 ms"). So
 * the herd reads the limit first and never exceeds it silently.
 */
import { ConfigError } from '../../errors';
import type { HerdDrop } from './target';

/**
 * Where a herd may stand: `auto` keeps it on the shared broker while the broker holds it and starts
 * a node of the harness's own when it does not; `shared` and `node` insist.
 * @default 'auto'
 */
export type HerdBrokerChoice = 'auto' | 'shared' | 'node';
export const HERD_BROKER_CHOICES: readonly HerdBrokerChoice[] = ['auto', 'shared', 'node'];

/** What a broker can still take, from its own status. */
export interface BrokerRoom {
  /** The sockets the node accepts in all (its open-files limit less its own files, times 0.9). */
  readonly socketsLimit: number;
  /** Client connections open on it now (other runs on the shared broker hold some). */
  readonly connectionsOpen: number;
}

/** The broker a herd uses, with why, for the log, herd.json and the report. */
export interface HerdBroker {
  readonly kind: 'shared' | 'node';
  readonly why: string;
}

/**
 * Connections beyond the herd's own the harness keeps on the broker it drops: the queue admin that
 * declares the queues and publishes the probes.
 */
const ADMIN_CONNECTIONS = 1;

/**
 * The margin kept free, a share of the herd (at least MARGIN_FLOOR): a library may open its new
 * connection before the broker has let the old socket go, and other clients of the shared broker
 * connect between this check and the drop.
 */
const MARGIN_SHARE = 0.1;
const MARGIN_FLOOR = 50;

/**
 * Sockets a herd of `connections` needs on its broker: its connections, the admin's, the margin,
 * and — when the control exchange is on the same broker (the shared one) — one control connection
 * per agent and the coordinator's.
 */
export function herdSocketsNeeded(options: {
  readonly connections: number;
  readonly agents: number;
  readonly controlOnIt: boolean;
}): number {
  const control = options.controlOnIt ? options.agents + 1 : 0;
  const margin = Math.max(MARGIN_FLOOR, Math.ceil(options.connections * MARGIN_SHARE));
  return options.connections + ADMIN_CONNECTIONS + control + margin;
}

/** True when `room` takes `needed` more sockets. */
export function roomFor(room: BrokerRoom, needed: number): boolean {
  return room.socketsLimit - room.connectionsOpen >= needed;
}

/** What a broker's room is in words: `832 sockets, 12 connections open`. */
export function describeRoom(room: BrokerRoom): string {
  return `${room.socketsLimit} sockets, ${room.connectionsOpen} connections open`;
}

/**
 * The broker for a herd. A node restart always has a node of its own (the shared broker is never
 * restarted). A close by name stays on the shared broker while it has room, as a small herd always
 * did; past that, `auto` moves it to a node the harness starts, whose open-files limit is this
 * process's (raised to the hard limit by Node.js at start-up): the drop and the clients' view are
 * the same, and the shared broker's other users never see a herd.
 * @param shared the shared broker's room; undefined when not read (a node restart, `--broker node`)
 * @throws ConfigError naming --connections when `shared` was insisted on and the herd does not fit
 */
export function chooseHerdBroker(options: {
  readonly choice: HerdBrokerChoice;
  readonly drop: HerdDrop['kind'];
  readonly connections: number;
  readonly agents: number;
  readonly shared: BrokerRoom | undefined;
}): HerdBroker {
  if (options.drop === 'node_restart') return { kind: 'node', why: 'a node restart: never the shared broker' };
  if (options.choice === 'node') return { kind: 'node', why: '--broker node' };
  if (options.shared === undefined) throw new Error('the shared broker has to be read before a herd can stay on it');
  const needed = herdSocketsNeeded({ ...options, controlOnIt: true });
  const room = describeRoom(options.shared);
  if (roomFor(options.shared, needed)) return { kind: 'shared', why: `the shared broker has room (${room}; the herd needs ${needed})` };
  if (options.choice === 'auto')
    return { kind: 'node', why: `the shared broker has no room for it (${room}; the herd needs ${needed} with its margin)` };
  throw new ConfigError(
    '--connections',
    `at most ${largestHerd(options.shared, options.agents, true)} with --broker shared: the shared broker holds ${room}, and ${options.connections} connections need ${needed} with the agents' control connections and a margin; connections past its limit hang in their handshake. Leave --broker at auto (a node the harness starts takes the herd) or run fewer connections`,
    String(options.connections),
  );
}

/**
 * Refuses a node without room for the herd (a low hard open-files limit: the node inherits it).
 * @throws ConfigError naming --connections, with the limit to raise
 */
export function checkNodeRoom(room: BrokerRoom, options: { readonly connections: number; readonly agents: number }): void {
  const needed = herdSocketsNeeded({ ...options, controlOnIt: false });
  if (roomFor(room, needed)) return;
  throw new ConfigError(
    '--connections',
    `at most ${largestHerd(room, options.agents, false)} here: the node the harness started holds ${describeRoom(room)} (its open-files limit is this shell's hard limit, \`ulimit -Hn\`), and ${options.connections} connections need ${needed} with a margin. Raise the hard limit (as root: \`ulimit -Hn 65536\` in the shell that runs bench) or run fewer connections`,
    String(options.connections),
  );
}

/** The most connections that fit in `room` (0 when none do). */
export function largestHerd(room: BrokerRoom, agents: number, controlOnIt: boolean): number {
  let low = 0;
  let high = Math.max(0, room.socketsLimit);
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (roomFor(room, herdSocketsNeeded({ connections: middle, agents, controlOnIt }))) low = middle;
    else high = middle - 1;
  }
  return low;
}

/**
 * The room in `rabbitmqctl status --formatter json` output (RabbitMQ 3.10: `file_descriptors` and
 * `totals`). @throws Error naming what is missing
 */
export function parseBrokerRoom(statusJson: string): BrokerRoom {
  const status = JSON.parse(statusJson) as {
    file_descriptors?: { sockets_limit?: unknown };
    totals?: { connection_count?: unknown };
  };
  const limit = status.file_descriptors?.sockets_limit;
  const open = status.totals?.connection_count ?? 0;
  if (typeof limit !== 'number' || !Number.isInteger(limit) || typeof open !== 'number')
    throw new Error(`rabbitmqctl status gave no file_descriptors.sockets_limit: ${statusJson.slice(0, 200)}`);
  return { socketsLimit: limit, connectionsOpen: open };
}
