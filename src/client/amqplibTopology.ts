/**
 * What both amqplib modes do on every (re)connection: one channel, a queue (the client's named
 * one, re-consumed, or else a fresh server-named exclusive one, so a re-declare never races the
 * broker's cleanup of the old), bound to the fanout exchange, consumed with no-ack into the inbox.
 */
import { classifyFault } from './faults';
import type { Socket } from 'node:net';
import type { Channel, ChannelModel } from 'amqplib';
import type { FaultKind } from './types';

/** Where a connection's events go; the owner ignores them once the connection is replaced. */
export interface ConsumerSink {
  deliver(body: Buffer): void;
  fail(message: string, kind: FaultKind, error?: unknown): void;
}

export interface Topology {
  readonly channel: Channel;
  readonly queue: string;
}

export async function declareConsumer(
  model: ChannelModel,
  sink: ConsumerSink,
  fanoutExchange: string | undefined,
  queueName?: string,
): Promise<Topology> {
  const channel = await model.createChannel();
  // A channel-level error (e.g. a 404) would otherwise be an unhandled 'error' event.
  channel.on('error', (error: Error) => sink.fail(`channel error: ${error.message}`, classifyFault(error), error));
  const { queue } = queueName
    ? await channel.assertQueue(queueName, { exclusive: false, autoDelete: false, durable: false, arguments: { 'x-expires': 60_000 } })
    : await channel.assertQueue('', { exclusive: true, autoDelete: true });
  if (fanoutExchange) {
    await channel.assertExchange(fanoutExchange, 'fanout', { durable: false, autoDelete: false });
    await channel.bindQueue(queue, fanoutExchange, '');
  }
  await channel.consume(queue, (message) => message && sink.deliver(message.content), { noAck: true });
  return { channel, queue };
}

/** The socket under an amqplib connection (not in its public types, but stable since 0.x). */
export function socketOf(model: ChannelModel | undefined): Socket | undefined {
  return (model?.connection as unknown as { stream?: Socket } | undefined)?.stream;
}

/** `amqp://...` plus the socket-level options both modes use. */
export function connectionUrl(url: string, heartbeatSeconds: number): string {
  const parsed = new URL(url);
  if (!parsed.searchParams.has('heartbeat')) parsed.searchParams.set('heartbeat', String(heartbeatSeconds));
  return parsed.toString();
}

/** Closes a connection politely, but never waits more than `boundMs` (a dead peer never answers). */
export async function closeBounded(
  model: ChannelModel | { close(): Promise<void> } | undefined,
  socket: Socket | undefined,
  boundMs = 1000,
): Promise<void> {
  if (!model) return;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    model.close().catch(() => undefined),
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, boundMs);
    }),
  ]);
  clearTimeout(timer);
  socket?.destroy();
}
