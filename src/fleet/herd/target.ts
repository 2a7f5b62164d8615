/**
 * What a reconnect herd stands on: a fault proxy of its own in this process (its timeline keeps
 * every connection of the herd, however many), one entry per agent so that each agent's attempts
 * are its own, and the broker the herd is dropped from (room.ts decides): the shared broker, which
 * closes the harness's own connections by name, while it has sockets for the herd; else a node the
 * harness starts for it, which closes them by name or restarts (the shared broker on 5672 is never
 * restarted). Also the drop itself and the probes published after it.
 */
import { parseHostPort, type BenchConfig } from '../../config';
import { sharedBrokerActions, systemRabbitmqctl, type ClosableBrokerActions } from '../../broker/actions';
import { BrokerError } from '../../errors';
import { QueueAdmin } from '../../broker/queueAdmin';
import { resolveClusterSettings } from '../../broker/nodes/settings';
import { LOAD_NODE, startSoloNode, type SoloNode } from '../../broker/nodes/soloNode';
import { ToxiproxyClient } from '../../faults/toxiproxyClient';
import { nowNs, pollUntil, sleep } from '../../measure/clock';
import { startProxyServer, type ProxyServer } from '../../proxy';
import { herdNames } from './agent';
import type { SeenConnection } from './figures';
import {
  checkNodeRoom,
  chooseHerdBroker,
  describeRoom,
  parseBrokerRoom,
  type BrokerRoom,
  type HerdBroker,
  type HerdBrokerChoice,
} from './room';

export type HerdDrop = { readonly kind: 'broker_close' } | { readonly kind: 'node_restart'; readonly downMs: number };

/** The drop in words, for reports. */
export function describeDrop(drop: HerdDrop): string {
  return drop.kind === 'node_restart'
    ? `a restart of a node the harness started for it (down ${drop.downMs / 1000} s), never the shared broker`
    : "the broker closes every herd connection by name (the harness's own connections only)";
}

/** How long after the drop's call every herd connection must have been seen closed. */
const CLOSES_BOUND_MS = 15_000;

/** Connections the herd's proxy keeps in its timeline (the herd's, its reconnections and failed attempts). */
const TIMELINE_CONNECTIONS = 200_000;

/** Bound on `rabbitmqctl status` (the CLI starts an Erlang VM of its own: seconds on a busy machine). */
const STATUS_BOUND_MS = 60_000;

export interface HerdTarget {
  /** The broker the herd stands on, and why. */
  readonly broker: HerdBroker & { readonly room: BrokerRoom };
  /** Where agent `index`'s clients connect (its own entry), credentials included. */
  urlOf(index: number): string;
  /** What agent `index`'s entry saw. */
  seenBy(index: number): SeenConnection[];
  /** Drops every herd connection; resolves when the drop is done (the node back, for a restart), with when the call started. */
  drop(): Promise<{ readonly calledNs: bigint }>;
  /**
   * The moment the first herd connection was closed after `sinceNs`, and the spread of those closes
   * (ms), as the proxy saw them; waits (bounded) until every herd connection was seen closed, since
   * a broker's close call may return before the last socket ends.
   */
  closesAfter(sinceNs: bigint): Promise<{ readonly firstNs: bigint | null; readonly spreadMs: number | null; readonly closed: number }>;
  /**
   * One probe message to each herd queue, before the drop: each consumer holds its probe unacked,
   * the drop puts it back in the queue, and the consumer the client re-establishes receives it at
   * once — the moment that connection consumes again, with no probe published late.
   */
  publishProbes(): Promise<void>;
  close(): Promise<void>;
}

/** Starts the proxy, the node (for a restart) and the herd's queues (durable: a restart keeps them). */
export async function openHerdTarget(options: {
  readonly runId: string;
  readonly agents: number;
  readonly connections: number;
  readonly drop: HerdDrop;
  /** @default 'auto' */
  readonly broker?: HerdBrokerChoice;
  readonly config: Pick<BenchConfig, 'amqpUrl'>;
  readonly log: (line: string) => void;
}): Promise<HerdTarget> {
  let solo: SoloNode | undefined;
  let server: ProxyServer | undefined;
  let admin: QueueAdmin | undefined;
  try {
    const stand = await standOn(options);
    solo = stand.solo;
    const brokerUrl = solo?.url ?? options.config.amqpUrl;
    server = await startProxyServer({
      host: '127.0.0.1',
      port: 0,
      maxClosedConnectionsPerProxy: TIMELINE_CONNECTIONS,
      maxEventsPerProxy: TIMELINE_CONNECTIONS,
    });
    const client = new ToxiproxyClient(server.url);
    const brokerAddress = new URL(brokerUrl);
    const upstream = `${brokerAddress.hostname}:${brokerAddress.port || '5672'}`;
    const names = Array.from({ length: options.agents }, (_, index) => `bench-herd-${options.runId}-a${index}`);
    const urls: string[] = [];
    for (const name of names) {
      const { listen } = await client.createProxy({ name, listen: '127.0.0.1:0', upstream, enabled: true });
      const url = new URL(brokerUrl);
      url.host = `${parseHostPort('listen', listen).host}:${parseHostPort('listen', listen).port}`;
      urls.push(url.toString().replace(/\/$/, ''));
    }
    admin = await QueueAdmin.open(brokerUrl);
    for (let index = 0; index < options.connections; index += 1)
      await admin.declareFresh(herdNames(options.runId, index).queue, { durable: true });
    return herdTarget({ ...options, broker: stand.broker, solo, server, admin, names, urls, brokerUrl });
  } catch (error) {
    await admin?.close().catch(() => undefined);
    await server?.close();
    await solo?.stop().catch(() => undefined);
    throw error;
  }
}

