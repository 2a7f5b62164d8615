/**
 * A TCP relay to the real broker that can slip connection-level frames into the stream towards
 * the client: what a broker under a resource alarm sends (connection.blocked, then
 * connection.unblocked), without alarming the shared broker (no alarm, no watermark is ever set).
 * The broker itself is not blocked: it keeps reading whatever the client still sends.
 *
 * Towards the client only whole frames are forwarded, so an injected frame always lands between
 * two frames; towards the broker bytes pass as they come (the protocol header is not a frame).
 */
import net, { type AddressInfo, type Socket } from 'node:net';

export interface FrameRelay {
  /** `brokerUrl` with the relay's host and port: connect the client under test here. */
  readonly url: string;
  /** Client connections open through the relay now. */
  readonly openConnections: number;
  /** Writes `frame` to every client connection, between two broker frames. */
  inject(frame: Buffer): void;
  /** Destroys every connection and stops listening; safe to call twice. */
  close(): Promise<void>;
}

/** Starts a relay on a free loopback port towards the broker of `brokerUrl`. */
export async function startFrameRelay(brokerUrl: string): Promise<FrameRelay> {
  const broker = new URL(brokerUrl);
  const pairs = new Set<{ client: Socket; upstream: Socket }>();
  const server = net.createServer((client) => {
    const upstream = net.connect({ host: broker.hostname, port: Number(broker.port || 5672) });
    const pair = { client, upstream };
    pairs.add(pair);
    let pending = Buffer.alloc(0);
    client.on('data', (chunk) => upstream.write(chunk));
    upstream.on('data', (chunk) => {
      pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
      // A frame: type (1), channel (2), payload size (4), payload, frame-end (1).
      while (pending.length >= 7) {
        const size = pending.readUInt32BE(3) + 8;
        if (pending.length < size) break;
        client.write(pending.subarray(0, size));
        pending = pending.subarray(size);
      }
    });
    const end = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    for (const socket of [client, upstream]) {
      socket.on('close', end);
      socket.on('error', () => undefined);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(brokerUrl);
  url.hostname = '127.0.0.1';
  url.port = String((server.address() as AddressInfo).port);
  let closing: Promise<void> | undefined;
  return {
    url: url.toString(),
    get openConnections() {
      return pairs.size;
    },
    inject(frame) {
      for (const { client } of pairs) client.write(frame);
    },
    close() {
      closing ??= new Promise<void>((resolve) => {
        for (const { client, upstream } of pairs) {
          client.destroy();
          upstream.destroy();
        }
        server.close(() => resolve());
      });
      return closing;
    },
  };
}

/** A method frame on channel 0 (the connection's). */
function connectionMethod(methodId: number, args: Buffer = Buffer.alloc(0)): Buffer {
  const payload = Buffer.concat([Buffer.from([0, 10, 0, methodId]), args]);
  const header = Buffer.alloc(7);
  header.writeUInt8(1, 0); // method frame
  header.writeUInt16BE(0, 1);
  header.writeUInt32BE(payload.length, 3);
  return Buffer.concat([header, payload, Buffer.from([0xce])]);
}

/** connection.blocked (class 10, method 60) with its reason (a shortstr). */
export function connectionBlockedFrame(reason: string): Buffer {
  const text = Buffer.from(reason, 'utf8');
  if (text.length > 255) throw new Error(`a shortstr holds at most 255 bytes; the reason has ${text.length}`);
  return connectionMethod(60, Buffer.concat([Buffer.from([text.length]), text]));
}

/** connection.unblocked (class 10, method 61), no arguments. */
export function connectionUnblockedFrame(): Buffer {
  return connectionMethod(61);
}
