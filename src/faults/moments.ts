/**
 * When a fault acted on each connection, read from the proxy's fault timeline (pure): the
 * first moment per connection, the fault spread (first to last of those moments, over every
 * connection), and each thread's own fault moment, matched by its connection's local port.
 *
 * Why the spread matters: the proxy does not reset 50 connections at once. Each RST wakes a
 * client thread that competes with the proxy for the same cores, so on a small machine the
 * resets leave in bursts over tens of milliseconds. Propagation (the last thread's detection,
 * timed from the first RST) includes that spread; a thread's own delay (its detection, timed
 * from the RST on its own connection) does not.
 */
import { elapsedMs } from '../measure/clock';
import type { FaultDefinition } from './model';
import type { FaultEvent } from './toxiproxyClient';

/** The first moment the fault acted on one connection. */
export interface ActedConnection {
  readonly timeNs: bigint;
  /** Local port of the client side (what a thread knows of its own connection); null when the timeline did not say. */
  readonly clientPort: number | null;
}

/** First to last moment the fault acted, over every connection it acted on. */
export interface FaultSpread {
  readonly firstNs: bigint;
  readonly lastNs: bigint;
  /** lastNs - firstNs, in ms. */
  readonly spreadMs: number;
  readonly connections: number;
}

/** The first time the fault acted on each connection, oldest first. */
export function actedConnections(events: readonly FaultEvent[] | null, fault: Pick<FaultDefinition, 'acted'>): ActedConnection[] {
  if (!events) return [];
  const firstByConnection = new Map<string, ActedConnection>();
  for (const event of events) {
    if (!fault.acted(event)) continue;
    const timeNs = BigInt(event.at_ns);
    // An event without a connection id or client counts as a connection of its own.
    const key = String(event.connection_id ?? event.client ?? `event-${firstByConnection.size}`);
    const known = firstByConnection.get(key);
    if (!known || timeNs < known.timeNs) firstByConnection.set(key, { timeNs, clientPort: clientPortOf(event) });
  }
  return [...firstByConnection.values()].sort((a, b) => (a.timeNs < b.timeNs ? -1 : a.timeNs > b.timeNs ? 1 : 0));
}

/** The port of `host:port` (IPv6 `[::1]:port` too); null when there is none. */
export function clientPortOf(event: Pick<FaultEvent, 'client'>): number | null {
  const port = Number(event.client?.slice(event.client.lastIndexOf(':') + 1));
  return Number.isInteger(port) && port > 0 ? port : null;
}

/**
 * The fault spread of `acted` (as from `actedConnections`); null when the fault acted on no
 * connection the timeline knows of (no timeline, e.g. real Toxiproxy).
 * @example faultSpread([{ timeNs: 5_000_000n, clientPort: 1 }, { timeNs: 9_000_000n, clientPort: 2 }]) // spreadMs 4
 */
export function faultSpread(acted: readonly ActedConnection[]): FaultSpread | null {
  if (acted.length === 0) return null;
  let firstNs = acted[0]!.timeNs;
  let lastNs = firstNs;
  for (const { timeNs } of acted) {
    if (timeNs < firstNs) firstNs = timeNs;
    if (timeNs > lastNs) lastNs = timeNs;
  }
  return { firstNs, lastNs, spreadMs: elapsedMs(firstNs, lastNs), connections: acted.length };
}

/** Each client port's fault moment (ports the timeline did not name are left out). */
export function faultMomentsByPort(acted: readonly ActedConnection[]): ReadonlyMap<number, bigint> {
  const byPort = new Map<number, bigint>();
  for (const { timeNs, clientPort } of acted) if (clientPort !== null) byPort.set(clientPort, timeNs);
  return byPort;
}

/** The moment figures are timed from, and how it is known. */
export interface FaultReference {
  readonly ns: bigint;
  /** True when the proxy's timeline gave it (the fault acting on a connection). */
  readonly exact: boolean;
  readonly source: 'proxy_timeline' | 'api_call_start';
  /** `proxy fault timeline (first RST sent)` / `start of the injecting call`. */
  readonly description: string;
}

/**
 * The reference of a fault: the first moment it acted on a connection when the timeline saw one
 * (exact), else the start of the call that injected it, which no effect of the fault can precede
 * (every latency timed from it is an upper bound).
 */
export function faultReference(
  acted: readonly ActedConnection[],
  fault: Pick<FaultDefinition, 'actedWords'>,
  injectionStartedNs: bigint,
): FaultReference {
  const spread = faultSpread(acted);
  if (spread === null)
    return { ns: injectionStartedNs, exact: false, source: 'api_call_start', description: 'start of the injecting call' };
  return { ns: spread.firstNs, exact: true, source: 'proxy_timeline', description: `proxy fault timeline (${fault.actedWords})` };
}

/**
 * The moment recovery is timed from: the fault's removal as the broker or the proxy saw it. Exact
 * where the timeline shows the removal reaching a connection (definition.removedWhen: the broker's
 * connection.unblocked, the proxy closing what a silence held), per connection where it names it;
 * for a fault with nothing to undo (a close is over once it happened), the fault's own moment;
 * else the start of the call that undid it (no effect of the removal can precede it: an upper bound).
 */
export interface RemovalReference {
  /** The cell's moment: the first removal seen, or the fallback. */
  readonly ns: bigint;
  readonly exact: boolean;
  readonly source: 'proxy_timeline' | 'fault_moment' | 'api_call_start';
  readonly description: string;
  /** Each client port's own removal moment, where the timeline (or the fault's own moment) names it. */
  readonly byPort: ReadonlyMap<number, bigint>;
}

export function removalReference(
  events: readonly FaultEvent[] | null,
  fault: Pick<FaultDefinition, 'removedWhen' | 'removedWords'>,
  removal: { readonly startedNs: bigint; readonly method: string },
  faultMoment: { readonly reference: FaultReference; readonly byPort: ReadonlyMap<number, bigint> },
): RemovalReference {
  const removedWhen = fault.removedWhen;
  // No removal reaches a connection before the call that undid the fault started.
  const sinceRemoval = events?.filter((event) => BigInt(event.at_ns) >= removal.startedNs) ?? null;
  const removed = removedWhen ? actedConnections(sinceRemoval, { acted: removedWhen }) : [];
  const spread = faultSpread(removed);
  if (spread !== null)
    return {
      ns: spread.firstNs,
      exact: true,
      source: 'proxy_timeline',
      description: `proxy fault timeline (${fault.removedWords ?? 'the removal'})`,
      byPort: faultMomentsByPort(removed),
    };
  if (removal.method === 'nothing_to_undo')
    return {
      ns: faultMoment.reference.ns,
      exact: faultMoment.reference.exact,
      source: 'fault_moment',
      description: `the fault's own moment (nothing to undo: ${faultMoment.reference.description})`,
      byPort: faultMoment.byPort,
    };
  return {
    ns: removal.startedNs,
    exact: false,
    source: 'api_call_start',
    description: 'start of the call that undid the fault',
    byPort: new Map(),
  };
}
