/**
 * How the rabbitmq-client and cloudamqp adapters tell a library's signal from a broken
 * connection, on the libraries' own errors and words (quoted from their sources and from the
 * integration runs): a channel closed along with its connection must never read as a channel
 * the broker closed.
 */
import { AMQPChannelError, AMQPConnectionError, AMQPError } from 'rabbitmq-client';
import * as cloudamqp from '../../src/client/cloudamqp/signals';
import * as rabbitmqClient from '../../src/client/rabbitmqClient/signals';

/** rabbitmq-client's error classes take (code, message); their constructors are internal to its types. */
function rc<T>(type: abstract new (...args: never[]) => T, code: string, message: string): T {
  return new (type as unknown as new (code: string, message: string) => T)(code, message);
}

describe("rabbitmq-client's signals, by its error classes and codes", () => {
  it.each([
    ['a confirmed send to a deleted exchange', true, rc(AMQPChannelError, 'NOT_FOUND', "BasicPublish: NOT_FOUND - no exchange 'x'")],
    ["the other sends of that channel (the close's aftermath)", false, rc(AMQPChannelError, 'CH_CLOSE', 'channel is closed')],
    ["the closed Publisher's own refusal", false, rc(AMQPChannelError, 'CLOSED', 'publisher is closed')],
    ['a broker close of the connection', false, rc(AMQPConnectionError, 'CONNECTION_FORCED', 'CONNECTION_FORCED - bye')],
    ['a nack', false, rc(AMQPError, 'NACK', 'message rejected by server')],
  ])('%s: a channel the broker closed? %s', (_what, expected, error) => {
    expect(rabbitmqClient.isServerChannelClose(error)).toBe(expected);
  });

  it('tells a cancel and a nack by their codes, and a CH_CLOSE aftermath is still a channel error', () => {
    expect(rabbitmqClient.isCancelledByServer(rc(AMQPError, 'CANCEL_FORCED', 'cancelled by server'))).toBe(true);
    expect(rabbitmqClient.isNack(rc(AMQPError, 'NACK', 'message rejected by server'))).toBe(true);
    expect(rabbitmqClient.isChannelError(rc(AMQPChannelError, 'CH_CLOSE', 'channel is closed'))).toBe(true);
    expect(rabbitmqClient.isChannelError(rc(AMQPChannelError, 'CLOSED', 'publisher is closed'))).toBe(false);
    expect(rabbitmqClient.isChannelLevel(rc(AMQPChannelError, 'CLOSED', 'publisher is closed'))).toBe(true);
    expect(rabbitmqClient.isChannelLevel(rc(AMQPConnectionError, 'CONN_CLOSE', 'socket closed unexpectedly by server'))).toBe(false);
  });
});

describe("@cloudamqp/amqp-client's signals, by its words", () => {
  it.each([
    ['a publish rejected by a channel close', "channel 2 closed: NOT_FOUND - no exchange 'x' in vhost '/' (404)", 'channel_closed'],
    [
      "a subscription's channel, through onerror",
      'Channel 3 closed: channel 3 closed: PRECONDITION_FAILED - unknown delivery tag 1 (406)',
      'channel_closed',
    ],
    ['channel 0 before a broker close', 'Channel 0 closed: connection closed: CONNECTION_FORCED - bye (320)', 'broker_closed'],
    [
      "a subscription's channel before a broker close",
      'Channel 2 closed: connection closed: CONNECTION_FORCED - bye (320)',
      'broker_closed',
    ],
    ["a subscription's channel on a FIN", 'Channel 2 closed: Socket closed', 'closed'],
    ['a publish refused while blocked', 'Connection blocked by server: low on memory', 'blocked'],
    ['a reset', 'read ECONNRESET', 'reset'],
  ])('%s: %j is %s', (_what, message, kind) => {
    const error = Object.assign(new Error(message), { name: 'AMQPError' });
    expect(cloudamqp.failureKind(error)).toBe(kind);
    expect(cloudamqp.isServerChannelClose(error)).toBe(kind === 'channel_closed');
  });

  it("tells the broker's cancel and a nack by the library's exact words", () => {
    expect(cloudamqp.isCancelledByServer(Object.assign(new Error('Consumer cancelled by the server'), { name: 'AMQPError' }))).toBe(true);
    expect(cloudamqp.isCancelledByServer(new Error('channel 1 closed: NOT_FOUND - no queue (404)'))).toBe(false);
    // The library rejects a nacked publish with a plain Error, not its AMQPError.
    expect(cloudamqp.isNack(new Error('Message rejected'))).toBe(true);
    expect(cloudamqp.isNack(Object.assign(new Error('Message rejected'), { name: 'AMQPError' }))).toBe(false);
  });
});
