/**
 * What both amqplib modes share: the inbox deliveries and faults meet in, the current
 * connection and topology, and every operation that only uses them. A mode adds how it
 * connects and reconnects (`start`, `ensureConnection`, `close`).
 */
import { randomUUID } from 'node:crypto';
import type { ChannelModel } from 'amqplib';
import { TimeoutError } from '../errors';
import { elapsedMs, nowNs } from '../measure/clock';
import { socketOf, type Topology } from './amqplibTopology';
import { DeliveryInbox } from './inbox';
import type { ClientOptions, ClientUnderTest, DrainResult, EnsureResult } from './types';

export abstract class AmqplibClientBase implements ClientUnderTest {
  abstract readonly mode: string;
  protected readonly inbox = new DeliveryInbox();
  protected model: ChannelModel | undefined;
  protected topology: Topology | undefined;

  constructor(protected readonly options: ClientOptions) {}

  abstract start(): Promise<void>;
  abstract ensureConnection(deadlineMs: number): Promise<EnsureResult>;
  abstract close(): Promise<void>;

  get localPort(): number | undefined {
    return socketOf(this.model)?.localPort;
  }

  get queue(): string | undefined {
    return this.topology?.queue;
  }

  drainEvents(timeoutMs: number, options: { collectBodies?: boolean } = {}): Promise<DrainResult> {
    return this.inbox.drain(timeoutMs, options.collectBodies ?? false);
  }

  /** Publishes a marker to the client's own queue and drains until that very message is back. */
  async roundTrip(timeoutMs: number): Promise<number> {
    const startedNs = nowNs();
    const marker = Buffer.from(`probe-${randomUUID()}`);
    if (!this.topology) throw new TimeoutError('round trip without a connection');
    this.topology.channel.sendToQueue(this.topology.queue, marker);
    for (;;) {
      const remainingMs = timeoutMs - elapsedMs(startedNs, nowNs());
      if (remainingMs <= 0) throw new TimeoutError(`probe message did not come back within ${timeoutMs} ms`);
      const { bodies } = await this.inbox.drain(remainingMs, true);
      if (bodies?.some((body) => body.equals(marker))) return elapsedMs(startedNs, nowNs());
    }
  }

  publish(exchange: string, routingKey: string, body: Buffer): boolean {
    if (!this.topology) throw new TimeoutError('publish without a connection');
    return this.topology.channel.publish(exchange, routingKey, body);
  }

  destroyConnection(reason: string): void {
    this.inbox.fail(`connection destroyed: ${reason}`, 'deadline');
    // With an error, or amqplib never learns of a socket destroyed on this side.
    socketOf(this.model)?.destroy(new Error(`connection destroyed by the client: ${reason}`));
  }
}
