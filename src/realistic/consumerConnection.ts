/**
 * One connection of a consumer thread: one channel per logical consumer, all consuming the
 * workload's queue with manual acks and a prefetch window. A delivery goes to the thread's
 * handler first and is acked after, so a delivery the handler saw whose ack died with the
 * connection comes back flagged `redelivered` (at-least-once).
 */
import type { ChannelModel } from 'amqplib';
import { ManagedConnection, type ConnectionSettings } from './managedConnection';

export interface ConsumerConnectionOptions extends ConnectionSettings {
  readonly queue: string;
  /** Channels, one consumer each. */
  readonly channels: number;
  /** Unacked deliveries per consumer. */
  readonly prefetch: number;
}

/** Called for every delivery, before its ack. */
export type DeliveryHandler = (content: Buffer, redelivered: boolean) => void;

export class ConsumerConnection extends ManagedConnection {
  constructor(
    private readonly options: ConsumerConnectionOptions,
    private readonly onDelivery: DeliveryHandler,
  ) {
    super(options);
  }

  protected override async setUp(model: ChannelModel, fail: (reason: string) => void): Promise<void> {
    await Promise.all(Array.from({ length: this.options.channels }, () => this.openConsumer(model, fail)));
  }

  private async openConsumer(model: ChannelModel, fail: (reason: string) => void): Promise<void> {
    const channel = await model.createChannel();
    // A channel-level error would otherwise be an unhandled 'error' event.
    channel.on('error', (error: Error) => fail(`channel error: ${error.message}`));
    channel.on('close', () => fail('channel closed'));
    await channel.prefetch(this.options.prefetch);
    await channel.consume(
      this.options.queue,
      (message) => {
        if (message === null) {
          fail('consumer cancelled by the broker');
          return;
        }
        this.onDelivery(message.content, message.fields.redelivered);
        try {
          channel.ack(message);
        } catch {
          // The channel died with its connection: the broker requeues and redelivers (flagged).
        }
      },
      { noAck: false },
    );
  }
}