/**
 * The broker the herd stands on (room.ts decides), with the node started when it is one.
 * @throws ConfigError when the chosen broker has no room for the herd (a node started is stopped again)
 */
async function standOn(options: {
  readonly connections: number;
  readonly agents: number;
  readonly drop: HerdDrop;
  readonly broker?: HerdBrokerChoice;
  readonly log: (line: string) => void;
}): Promise<{ readonly broker: HerdTarget['broker']; readonly solo: SoloNode | undefined }> {
  const choice = options.broker ?? 'auto';
  const shared = options.drop.kind === 'broker_close' && choice !== 'node' ? await sharedBrokerRoom() : undefined;
  const broker = chooseHerdBroker({ ...options, choice, drop: options.drop.kind, shared });
  options.log(`herd: on ${broker.kind === 'shared' ? 'the shared broker' : 'a node the harness starts'}: ${broker.why}`);
  if (broker.kind === 'shared') return { broker: { ...broker, room: shared! }, solo: undefined };
  const solo = await startSoloNode(resolveClusterSettings(), options.log, LOAD_NODE);
  try {
    const room = parseBrokerRoom(await solo.rabbitmqctl(['status', '--formatter', 'json'], STATUS_BOUND_MS));
    options.log(`herd: the node holds ${describeRoom(room)}`);
    checkNodeRoom(room, options);
    return { broker: { ...broker, room }, solo };
  } catch (error) {
    await solo.stop().catch(() => undefined);
    throw error;
  }
}

/**
 * The shared broker's room, from the system's rabbitmqctl (which its close by name needs too).
 * @throws BrokerError saying how to run the herd without it
 */
async function sharedBrokerRoom(): Promise<BrokerRoom> {
  try {
    return parseBrokerRoom(await systemRabbitmqctl(['status', '--formatter', 'json'], STATUS_BOUND_MS));
  } catch (error) {
    throw new BrokerError(
      `the shared broker's sockets limit could not be read (${(error as Error).message}); its close by name needs rabbitmqctl too. \`--broker node\` runs the herd on a node the harness starts`,
      { cause: error },
    );
  }
}

function herdTarget(parts: {
  readonly broker: HerdTarget['broker'];
  readonly runId: string;
  readonly connections: number;
  readonly drop: HerdDrop;
  readonly config: Pick<BenchConfig, 'amqpUrl'>;
  readonly log: (line: string) => void;
  readonly solo: SoloNode | undefined;
  readonly server: ProxyServer;
  readonly admin: QueueAdmin;
  readonly names: readonly string[];
  readonly urls: readonly string[];
  readonly brokerUrl: string;
}): HerdTarget {
  const records = (index: number) => parts.server.collection.get(parts.names[index]!).timeline.connections();
  const all = () => parts.names.flatMap((_, index) => records(index));
  return {
    broker: parts.broker,
    urlOf: (index) => parts.urls[index]!,
    seenBy: (index) =>
      records(index).map((each) => ({ openedAtNs: each.openedAtNs, reachedBroker: each.closeReason !== 'upstream_unreachable' })),
    async drop() {
      const calledNs = nowNs();
      if (parts.drop.kind === 'broker_close') {
        const actions: ClosableBrokerActions = parts.solo
          ? parts.solo.brokerActions({ exchanges: [], queues: [] })
          : sharedBrokerActions(parts.config.amqpUrl);
        try {
          await actions.closeConnections(`bench-herd-${parts.runId}-c`, 'reconnect herd');
        } finally {
          await actions.close();
        }
      } else {
        const node = parts.solo!.actions();
        await node.stop();
        await sleep(parts.drop.downMs);
        await node.restart();
      }
      return { calledNs };
    },
    async closesAfter(sinceNs) {
      const closes = () =>
        all()
          .filter((each) => each.openedAtNs < sinceNs && each.closedAtNs !== undefined && each.closedAtNs >= sinceNs)
          .map((each) => each.closedAtNs!);
      await pollUntil(() => closes().length >= parts.connections, CLOSES_BOUND_MS, 20);
      const seen = closes();
      if (seen.length === 0) return { firstNs: null, spreadMs: null, closed: 0 };
      const first = seen.reduce((a, b) => (b < a ? b : a));
      const last = seen.reduce((a, b) => (b > a ? b : a));
      return { firstNs: first, spreadMs: Math.round(Number(last - first) / 1000) / 1000, closed: seen.length };
    },
    async publishProbes() {
      const queues = Array.from({ length: parts.connections }, (_, index) => herdNames(parts.runId, index).queue);
      await parts.admin.publishEach(queues, Buffer.from('probe'));
    },
    async close() {
      // After a restart the admin connection is gone with the old node (the queues go with its data).
      await parts.admin.close().catch(() => undefined);
      await parts.server.close();
      await parts.solo?.stop().catch((error: unknown) => parts.log(`herd: its node did not stop: ${String(error)}`));
    },
  };
}
