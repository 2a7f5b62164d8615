/**
 * A producer thread's connection: one channel, in confirm mode when publisher confirms are on.
 * With confirms, every publish gets a callback: null when the broker confirmed it, an error when
 * it was nacked or its channel closed before the confirm (the message may or may not have been
 * enqueued: an at-least-once producer sends it again).
 */
import type { Channel, ChannelModel, ConfirmChannel } from 'amqplib';
import { ManagedConnection, type ConnectionSettings } from './managedConnection';

export interface ProducerConnectionOptions extends ConnectionSettings {
  readonly confirms: boolean;
}

export type ConfirmCallback = (error: unknown) => void;

export class ProducerConnection extends ManagedConnection {
  private channel: Channel | ConfirmChannel | undefined;
  private drainWaiters: (() => void)[] = [];

  constructor(private readonly options: ProducerConnectionOptions) {
    super(options);
  }

  protected override async setUp(model: ChannelModel, fail: (reason: string) => void): Promise<void> {
    const channel = this.options.confirms ? await model.createConfirmChannel() : await model.createChannel();
    channel.on('error', (error: Error) => fail(`channel error: ${error.message}`));
    channel.on('close', () => {
      fail('channel closed');
      this.wakeDrainWaiters();
    });
    channel.on('drain', () => this.wakeDrainWaiters());
    this.channel = channel;
  }

  /**
   * Publishes to `queue` through the default exchange. With confirms, `onConfirm` is called
   * exactly once per publish.
   * @returns false when the channel's write buffer is full (wait with `whenWritable`).
   * @throws when there is no open channel (the caller treats the message as not sent).
   */
  publish(queue: string, body: Buffer, persistent: boolean, onConfirm?: ConfirmCallback): boolean {
    const channel = this.channel;
    if (!channel || this.state !== 'up') throw new Error(`cannot publish: connection is ${this.state}`);
    if (this.options.confirms) return (channel as ConfirmChannel).sendToQueue(queue, body, { persistent }, (error) => onConfirm?.(error));
    return channel.sendToQueue(queue, body, { persistent });
  }

  /**
   * Resolves once the broker has processed everything published so far on this channel: a
   * passive queue check travels behind the messages on the same channel, so its answer means
   * they all arrived (messages still in the client's buffers would otherwise be lost on close).
   */
  async barrier(queue: string, boundMs: number): Promise<void> {
    const channel = this.channel;
    if (!channel || this.state !== 'up') throw new Error(`cannot reach the broker: connection is ${this.state}`);
    const timer = setTimeout(() => this.destroy(`the broker did not answer within ${boundMs} ms`), boundMs);
    try {
      await channel.checkQueue(queue);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Resolves on the channel's next 'drain' (or its close), or after `timeoutMs`. */
  whenWritable(timeoutMs: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, timeoutMs);
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
      this.drainWaiters.push(done);
    });
  }

  /** Closes the channel first (its close travels behind any buffered messages), then the connection. */
  override async close(): Promise<void> {
    this.wakeDrainWaiters();
    const channel = this.channel;
    this.channel = undefined;
    if (channel && this.state === 'up') {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([channel.close().catch(() => undefined), new Promise<void>((resolve) => (timer = setTimeout(resolve, 2000)))]);
      clearTimeout(timer);
    }
    await super.close();
  }

  private wakeDrainWaiters(): void {
    const waiters = this.drainWaiters;
    this.drainWaiters = [];
    for (const wake of waiters) wake();
  }
}
