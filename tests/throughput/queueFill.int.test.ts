/**
 * The start fill of a consume session against the real broker: the queue holds exactly the count
 * asked for (the broker's own ready count, read here independently), every batch is counted as it
 * goes, the fill's connections are gone afterwards, and a queue that ends up with another count
 * fails the fill instead of passing for a filled one.
 */
import { randomUUID } from 'node:crypto';
import { getConfig } from '../../src/config';
import { WorkerError } from '../../src/errors';
import { waitForNoConnections } from '../../src/faults/brokerConnections';
import { fillQueue } from '../../src/throughput/queueFill';
import { useAdminChannel } from './support/adminChannel';

const url = getConfig().amqpUrl;

const admin = useAdminChannel(url);

async function freshQueue(): Promise<string> {
  const queue = `amqp-bench.test.fill.${randomUUID()}`;
  await admin.channel.assertQueue(queue, { durable: false, arguments: { 'x-expires': 60_000 } });
  return queue;
}

describe('the start fill (real broker)', () => {
  it('leaves exactly the count asked for in the queue, over every connection, counted batch by batch', async () => {
    const queue = await freshQueue();
    const connectionName = `amqp-bench-test-fill-${randomUUID()}`;
    const counted: number[] = [];
    try {
      // An odd count over three connections: the shares differ by one (8334, 8333, 8333).
      const outcome = await fillQueue({
        url,
        queue,
        messages: 25_000,
        messageSizeBytes: 256,
        connectionName,
        connections: 3,
        onPublished: (messages) => counted.push(messages),
        readyCount: async () => (await admin.channel.checkQueue(queue)).messageCount,
      });
      expect(outcome).toEqual({ messages: 25_000, connections: 3, fillMs: expect.any(Number) });
      // The broker's count, read again here: the fill was checked against it, not against its own tally.
      expect((await admin.channel.checkQueue(queue)).messageCount).toBe(25_000);
      expect(counted.reduce((sum, messages) => sum + messages, 0)).toBe(25_000);
      expect(Math.max(...counted)).toBeLessThanOrEqual(1000);
      const message = await admin.channel.get(queue, { noAck: true });
      expect(message && message.content.length).toBe(256);
      expect((await waitForNoConnections(url, connectionName)).leaked).toEqual([]);
    } finally {
      await admin.channel.deleteQueue(queue);
    }
  }, 60_000);

  it('fails when the queue does not then hold exactly that count (another publisher, a message too many)', async () => {
    const queue = await freshQueue();
    try {
      admin.channel.sendToQueue(queue, Buffer.from('someone else'));
      await admin.channel.checkQueue(queue);
      const filling = fillQueue({
        url,
        queue,
        messages: 500,
        messageSizeBytes: 16,
        connectionName: `amqp-bench-test-fill-${randomUUID()}`,
        readyCount: async () => (await admin.channel.checkQueue(queue)).messageCount,
      });
      await expect(filling).rejects.toThrow(WorkerError);
      await expect(filling).rejects.toThrow(/published 500 messages to .*, but the broker counts 501 ready there/);
    } finally {
      await admin.channel.deleteQueue(queue);
    }
  }, 60_000);

  it('stops at the next batch once abandoned (its session closed), and leaves no connection behind', async () => {
    const queue = await freshQueue();
    const connectionName = `amqp-bench-test-fill-${randomUUID()}`;
    let batches = 0;
    try {
      await expect(
        fillQueue({
          url,
          queue,
          messages: 100_000,
          messageSizeBytes: 16,
          connectionName,
          connections: 1,
          onPublished: () => (batches += 1),
          abandoned: () => batches >= 3,
          readyCount: async () => (await admin.channel.checkQueue(queue)).messageCount,
        }),
      ).rejects.toThrow(/the start fill of .* failed: abandoned after 3000 of this connection's 100000 messages/);
      expect(batches).toBe(3);
      expect((await waitForNoConnections(url, connectionName)).leaked).toEqual([]);
    } finally {
      await admin.channel.deleteQueue(queue);
    }
  }, 60_000);

  it('fails, naming the queue, when it cannot publish (no such queue: nothing there to count)', async () => {
    const queue = `amqp-bench.test.fill.missing.${randomUUID()}`;
    await expect(
      fillQueue({
        url,
        queue,
        messages: 10,
        messageSizeBytes: 16,
        connectionName: `amqp-bench-test-fill-${randomUUID()}`,
        boundMs: 5000,
        readyCount: async () => (await admin.channel.checkQueue(queue)).messageCount,
      }),
    ).rejects.toThrow(`the start fill of ${queue} failed`);
    // The check above closed the test's channel (404): reopen it for the other tests.
    admin.channel = await admin.connection.createChannel();
    admin.channel.on('error', () => undefined);
  }, 60_000);
});
