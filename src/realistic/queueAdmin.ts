/**
 * The workload's queue, handled from the main thread over a direct connection: declared before
 * the threads start, inspected at the end (messages left), deleted afterwards.
 */
import amqp, { type Channel, type ChannelModel } from 'amqplib';
import { closeBounded, socketOf } from '../client/amqplibTopology';

export class QueueAdmin {
  private closed = false;

  private constructor(
    readonly queue: string,
    private readonly model: ChannelModel,
    private channel: Channel,
  ) {}

  /** Connects and declares `queue` (a classic queue, never auto-deleted: consumers come and go). */
  static async open(url: string, queue: string, durable: boolean): Promise<QueueAdmin> {
    const model = await amqp.connect(url, { timeout: 5000, noDelay: true });
    model.on('error', () => undefined);
    try {
      const channel = await model.createChannel();
      channel.on('error', () => undefined);
      await channel.assertQueue(queue, { durable, autoDelete: false, arguments: { 'x-queue-type': 'classic' } });
      return new QueueAdmin(queue, model, channel);
    } catch (error) {
      await closeBounded(model, socketOf(model));
      throw error;
    }
  }

  /** Ready messages still in the queue (unacked ones are not counted by the broker here). */
  async messagesLeft(): Promise<number> {
    const { messageCount } = await this.channel.checkQueue(this.queue);
    return messageCount;
  }

  /** Deletes the queue and closes the connection; safe to call twice. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.channel
      .deleteQueue(this.queue)
      .catch(async () => {
        // The channel may have died (e.g. a failed check): one more try on a fresh channel.
        this.channel = await this.model.createChannel();
        await this.channel.deleteQueue(this.queue);
      })
      .catch(() => undefined);
    await closeBounded(this.model, socketOf(this.model));
  }
}
