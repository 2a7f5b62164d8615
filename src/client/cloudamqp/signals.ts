/**
 * @cloudamqp/amqp-client's own typed signals (4.1.1: `amqp-base-client.ts`, `amqp-channel.ts`,
 * `amqp-consumer.ts`, `amqp-session.ts`), and how the adapter tells them apart. The library's
 * errors are all one class (`AMQPError`, no code), so they are told by its own words, quoted
 * from its source. The adapter maps them and adds nothing: the session's recovery (at its next
 * reconnection) is the only one.
 */
import type { SignalSupport } from '../api';
import { classifyFault, faultMessage, type FaultKind } from '../faults';

/** How @cloudamqp/amqp-client gives each signal (`ClientInfo.signals`). */
export const CLOUDAMQP_SIGNALS: SignalSupport = Object.freeze({
  channel_closed:
    "the rejection 'channel <n> closed: <reply text> (<code>)' of every publish and call pending on that channel (the " +
    "session's shared confirm channel: every publisher's pending confirms), reopened by the session on the next publish; " +
    "a subscription's channel: the connection's onerror 'Channel <n> closed: ...' (that subscription is dead until the " +
    "session's next reconnection); a plain publish resolves once written and the session silences its channel's close " +
    '(told only to a call still pending on that channel, such as a flush)',
  consumer_cancelled:
    "no event: AMQPConsumer.wait() rejects with 'Consumer cancelled by the server' (no session or connection callback); " +
    'the channel stays open and the session does not consume again until its next reconnection',
  blocked:
    "AMQPSession option onblocked(reason); meanwhile every publish rejects at once with 'Connection blocked by server: " +
    "<reason>' (nothing corked, other calls work); the client keeps that state until a connection.unblocked, even across a " +
    'reconnection (a broker sends unblocked only on a connection it blocked)',
  unblocked: 'AMQPSession option onunblocked()',
});

/**
 * The broker closed a channel (channel.close on a live connection): the library's words for the
 * calls it rejects (`channel 2 closed: NOT_FOUND - … (404)`), and for its connection's onerror
 * (`Channel 3 closed: channel 3 closed: … (406)`). A channel closed with its connection reads
 * `Channel 0 closed: connection closed: …` or carries the socket's error: not a channel close.
 */
export function isServerChannelClose(error: unknown): boolean {
  return /^(?:Channel \d+ closed: )?channel \d+ closed: .*\(\d+\)$/s.test(faultMessage(error));
}

/** The broker's basic.cancel, as the library rejects `AMQPConsumer.wait()` with it. */
export function isCancelledByServer(error: unknown): boolean {
  return faultMessage(error) === 'Consumer cancelled by the server';
}

/** basic.nack of a confirmed publish: the library rejects it with a plain `Error('Message rejected')`. */
export function isNack(error: unknown): boolean {
  return faultMessage(error) === 'Message rejected' && (error as { name?: unknown } | null)?.name !== 'AMQPError';
}

/** A publish refused by the library itself while the broker has the connection blocked. */
export function isBlockedRefusal(error: unknown): boolean {
  return /^Connection blocked by server/.test(faultMessage(error));
}

/** A failed call's fault kind on a live connection: blocked and channel closes in the library's words, the rest as any fault. */
export function failureKind(error: unknown): FaultKind {
  if (isBlockedRefusal(error)) return 'blocked';
  if (isServerChannelClose(error)) return 'channel_closed';
  return classifyFault(error);
}
