/**
 * The contract's side of the broker: its own amqplib connection (never the client under test's),
 * which declares the queues a check consumes, puts messages in them, reads what the broker counts,
 * deletes a queue to provoke a consumer cancel, and deletes again everything it declared — also
 * when a check failed or was cut off by its bound.
 */
import { randomUUID } from 'node:crypto';
import amqp, { type ChannelModel, type ConfirmChannel } from 'amqplib';
import { BrokerError, describeError } from '../../errors';
import { redactUrl } from '../../redact';
import { closeBounded, socketOf } from '../amqplib/common';
import { bounded } from '../bounded';

/** Every admin call answers within this on a live broker; more means the broker is gone, said as such. */
const ADMIN_CALL_BOUND_MS = 5000;

export class HarnessBroker {
  private channel: Promise<ConfirmChannel> | undefined;
  private readonly declared = new Set<string>();
  private closed = false;

  private constructor(private readonly model: ChannelModel) {}

  /** Connects to `url` (bounded by amqplib's own `timeout`). @throws BrokerError saying where it looked */
  static async open(url: string): Promise<HarnessBroker> {
    const model = await amqp
      .connect(url, {
        timeout: ADMIN_CALL_BOUND_MS,
        noDelay: true,
        clientProperties: { connection_name: `amqp-bench check-adapter admin ${randomUUID()}` },
      })
      .catch((error: unknown) => {
        throw new BrokerError(
          `cannot reach the broker at ${redactUrl(url)} (${describeError(error)}): start it, or point AMQP_URL at one`,
          {
            cause: error,
          },
        );
      });
    model.on('error', () => undefined);
    return new HarnessBroker(model);
  }

  /** Declares a new non-durable queue named `prefix.<random>`; deleted by `releaseDeclared()`. */
  async declareQueue(prefix: string): Promise<string> {
    const queue = `${prefix}.${randomUUID()}`;
    this.declared.add(queue);
    await this.call('declare a queue', (channel) => channel.assertQueue(queue, { durable: false, autoDelete: false }));
    return queue;
  }

  /** Puts `bodies` into `queue` (the default exchange) and waits until the broker confirmed them all. */
  async send(queue: string, ...bodies: string[]): Promise<void> {
    await this.call('send to a queue', async (channel) => {
      for (const body of bodies) channel.sendToQueue(queue, Buffer.from(body));
      await channel.waitForConfirms();
    });
  }

  /** Ready messages and consumers of `queue`, as the broker counts them now. */
  async inspect(queue: string): Promise<{ readonly ready: number; readonly consumers: number }> {
    const { messageCount, consumerCount } = await this.call('check a queue', (channel) => channel.checkQueue(queue));
    return { ready: messageCount, consumers: consumerCount };
  }

  async deleteQueue(queue: string): Promise<void> {
    await this.call('delete a queue', (channel) => channel.deleteQueue(queue));
  }

  /** Deletes every queue declared so far (gone already is fine); never throws. */
  async releaseDeclared(): Promise<void> {
    const queues = [...this.declared];
    this.declared.clear();
    for (const queue of queues) await this.deleteQueue(queue).catch(() => undefined);
  }

  /** Deletes what it declared, then closes its connection; safe to call twice, never throws. */
  async close(): Promise<void> {
    if (this.closed) return;
    await this.releaseDeclared();
    this.closed = true;
    await closeBounded(this.model, socketOf(this.model));
  }

  /** One admin call, bounded, on a channel opened again if the broker closed the last one (a check of a missing queue: 404). */
  private async call<T>(what: string, step: (channel: ConfirmChannel) => Promise<T>): Promise<T> {
    if (this.closed) throw new Error(`the contract's admin connection is closed (wanted to ${what})`);
    return bounded(
      (async () => step(await this.openChannel()))(),
      ADMIN_CALL_BOUND_MS,
      `the broker did not answer the contract's admin connection within ${ADMIN_CALL_BOUND_MS} ms (${what})`,
    );
  }

  /** The admin channel, opened once for concurrent callers (a check cut off by its bound may still be calling). */
  private openChannel(): Promise<ConfirmChannel> {
    if (this.channel) return this.channel;
    const opening = this.model.createConfirmChannel();
    const forget = () => {
      if (this.channel === opening) this.channel = undefined;
    };
    opening.then((channel) => {
      channel.on('error', () => undefined);
      channel.on('close', forget);
    }, forget);
    this.channel = opening;
    return opening;
  }
}
