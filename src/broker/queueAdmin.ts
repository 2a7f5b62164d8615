/**
 * Queues of a benchmark, handled by the harness over its own direct amqplib connection (never
 * the client under test's): declared before the threads start, inspected, deleted afterwards.
 */
import amqp, { type Channel, type ChannelModel } from 'amqplib';
import { closeBounded, socketOf } from '../client/amqplib/common';

export interface QueueSpec {
  /** Survives a broker restart. @default false */
  readonly durable?: boolean;
  /** Queue arguments, e.g. `{ 'x-queue-type': 'quorum' }`. @default classic */
  readonly arguments?: Readonly<Record<string, unknown>>;
}

export class QueueAdmin {
  private readonly declared = new Set<string>();
  private closed = false;

  private constructor(
    private readonly model: ChannelModel,
    private channel: Channel,
  ) {}

  /** Connects (bounded by amqplib's `timeout`). */
  static async open(url: string): Promise<QueueAdmin> {
    const model = await amqp.connect(url, { timeout: 5000, noDelay: true });
    model.on('error', () => undefined);
    try {
      const channel = await model.createChannel();
      channel.on('error', () => undefined);
      return new QueueAdmin(model, channel);
    } catch (error) {
      await closeBounded(model, socketOf(model));
      throw error;
    }
  }

  /** Declares `queue` (never auto-deleted: consumers come and go); it is deleted by `close()`. */
  async declare(queue: string, spec: QueueSpec = {}): Promise<void> {
    await this.declareShared(queue, spec);
    this.declared.add(queue);
  }

  /**
   * Declares `queue` if it is missing and leaves it to its owner: `close()` does not delete it (an
   * agent of a fleet declares the queues it uses; whoever runs the fleet deletes them).
   */
  async declareShared(queue: string, spec: QueueSpec = {}): Promise<void> {
    await this.channel.assertQueue(queue, {
      durable: spec.durable ?? false,
      autoDelete: false,
      arguments: { 'x-queue-type': 'classic', ...spec.arguments },
    });
  }

  /**
   * Deletes `queue` if it exists (a queue left by a killed run, perhaps of another type, with
   * messages in it), then declares it as `declare` does.
   */
  async declareFresh(queue: string, spec: QueueSpec = {}): Promise<void> {
    await this.run((channel) => channel.deleteQueue(queue));
    await this.declare(queue, spec);
  }

  /** Binds `queue` to a fanout `exchange` (declared if missing; deleted by `close()` only if asked there). */
  async bindToFanout(queue: string, exchange: string): Promise<void> {
    await this.channel.assertExchange(exchange, 'fanout', { durable: false, autoDelete: false });
    await this.channel.bindQueue(queue, exchange, '');
  }

  /** Ready messages still in `queue` (unacked ones are not counted by the broker here). */
  async messagesLeft(queue: string): Promise<number> {
    const { messageCount } = await this.channel.checkQueue(queue);
    return messageCount;
  }

  /** Removes every ready message of `queue` (unacked ones stay with their consumers); resolves to how many it removed. */
  async purge(queue: string): Promise<number> {
    const { messageCount } = await this.channel.purgeQueue(queue);
    return messageCount;
  }

  /** Ready messages and consumers of `queue`, as the broker counts them now (one round trip). */
  async inspect(queue: string): Promise<{ readonly ready: number; readonly consumers: number }> {
    const { messageCount, consumerCount } = await this.channel.checkQueue(queue);
    return { ready: messageCount, consumers: consumerCount };
  }

  /** Deletes every queue it declared (and `exchanges`), closes the connection; safe to call twice. */
  async close(exchanges: readonly string[] = []): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const queue of this.declared) await this.run((channel) => channel.deleteQueue(queue));
    for (const exchange of exchanges) await this.run((channel) => channel.deleteExchange(exchange));
    await closeBounded(this.model, socketOf(this.model));
  }

  /**
   * Publishes `body` once to each queue through the default exchange (harness probes), persistent
   * (a durable queue keeps it through a restart); resolves once the broker has taken them all.
   */
  async publishEach(queues: readonly string[], body: Buffer): Promise<void> {
    for (const queue of queues) this.channel.sendToQueue(queue, body, { persistent: true });
    if (queues.length > 0) await this.channel.checkQueue(queues[queues.length - 1]!);
  }

  /** Whether a queue or an exchange of that name exists now (a passive declare, on a channel of its own: a miss closes it). */
  async exists(kind: 'queue' | 'exchange', name: string): Promise<boolean> {
    const channel = await this.model.createChannel();
    channel.on('error', () => undefined);
    try {
      await (kind === 'queue' ? channel.checkQueue(name) : channel.checkExchange(name));
      await channel.close();
      return true;
    } catch {
      return false;
    }
  }

  /** One admin step; if the channel died (e.g. a failed check), one more try on a fresh channel. */
  private async run(step: (channel: Channel) => Promise<unknown>): Promise<void> {
    await step(this.channel)
      .catch(async () => {
        this.channel = await this.model.createChannel();
        this.channel.on('error', () => undefined);
        await step(this.channel);
      })
      .catch(() => undefined);
  }
}
