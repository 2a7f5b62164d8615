import { amqplibFaultWords } from '../../src/client/amqplib/library';
import { classifyFault, faultErrorOf, type FaultWords } from '../../src/client/faults';
import { rabbitmqClientFaultWords } from '../../src/client/rabbitmqClient/library';
import { classifyAnyClientFault } from '../../src/client/registry';

/** Which library's words a case is read with (the folder's library.ts declares them). */
const WORDS: Readonly<Record<string, FaultWords | undefined>> = { amqplib: amqplibFaultWords, 'rabbitmq-client': rabbitmqClientFaultWords };
const wordsOf = (label: string) => Object.entries(WORDS).find(([library]) => label.includes(library))?.[1];

describe('fault kinds', () => {
  it.each([
    ['a socket reset', Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }), 'reset'],
    ['a write into a reset socket', Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }), 'reset'],
    ["amqplib's FIN", new Error('Unexpected close'), 'closed'],
    [
      "amqplib's channel error that took the connection down",
      new Error('Channel closed by server: 505 (UNEXPECTED-FRAME)'),
      'channel_closed',
    ],
    // @cloudamqp/amqp-client: AMQPError keeps the socket error's message, not its code.
    ["@cloudamqp/amqp-client's reset", new Error('read ECONNRESET'), 'reset'],
    ["@cloudamqp/amqp-client's write into a reset socket", new Error('write EPIPE'), 'reset'],
    ["@cloudamqp/amqp-client's FIN", new Error('Socket closed'), 'closed'],
    ["@cloudamqp/amqp-client's FIN, told through a consumer's channel", new Error('Channel 2 closed: Socket closed'), 'closed'],
    ["@cloudamqp/amqp-client's missed heartbeats", new Error('Heartbeat timeout'), 'heartbeat'],
    [
      "@cloudamqp/amqp-client's broker close",
      new Error('connection closed: CONNECTION_FORCED - Closed via management plugin (320)'),
      'broker_closed',
    ],
    ['missed heartbeats', new Error('Heartbeat timeout'), 'heartbeat'],
    [
      'a broker shutting down',
      Object.assign(
        new Error(
          'Connection closed: 320 (CONNECTION-FORCED) with message "CONNECTION_FORCED - broker forced connection closure with reason \'shutdown\'"',
        ),
        { code: 320 },
      ),
      'broker_closed',
    ],
    // rabbitmq-client 5.x (AMQPConnectionError: code and message from lib/Connection.js).
    ["rabbitmq-client's FIN", Object.assign(new Error('socket closed unexpectedly by server'), { code: 'CONN_CLOSE' }), 'closed'],
    [
      "rabbitmq-client's missed heartbeats",
      Object.assign(new Error('socket timed out (no heartbeat)'), { code: 'SOCKET_TIMEOUT' }),
      'heartbeat',
    ],
    [
      "rabbitmq-client's broker close",
      Object.assign(new Error("CONNECTION_FORCED - broker forced connection closure with reason 'shutdown'"), {
        code: 'CONNECTION_FORCED',
      }),
      'broker_closed',
    ],
    ["rabbitmq-client's FIN told by code alone", Object.assign(new Error('gone'), { code: 'CONN_CLOSE' }), 'closed'],
    ["rabbitmq-client's missed heartbeats told by code alone", Object.assign(new Error('gone'), { code: 'SOCKET_TIMEOUT' }), 'heartbeat'],
    ["rabbitmq-client's broker close told by code alone", Object.assign(new Error('gone'), { code: 'CONNECTION_FORCED' }), 'broker_closed'],
    ['a connection taken down by a channel error', new Error('Channel closed by server: 404 (NOT-FOUND)'), 'channel_closed'],
    ['a precondition failure told by code', Object.assign(new Error('gone'), { code: 406 }), 'channel_closed'],
    ['anything else', new Error('socket hang up somewhere'), 'error'],
    ['not even an error', undefined, 'error'],
  ])('names %s', (label, error, kind) => {
    expect(classifyFault(error, wordsOf(label))).toBe(kind);
    // Code that handles any client's errors reads them with every library's words.
    expect(classifyAnyClientFault(error)).toBe(kind);
  });

  it("reads a library's own codes only with its words", () => {
    const finByCode = Object.assign(new Error('gone'), { code: 'CONN_CLOSE' });
    expect(classifyFault(finByCode)).toBe('error');
    expect(classifyFault(finByCode, rabbitmqClientFaultWords)).toBe('closed');
    expect(classifyFault(new Error('Unexpected close'))).toBe('error');
    expect(classifyFault(new Error('Unexpected close'), amqplibFaultWords)).toBe('closed');
  });

  it("never lets a library's words hide a reset or a broker's close", () => {
    const resetWithCode = Object.assign(new Error('read ECONNRESET'), { code: 'CONN_CLOSE' });
    expect(classifyFault(resetWithCode, rabbitmqClientFaultWords)).toBe('reset');
    const forcedThroughChannel = new Error('Channel closed by server: 320 (CONNECTION-FORCED) with message "CONNECTION_FORCED - shutdown"');
    expect(classifyFault(forcedThroughChannel, amqplibFaultWords)).toBe('broker_closed');
  });
});

describe("a library call's error as its caller gets it", () => {
  it('takes the outage’s kind and moment while the connection is down, else the kind its words read, now', () => {
    const reset = Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
    const outage = { kind: 'heartbeat' as const, message: 'missed heartbeats', detectedNs: 42n };
    const during = faultErrorOf(outage, 'publish', reset, amqplibFaultWords);
    expect([during.kind, during.detectedNs, during.cause]).toEqual(['heartbeat', 42n, reset]);
    expect(during.message).toBe('publish: read ECONNRESET (connection lost: missed heartbeats)');
    const before = process.hrtime.bigint();
    const up = faultErrorOf(undefined, 'publish', new Error('Unexpected close'), amqplibFaultWords);
    expect([up.kind, up.message, up.detectedNs >= before]).toEqual(['closed', 'publish: Unexpected close', true]);
    // A library that rejects with nothing gives its own words for it.
    expect(faultErrorOf(undefined, 'publish', undefined, amqplibFaultWords, 'its channel closed').message).toBe(
      'publish: its channel closed',
    );
  });
});
