/**
 * What the signal tests share: a record of one connection's signals and faults, a bounded wait,
 * and the broker-side objects each test declares (over an independent amqplib connection) and
 * deletes again whatever happened.
 */
import { randomUUID } from 'node:crypto';
import amqp, { type Channel, type ChannelModel } from 'amqplib';
import type { ClientConnection, ClientFault, ClientSignal } from '../../../src/client/api';
import { sleep } from '../../../src/measure/clock';

/** Waits (bounded) until `predicate` holds. */
export async function eventually(predicate: () => boolean, boundMs: number, what: string): Promise<void> {
  const deadline = Date.now() + boundMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

/**
 * A queue's message count once it reaches `expected` (or whatever it is after `boundMs`). A
 * channel's round trip proves the channel took a publish; the queue process enqueues it a moment
 * later, so a count read once right after can be short.
 */
export async function queueCountReaching(channel: Channel, queue: string, expected: number, boundMs = 5000): Promise<number> {
  const deadline = Date.now() + boundMs;
  let seen = (await channel.checkQueue(queue)).messageCount;
  while (seen < expected && Date.now() < deadline) {
    await sleep(50);
    seen = (await channel.checkQueue(queue)).messageCount;
  }
  return seen;
}

/** Everything `connection` tells from now on, in order. */
export function recordOf(connection: ClientConnection): { signals: ClientSignal[]; faults: ClientFault[] } {
  const signals: ClientSignal[] = [];
  const faults: ClientFault[] = [];
  connection.onSignal((signal) => signals.push(signal));
  connection.onFault((fault) => faults.push(fault));
  return { signals, faults };
}

/**
 * The harness's side of the broker for one test file: a queue bound to an exchange of its own
 * per test (`fresh()`), declared again after a test deleted them (`restore()`), and removed in
 * `cleanUp()`. A channel the broker closes (a passive check of a missing queue) is replaced.
 */
export class BrokerObjects {
  queue = '';
  exchange = '';
  private channel: Channel | undefined;
  private readonly declared = new Set<string>();
  private readonly declaredExchanges = new Set<string>();

  private constructor(
    private readonly model: ChannelModel,
    private readonly prefix: string,
  ) {}

  static async open(url: string, prefix: string): Promise<BrokerObjects> {
    const model = await amqp.connect(url);
    model.on('error', () => undefined);
    return new BrokerObjects(model, prefix);
  }

  /** A new exchange and a new queue bound to it (routing key: the queue's name). */
  async fresh(queueArguments: Record<string, unknown> = {}): Promise<void> {
    const id = randomUUID();
    this.queue = `${this.prefix}.${id}`;
    this.exchange = `${this.prefix}.x.${id}`;
    this.declared.add(this.queue);
    this.declaredExchanges.add(this.exchange);
    await this.restore(queueArguments);
  }

  /** Declares the current exchange, queue and binding (again). */
  async restore(queueArguments: Record<string, unknown> = {}): Promise<void> {
    const channel = await this.ch();
    await channel.assertExchange(this.exchange, 'direct', { durable: false, autoDelete: false });
    await channel.assertQueue(this.queue, { durable: false, autoDelete: false, arguments: queueArguments });
    await channel.bindQueue(this.queue, this.exchange, this.queue);
  }

  async deleteExchange(): Promise<void> {
    await (await this.ch()).deleteExchange(this.exchange);
  }

  async deleteQueue(): Promise<void> {
    await (await this.ch()).deleteQueue(this.queue);
  }

  /** The queue's ready messages and consumers as the broker counts them. */
  async queueState(): Promise<{ messageCount: number; consumerCount: number }> {
    return (await this.ch()).checkQueue(this.queue);
  }

  /** Puts `body` straight into the current queue (the default exchange). */
  async send(body: string): Promise<void> {
    (await this.ch()).sendToQueue(this.queue, Buffer.from(body));
  }

  /** Deletes what the last test declared (gone already is fine). */
  async cleanUp(): Promise<void> {
    for (const exchange of this.declaredExchanges) await (await this.ch()).deleteExchange(exchange).catch(() => undefined);
    for (const queue of this.declared) await (await this.ch()).deleteQueue(queue).catch(() => undefined);
    this.declared.clear();
    this.declaredExchanges.clear();
  }

  async close(): Promise<void> {
    await this.model.close().catch(() => undefined);
  }

  private async ch(): Promise<Channel> {
    if (!this.channel) {
      const channel = await this.model.createChannel();
      channel.on('error', () => undefined);
      channel.on('close', () => {
        if (this.channel === channel) this.channel = undefined;
      });
      this.channel = channel;
    }
    return this.channel;
  }
}
