/**
 * A tiny TCP relay in front of the real broker that can put a frame of its own into what the
 * clients receive: how a test gives a client connection.blocked / connection.unblocked without
 * alarming the shared broker (never set an alarm or a watermark on it). Broker-to-client bytes
 * are forwarded one whole frame at a time, so an injected frame always lands between frames.
 * It can also hold what clients send (the broker never sees it, so never confirms it) until
 * released. Always `close()` it: it destroys every socket it holds.
 */
import net, { type AddressInfo } from 'node:net';

export interface AmqpRelay {
  /** The broker through the relay, with the credentials of the upstream URL. */
  readonly url: string;
  /** Client connections open through the relay now. */
  readonly connections: number;
  /** Writes `frame` to every client connection, between two of the broker's frames. */
  inject(frame: Buffer): void;
  /** `true`: keeps what clients send from now on (every connection, new ones too); `false`: sends what was kept, and forwards again. */
  holdToBroker(hold: boolean): void;
  close(): Promise<void>;
}

/** AMQP 0-9-1 frame: type 1 (method), channel, size, class id, method id, arguments, frame-end 0xCE. */
function methodFrame(channel: number, classId: number, methodId: number, args: Buffer): Buffer {
  const header = Buffer.alloc(11);
  header.writeUInt8(1, 0);
  header.writeUInt16BE(channel, 1);
  header.writeUInt32BE(4 + args.length, 3);
  header.writeUInt16BE(classId, 7);
  header.writeUInt16BE(methodId, 9);
  return Buffer.concat([header, args, Buffer.from([0xce])]);
}

/** connection.blocked (class 10, method 60) with its shortstr reason, on channel 0. */
export function connectionBlockedFrame(reason: string): Buffer {
  const text = Buffer.from(reason, 'utf8');
  if (text.length > 255) throw new Error(`a shortstr holds 255 bytes; the reason has ${text.length}`);
  return methodFrame(0, 10, 60, Buffer.concat([Buffer.from([text.length]), text]));
}

/** connection.unblocked (class 10, method 61), on channel 0. */
export function connectionUnblockedFrame(): Buffer {
  return methodFrame(0, 10, 61, Buffer.alloc(0));
}

/** Splits what the broker sends into whole frames (7-byte header, payload, frame-end) and forwards each. */
function frameForwarder(write: (frame: Buffer) => void): (chunk: Buffer) => void {
  let pending: Buffer = Buffer.alloc(0);
  return (chunk) => {
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    while (pending.length >= 7) {
      const total = 7 + pending.readUInt32BE(3) + 1;
      if (pending.length < total) break;
      write(pending.subarray(0, total));
      pending = pending.subarray(total);
    }
  };
}

export async function startAmqpRelay(upstreamUrl: string): Promise<AmqpRelay> {
  const upstream = new URL(upstreamUrl);
  const pairs = new Set<{ client: net.Socket; broker: net.Socket; held: Buffer[] }>();
  let holding = false;
  const server = net.createServer((client) => {
    const broker = net.connect(Number(upstream.port || 5672), upstream.hostname);
    const pair = { client, broker, held: [] as Buffer[] };
    pairs.add(pair);
    client.on('data', (chunk: Buffer) => (holding ? pair.held.push(chunk) : broker.write(chunk)));
    broker.on(
      'data',
      frameForwarder((frame) => client.write(frame)),
    );
    const drop = () => {
      pairs.delete(pair);
      client.destroy();
      broker.destroy();
    };
    for (const socket of [client, broker]) {
      socket.on('error', drop);
      socket.on('close', drop);
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const relayed = new URL(upstreamUrl);
  relayed.hostname = '127.0.0.1';
  relayed.port = String((server.address() as AddressInfo).port);
  return {
    url: relayed.toString(),
    get connections() {
      return pairs.size;
    },
    inject(frame) {
      for (const { client } of pairs) client.write(frame);
    },
    holdToBroker(hold) {
      holding = hold;
      if (hold) return;
      for (const pair of pairs) for (const chunk of pair.held.splice(0)) pair.broker.write(chunk);
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const { client, broker } of pairs) {
          client.destroy();
          broker.destroy();
        }
        pairs.clear();
        server.close(() => resolve());
      }),
  };
}
