/**
 * The queue of a failover scenario, handled by the harness over its own direct amqplib
 * connections (never the client under test's): declared on the node that should lead it,
 * inspected, deleted at the end through whichever node answers.
 */
import amqp from 'amqplib';
import { closeBounded, socketOf } from '../client/amqplib/common';
import { describeError } from '../errors';
import type { ClusterLayout, ClusterNode } from '../broker/nodes/layout';
import { runCli } from '../broker/nodes/rabbitmqctl';

export type FailoverQueueType = 'classic' | 'quorum';

/**
 * Declares a durable queue of `type` over a connection to `directUrl`: a quorum queue's leader
 * and a classic queue's process start on the node declaring them (RabbitMQ's client-local
 * placement), so the scenario chooses the node that holds the queue.
 */
export async function declareQueue(directUrl: string, queue: string, type: FailoverQueueType): Promise<void> {
  await withChannel([directUrl], async (channel) => {
    await channel.assertQueue(queue, { durable: true, autoDelete: false, arguments: { 'x-queue-type': type } });
  });
}

/** Deletes `queue` through the first node that answers; returns the problem when none did. */
export async function deleteQueue(directUrls: readonly string[], queue: string): Promise<string | undefined> {
  try {
    await withChannel(directUrls, (channel) => channel.deleteQueue(queue));
    return undefined;
  } catch (error) {
    return describeError(error);
  }
}

/** Ready messages in `queue` (what nobody consumed); null when no node answered. */
export async function readyMessages(directUrls: readonly string[], queue: string): Promise<number | null> {
  try {
    return await withChannel(directUrls, async (channel) => (await channel.checkQueue(queue)).messageCount);
  } catch {
    return null;
  }
}

/**
 * The leader of quorum queue `queue` now, asked of `node`; undefined for a classic queue (the
 * CLI shows its process id without the node), whose process lives where it was declared.
 */
export async function quorumLeader(layout: ClusterLayout, node: ClusterNode, queue: string): Promise<string | undefined> {
  const { stdout } = await runCli(layout, node, 'rabbitmqctl', ['list_queues', 'name', 'type', 'leader', '--formatter', 'json'], 60_000);
  const rows = JSON.parse(stdout) as { name: string; leader?: unknown }[];
  const leader = rows.find((candidate) => candidate.name === queue)?.leader;
  return typeof leader === 'string' && leader.includes('@') ? leader : undefined;
}

async function withChannel<T>(directUrls: readonly string[], step: (channel: amqp.Channel) => Promise<T>): Promise<T> {
  let lastError: unknown;
  for (const url of directUrls) {
    let model: amqp.ChannelModel | undefined;
    try {
      model = await amqp.connect(url, { timeout: 5000, noDelay: true });
      model.on('error', () => undefined);
      const channel = await model.createChannel();
      channel.on('error', () => undefined);
      return await step(channel);
    } catch (error) {
      lastError = error;
    } finally {
      if (model) await closeBounded(model, socketOf(model));
    }
  }
  throw lastError instanceof Error ? lastError : new Error(String(lastError));
}
