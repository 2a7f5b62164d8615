import { AmqpFrameScanner, type AmqpFrameEvent } from '../../src/proxy/amqpFrames';

/** One AMQP 0-9-1 frame: type, channel, payload, frame end. */
function frame(type: number, channel: number, payload: Buffer): Buffer {
  const header = Buffer.alloc(7);
  header.writeUInt8(type, 0);
  header.writeUInt16BE(channel, 1);
  header.writeUInt32BE(payload.length, 3);
  return Buffer.concat([header, payload, Buffer.from([0xce])]);
}

function method(classId: number, methodId: number, args: Buffer = Buffer.alloc(0)): Buffer {
  const ids = Buffer.alloc(4);
  ids.writeUInt16BE(classId, 0);
  ids.writeUInt16BE(methodId, 2);
  return Buffer.concat([ids, args]);
}

/** reply-code (short), reply-text (shortstr), class-id, method-id. */
function closeArgs(code: number, text: string): Buffer {
  const head = Buffer.alloc(3);
  head.writeUInt16BE(code, 0);
  head.writeUInt8(Buffer.byteLength(text), 2);
  return Buffer.concat([head, Buffer.from(text), Buffer.alloc(4)]);
}

function scan(clientSide: boolean, chunks: readonly Buffer[]): AmqpFrameEvent[] {
  const seen: AmqpFrameEvent[] = [];
  const scanner = new AmqpFrameScanner(clientSide, (event) => seen.push(event));
  for (const chunk of chunks) scanner.scan(chunk);
  return seen;
}

const body = frame(3, 1, Buffer.alloc(300, 7));
const publish = frame(1, 1, method(60, 40, Buffer.alloc(10)));
const connectionClose = frame(1, 0, method(10, 50, closeArgs(320, 'CONNECTION_FORCED - broker forced connection closure')));
const channelClose = frame(1, 2, method(20, 40, closeArgs(404, "NOT_FOUND - no exchange 'x' in vhost '/'")));
const cancel = frame(1, 3, method(60, 30, Buffer.from([3, 0x61, 0x62, 0x63, 0])));
const blocked = frame(1, 0, method(10, 60, Buffer.from([3, 0x6d, 0x65, 0x6d])));

describe('AmqpFrameScanner', () => {
  it('reads the frames that matter to a fault, with their reply codes, and skips every other frame', () => {
    expect(scan(false, [Buffer.concat([publish, body, connectionClose, channelClose, body, cancel, blocked])])).toEqual([
      { method: 'connection.close', channel: 0, replyCode: 320, replyText: 'CONNECTION_FORCED - broker forced connection closure' },
      { method: 'channel.close', channel: 2, replyCode: 404, replyText: "NOT_FOUND - no exchange 'x' in vhost '/'" },
      { method: 'basic.cancel', channel: 3 },
      { method: 'connection.blocked', channel: 0, reason: 'mem' },
    ]);
  });

  it('finds them however the stream is cut into chunks (every byte on its own)', () => {
    const stream = Buffer.concat([body, channelClose, publish, connectionClose]);
    const bytes = [...stream].map((byte) => Buffer.from([byte]));
    expect(scan(false, bytes).map((event) => [event.method, event.replyCode])).toEqual([
      ['channel.close', 404],
      ['connection.close', 320],
    ]);
  });

  it("reads a client's basic.consume and the broker's basic.consume-ok (what a library does about a cancel)", () => {
    const consume = frame(1, 1, method(60, 20, Buffer.alloc(12)));
    const consumeOk = frame(1, 1, method(60, 21, Buffer.from([3, 0x61, 0x62, 0x63])));
    expect(scan(false, [Buffer.concat([consume, body, consumeOk])])).toEqual([
      { method: 'basic.consume', channel: 1 },
      { method: 'basic.consume-ok', channel: 1 },
    ]);
  });

  it('skips the protocol header a client sends first', () => {
    const header = Buffer.from('AMQP\x00\x00\x09\x01', 'latin1');
    expect(scan(true, [Buffer.concat([header, publish]), frame(1, 0, method(10, 51))])).toEqual([
      { method: 'connection.close-ok', channel: 0 },
    ]);
  });

  it('leaves a stream that is not AMQP alone, rather than reading frames into noise', () => {
    expect(scan(true, [Buffer.from('GET / HTTP/1.1\r\n\r\n'), connectionClose])).toEqual([]);
    // A frame end that is not 0xCE: lost track, nothing more is read.
    const broken = Buffer.from(channelClose);
    broken[broken.length - 1] = 0;
    expect(scan(false, [broken, connectionClose])).toEqual([]);
  });
});
