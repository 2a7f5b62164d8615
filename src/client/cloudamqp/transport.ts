/**
 * The TCP transport under an `AMQPSession`. The session keeps its `AMQPClient` in a private
 * field (`client`, private in the library's types, present since `AMQPSession` appeared in 4.0):
 * the adapter needs it for two things the session does not expose, the socket (its local port
 * matches the proxy's record of the connection) and the client's `onerror` callback (the
 * earliest event of a broken connection, one event-loop turn before the session's
 * `ondisconnect` on a reset).
 */
import type { Socket } from 'node:net';
import { AMQPClient, type AMQPSession } from './amqpClient';

/**
 * The session's `AMQPClient`.
 * @throws Error when the session runs over WebSocket or the library moved its internals
 */
export function transportOf(session: AMQPSession): AMQPClient {
  const client = (session as unknown as { client?: unknown }).client;
  if (!(client instanceof AMQPClient)) {
    throw new Error(
      '@cloudamqp/amqp-client: the session has no TCP AMQPClient in its `client` field (a ws:// URL, or a library version that moved it); use an amqp:// or amqps:// URL, or update src/client/cloudamqp/transport.ts',
    );
  }
  return client;
}

/** The client's current socket: set by `connect()` for every attempt, cleared when it closes. */
export function socketOf(client: AMQPClient | undefined): Socket | undefined {
  const socket = client?.socket;
  return socket && !socket.destroyed ? socket : undefined;
}

/**
 * True for an `onerror` call that is about one channel on a live connection: the library
 * words those `Channel <id> closed: <reason>` and sends them through the connection's
 * `onerror` too. When the connection itself breaks, the client is already marked closed
 * (socket close), or the error is the socket's own (`read ECONNRESET`) or the broker's
 * `connection closed: … (320)`.
 */
export function isChannelOnlyError(client: AMQPClient, error: Error): boolean {
  return !client.closed && /^Channel \d+ closed: /.test(error.message);
}
