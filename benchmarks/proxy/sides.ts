/**
 * The sides of the proxy witness (benchmarks/bench_proxy.bench.ts): one amqplib connection each,
 * directly to the broker or through a proxy, with the rounds the witness times on every side in
 * turn. A proxy process of the witness's own is the embedded proxy started exactly as a run
 * starts it (src/faults/proxyProcess.ts), so what it measures is what a run uses.
 */
import { randomUUID } from 'node:crypto';
import amqp from 'amqplib';
import { processRssBytes } from '../../src/client/process/processRss';
import { formatHostPort, getConfig } from '../../src/config';
import { describeProxyServer, type ToxiproxyClient, type ProxyServerIdentity } from '../../src/faults';
import { ensureProxyApi } from '../../src/faults/proxyProcess';
import { sleep } from '../../src/measure/clock';

export const MESSAGE_BYTES = 256;
export const MESSAGES_PER_ROUND = 20_000;
/** The entry every proxy process of the witness's own gets in front of the broker. */
export const ENTRY_NAME = 'bench-proxy-overhead';

export interface ProxyProcess {
  readonly client: ToxiproxyClient;
  readonly pid: number;
  stop(): Promise<void>;
}

/** A fresh embedded proxy in a child process on a free loopback port, this witness's alone. */
export async function startProxyProcess(): Promise<ProxyProcess> {
  const handle = await ensureProxyApi({ proxyScope: 'own', proxyApiUrl: 'http://127.0.0.1:0', embeddedProxy: 'auto' }, () => undefined);
  return { client: handle.client, pid: handle.pid!, stop: handle.stop };
}

/** Creates the witness's entry in front of the broker; returns the broker URL through it. */
export async function createEntry(proxy: ProxyProcess): Promise<string> {
  const broker = new URL(getConfig().amqpUrl);
  const upstream = formatHostPort({ host: broker.hostname, port: Number(broker.port || 5672) });
  const entry = await proxy.client.createProxy({ name: ENTRY_NAME, listen: '127.0.0.1:0', upstream });
  broker.hostname = '127.0.0.1';
  broker.port = entry.listen.slice(entry.listen.lastIndexOf(':') + 1);
  return broker.toString();
}

/** RSS of a process in MB (Linux /proc); NaN when it cannot be read. */
export function rssMb(pid: number): number {
  const bytes = processRssBytes(pid);
  return bytes === null ? NaN : bytes / (1024 * 1024);
}

export interface Side {
  /** `direct`, or the kind of proxy this side goes through. */
  readonly label: 'direct' | ProxyServerIdentity['kind'];
  /** The proxy server on this side (none for direct). */
  readonly server: ProxyServerIdentity | undefined;
  /** How the proxy was reached, for the record. */
  readonly via: string;
  readonly connection: amqp.ChannelModel;
  readonly channel: amqp.Channel;
  readonly queue: string;
}

export async function openSide(label: Side['label'], url: string, server?: ProxyServerIdentity, via = 'direct'): Promise<Side> {
  const connection = await amqp.connect(url, { timeout: 10_000, noDelay: true });
  const channel = await connection.createChannel();
  // Exclusive but not autoDelete: the round-trip test cancels its consumer between blocks.
  const { queue } = await channel.assertQueue(`amqp-bench.proxy-overhead.${randomUUID()}`, { exclusive: true });
  return { label, server, via, connection, channel, queue };
}

type FaultProxyJson = { kind: ProxyServerIdentity['kind']; version: string; label: string };

/** The parameters and `fault_proxy` that say which proxy a result measured. */
export function measuredProxy(side: Side): { parameters: { proxy: string; proxy_process: string }; fault_proxy: FaultProxyJson } {
  const server = side.server!;
  return {
    parameters: { proxy: side.label, proxy_process: side.via },
    fault_proxy: { kind: server.kind, version: server.version, label: describeProxyServer(server) },
  };
}

/** Waits until the queue holds `count` messages (the broker took them all), polling. */
export async function untilQueued(side: Side, count: number, deadlineMs = 60_000): Promise<void> {
  const deadline = performance.now() + deadlineMs;
  while ((await side.channel.checkQueue(side.queue)).messageCount < count) {
    if (performance.now() > deadline) throw new Error(`${side.label}: the broker did not get all ${count} messages`);
    await sleep(2);
  }
}

/** Publishes a round as fast as amqplib's backpressure allows; msg/s until the broker has them all. */
export async function publishRound(side: Side): Promise<number> {
  const body = Buffer.alloc(MESSAGE_BYTES, 0x61);
  const startedMs = performance.now();
  for (let i = 0; i < MESSAGES_PER_ROUND; i += 1) {
    if (!side.channel.sendToQueue(side.queue, body)) await new Promise((resolve) => side.channel.once('drain', resolve));
  }
  await untilQueued(side, MESSAGES_PER_ROUND);
  const rate = (MESSAGES_PER_ROUND / (performance.now() - startedMs)) * 1000;
  await side.channel.purgeQueue(side.queue);
  return rate;
}

/** Ping-pong of a small message through the broker: ms per round trip. */
export async function roundTrips(side: Side, count: number): Promise<number[]> {
  const samples: number[] = [];
  let delivered: (() => void) | undefined;
  const { consumerTag } = await side.channel.consume(side.queue, () => delivered?.(), { noAck: true });
  for (let i = 0; i < count; i += 1) {
    const arrived = new Promise<void>((resolve) => (delivered = resolve));
    const startedNs = process.hrtime.bigint();
    side.channel.sendToQueue(side.queue, Buffer.from('ping'));
    await arrived;
    samples.push(Number(process.hrtime.bigint() - startedNs) / 1e6);
  }
  await side.channel.cancel(consumerTag);
  return samples;
}

/** The sides in the order of round `round`: rotated every round and reversed every other, to cancel drift. */
export function roundOrder<T>(sides: readonly T[], round: number): T[] {
  const rotated = [...sides.slice(round % sides.length), ...sides.slice(0, round % sides.length)];
  return round % 2 === 0 ? rotated : rotated.reverse();
}
