/**
 * What a client learned when its connection failed, as a kind a reader can act on: the same
 * names for every library, so results say which fault was measured (a reset is not a close).
 */
import { nowNs } from '../measure/clock';
import type { ClientFault } from './api';
import { ClientFaultError } from './types';

/**
 * - `reset`: the peer reset the TCP connection (RST; `ECONNRESET`);
 * - `closed`: the peer closed it without an AMQP close (FIN; amqplib "Unexpected close");
 * - `broker_closed`: the broker closed the connection with an AMQP close (e.g. 320 CONNECTION_FORCED on shutdown);
 * - `heartbeat`: missed heartbeats;
 * - `deadline`: silence until the client's own deadline passed (a drain deadline), no socket event;
 * - `error`: anything else (the message says what);
 * and the typed signals of a connection that stays up (the library's own events, where it has them):
 * - `channel_closed`: the broker closed one of its channels (channel.close, e.g. 404 NOT_FOUND);
 * - `consumer_cancelled`: the broker cancelled one of its consumers (basic.cancel);
 * - `blocked`: the broker blocked its publishers (connection.blocked, a resource alarm);
 * - `backpressure`: the library said its writes are held (amqplib's `publish()` returned false,
 *   until 'drain'; rascal's channel pool 'busy', until 'ready'): the peer stopped reading.
 */
export const FAULT_KINDS = [
  'reset',
  'closed',
  'broker_closed',
  'heartbeat',
  'deadline',
  'error',
  'channel_closed',
  'consumer_cancelled',
  'blocked',
  'backpressure',
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

/**
 * What a thread received, as results record it: `none` (it noticed nothing), then the fault kinds.
 * The one list: thread boards store the index into it, and schemas/raw-result.schema.json's
 * `faultKind` enum is checked against it by a unit test.
 */
export const RECEIVED_KINDS = ['none', ...FAULT_KINDS] as const;
export type ReceivedKind = (typeof RECEIVED_KINDS)[number];
/** A received kind's index in RECEIVED_KINDS (what a shared-memory slot holds). */
export const RECEIVED_KIND_CODES = Object.fromEntries(RECEIVED_KINDS.map((name, code) => [name, code])) as Readonly<
  Record<ReceivedKind, number>
>;

/** How a report names each kind. */
export const FAULT_KIND_LABELS: Readonly<Record<FaultKind, string>> = {
  reset: 'RST (ECONNRESET)',
  closed: 'FIN (connection closed)',
  broker_closed: 'closed by the broker (AMQP close)',
  heartbeat: 'missed heartbeats',
  deadline: 'silence (client deadline)',
  error: 'other error',
  channel_closed: 'channel closed by the broker',
  consumer_cancelled: 'consumer cancelled by the broker',
  blocked: 'blocked by the broker (connection.blocked)',
  backpressure: "the library's back-pressure signal (writes held)",
};

/** How results word each kind in a count (`RST ×10`). */
export const RECEIVED_KIND_WORDS: Readonly<Record<ReceivedKind, string>> = {
  none: 'nothing',
  reset: 'RST',
  closed: 'FIN',
  broker_closed: 'an AMQP close',
  heartbeat: 'missed heartbeats',
  deadline: 'silence (deadline)',
  error: 'another error',
  channel_closed: 'a channel close',
  consumer_cancelled: 'a consumer cancel',
  blocked: 'connection.blocked',
  backpressure: 'back-pressure',
};

/** `FIN ×10` / `RST ×7, FIN ×3`. */
export function describeReceived(received: Readonly<Record<string, number>>): string {
  return Object.entries(received)
    .map(([kind, count]) => `${RECEIVED_KIND_WORDS[kind as ReceivedKind] ?? kind} ×${count}`)
    .join(', ');
}

/** A library's own reading of its errors: the kind, or undefined where it has nothing to add. */
export type FaultWords = (error: unknown) => FaultKind | undefined;

/**
 * The kind of a failure reported by a Node socket or by a client library built on one: first what
 * every library shares — Node's socket codes (`ECONNRESET`, `EPIPE`), AMQP reply codes and texts
 * (320 CONNECTION_FORCED, 404 NOT_FOUND, 406 PRECONDITION_FAILED), the common words for a missed
 * heartbeat or a closed socket — then the library's own codes and words (`words`, declared in its
 * folder's library.ts), so a library's reading never hides a reset or a broker's close.
 */
export function classifyFault(error: unknown, words?: FaultWords): FaultKind {
  const code = (error as { code?: unknown } | null | undefined)?.code;
  const message = faultMessage(error);
  if (code === 'ECONNRESET' || /ECONNRESET|reset by peer/i.test(message)) return 'reset';
  // A library that re-wraps socket errors may keep the message (`write EPIPE`) but not the code.
  if (code === 'EPIPE' || code === 'ECONNABORTED' || /\b(?:EPIPE|ECONNABORTED)\b/.test(message)) return 'reset';
  if (/heartbeat/i.test(message)) return 'heartbeat';
  if (code === 320 || /CONNECTION_FORCED|connection[_ ]forced|broker forced/i.test(message)) return 'broker_closed';
  // A connection taken down by a channel error the library did not contain (404 NOT_FOUND, 406 PRECONDITION_FAILED).
  if (code === 404 || code === 406 || /\b(?:NOT[_-]FOUND|PRECONDITION[_-]FAILED)\b/.test(message)) return 'channel_closed';
  if (/socket (?:closed|ended)|ended by the server|closed by the server|\bEOF\b/i.test(message)) return 'closed';
  return words?.(error) ?? 'error';
}

/**
 * The message of anything thrown or emitted. Duck-typed: an error from another realm (Node's
 * socket errors seen inside Jest's sandbox) is not `instanceof Error` here.
 */
export function faultMessage(error: unknown): string {
  const message = (error as { message?: unknown } | null | undefined)?.message;
  return typeof message === 'string' ? message : String(error ?? '');
}

/**
 * A library call's `error` as the ClientFaultError its caller gets: while the connection is down,
 * the outage's own kind and moment (the error is its consequence, told later); else now, and the
 * kind `classifyFault` reads in it with the library's `words`.
 */
export function faultErrorOf(
  outage: ClientFault | undefined,
  what: string,
  error: unknown,
  words: FaultWords,
  message: string = error instanceof Error ? error.message : String(error),
): ClientFaultError {
  return outage
    ? new ClientFaultError(`${what}: ${message} (connection lost: ${outage.message})`, outage.detectedNs, outage.kind, { cause: error })
    : new ClientFaultError(`${what}: ${message}`, nowNs(), classifyFault(error, words), { cause: error });
}
