import { randomUUID } from 'node:crypto';
import amqp from 'amqplib';
import { getConfig } from '../../src/config';

describe('broker smoke test', () => {
  it('round-trips one message through the real RabbitMQ with amqplib', async () => {
    const connection = await amqp.connect(getConfig().amqpUrl, { timeout: 5000 });
    try {
      const channel = await connection.createChannel();
      const { queue } = await channel.assertQueue(`smoke-${randomUUID()}`, { exclusive: true, autoDelete: true });
      const body = Buffer.from(`hello ${randomUUID()}`);
      const received = new Promise<Buffer>((resolve) => {
        void channel.consume(queue, (message) => message && resolve(message.content), { noAck: true });
      });
      channel.sendToQueue(queue, body);
      expect((await received).equals(body)).toBe(true);
    } finally {
      await connection.close();
    }
  });
});
