/**
 * rabbitmq-client's own typed signals (5.0.8, `lib/Connection.js`, `lib/Channel.js`,
 * `lib/Consumer.js`): what the library emits when the broker closes a channel, cancels a
 * consumer or blocks the connection, and how the adapter tells those errors apart from a broken
 * connection. The adapter maps them and adds nothing: the library's own recovery (a Publisher
 * opens a new channel on its next send, a Consumer sets itself up again) is the only one.
 */
import { AMQPChannelError, AMQPConnectionError, AMQPError } from 'rabbitmq-client';
import type { SignalSupport } from '../api';

/** How rabbitmq-client gives each signal (`ClientInfo.signals`). */
export const RABBITMQ_CLIENT_SIGNALS: SignalSupport = Object.freeze({
  channel_closed:
    "the close's AMQPChannelError (code NOT_FOUND, PRECONDITION_FAILED, ...; '<Method>: <reply text>'): confirmed Publisher: " +
    'the rejection of the OLDEST unconfirmed send of the channel, not necessarily the send that caused it, every other pending ' +
    "send rejected with CH_CLOSE 'channel is closed'; plain Publisher: Connection 'error' (its send resolved once written); " +
    "Consumer: Consumer 'error' (of a series of failed setups, the first only). The next send, or the Consumer's own " +
    're-setup, opens a new channel',
  consumer_cancelled:
    "Consumer 'error' with AMQPError CANCEL_FORCED 'cancelled by server' (basic.cancel); the Consumer then sets itself up " +
    'again with its backoff; its passive queue declare fails, silently, until the queue exists again',
  blocked:
    "Connection 'connection.blocked' event (the reason); the library corks its socket: plain sends resolve unsent until the " +
    'socket buffer is full, then hang; confirms, channel opens and closes hang until unblocked (no timeout of its own)',
  unblocked: "Connection 'connection.unblocked' event; the socket is uncorked and what waited goes out",
});

/**
 * The error a broker's channel.close produced: an AMQPChannelError that is neither a connection
 * failure (AMQPConnectionError extends AMQPChannelError) nor the aftermath the library gives the
 * other pending calls of that channel (`CH_CLOSE`), nor the closed Publisher's own refusal (`CLOSED`).
 */
export function isServerChannelClose(error: unknown): error is AMQPChannelError {
  return isChannelError(error) && error.code !== 'CH_CLOSE';
}

/** An error about one channel, not the connection (AMQPConnectionError extends AMQPChannelError). */
export function isChannelLevel(error: unknown): error is AMQPChannelError {
  return error instanceof AMQPChannelError && !(error instanceof AMQPConnectionError);
}

/** A channel that failed on a live connection: a server close or its `CH_CLOSE` aftermath (a publish's fault kind). */
export function isChannelError(error: unknown): error is AMQPChannelError {
  return isChannelLevel(error) && error.code !== 'CLOSED';
}

/** basic.cancel from the broker: the library's `CANCEL_FORCED` (a plain AMQPError, the channel stays open). */
export function isCancelledByServer(error: unknown): error is AMQPError {
  return error instanceof AMQPError && error.code === 'CANCEL_FORCED';
}

/** basic.nack of a confirmed send: the library's `NACK` (a plain AMQPError). */
export function isNack(error: unknown): error is AMQPError {
  return error instanceof AMQPError && error.code === 'NACK';
}
