/**
 * A consumer on rabbitmq-client's own `createConsumer`: the library re-runs its setup (passive
 * queue declare, qos, basic.consume) on a new channel after every reconnection, by itself.
 *
 * Manual ack: the library acks when the handler's returned promise settles (resolved: ack;
 * `ConsumerStatus.REQUEUE`: nack with requeue) and has no other way to ack later (an open
 * feature request, cody-greene/node-rabbitmq-client#60). So the handler hands the delivery to the
 * harness and returns a promise that `Delivery.ack()` resolves. With the library's default
 * `concurrency: Infinity` every delivery reaches the harness at once; the broker's prefetch is
 * what bounds the unacked ones, as with the other clients.
 *
 * The catch: before re-consuming, and when closing, the library waits for every pending handler
 * (`_setup`, `close`: `Promise.allSettled(this._processing)`). A delivery the harness never acks
 * would hold the consumer's recovery forever. So when its channel is gone (the connection failed,
 * or the channel was closed with an error) or the consumer is cancelled, the pending deliveries
 * are released with REQUEUE: on a dead channel the nack cannot be sent (the broker requeues them
 * anyway, and the library reports "failed to ack/nack" as a consumer error, ignored here); on
 * cancel they go back to the queue. A later `ack()` of a released delivery is a no-op.
 *
 * Signals: the library's `error` event carries the broker's cancel (`CANCEL_FORCED`: the channel
 * stays open, so pending deliveries can still be acked and are not released) and its channel
 * closes. After either the library sets the consumer up again by itself; with the passive queue
 * declare that fails until the queue exists again, and the library reports only the first failure
 * of a series (none after a cancel). `consuming` says the truth meanwhile: not consuming.
 */
import { AMQPChannelError, ConsumerStatus, type AsyncMessage, type Connection, type Consumer as LibraryConsumer } from 'rabbitmq-client';
import type { ConsumeOptions, Consumer, Delivery, SignalKind } from '../api';
import { bounded } from '../bounded';
import { isCancelledByServer, isServerChannelClose } from './signals';

/** What a consumer tells its connection. */
export interface ConsumerOwner {
  /** The consumer is consuming again (or for the first time). */
  consumerReady(): void;
  /** A typed signal the library gave through this consumer (cancelled, or its channel closed by the broker). */
  signal(kind: SignalKind, cause: unknown): void;
  forget(consumer: RabbitmqClientConsumer): void;
}

const CLOSE_BOUND_MS = 1000;
const noAck = (): void => undefined;

export class RabbitmqClientConsumer implements Consumer {
  private readonly library: LibraryConsumer;
  /** Settles the handler's promise of each delivery the harness has not acked yet. */
  private readonly pending = new Set<(status: ConsumerStatus) => void>();
  private cancelled = false;
  private firstSetup: { resolve: () => void; reject: (error: unknown) => void } | undefined;

  constructor(
    rabbit: Connection,
    queue: string,
    private readonly options: ConsumeOptions,
    private readonly onDelivery: (delivery: Delivery) => void,
    private readonly owner: ConsumerOwner,
  ) {
    this.library = rabbit.createConsumer(
      {
        queue,
        // The harness declares queues: a passive declare checks the queue without changing it.
        queueOptions: { passive: true },
        noAck: options.ack === 'auto',
        ...(options.ack === 'manual' && options.prefetch ? { qos: { prefetchCount: options.prefetch } } : {}),
      },
      (message) => this.handle(message),
    );
    this.library.on('ready', () => {
      this.firstSetup?.resolve();
      this.owner.consumerReady();
    });
    this.library.on('error', (error: unknown) => {
      // Setup failures, forced cancels, acks on a dead channel: the library retries by itself.
      if (isCancelledByServer(error)) this.owner.signal('consumer_cancelled', error);
      else if (!this.cancelled && isServerChannelClose(error)) this.owner.signal('channel_closed', error);
      // A channel error means the channel is gone: its pending deliveries cannot be acked.
      if (error instanceof AMQPChannelError) this.release();
      this.firstSetup?.reject(error);
    });
  }

  /** Consuming on a live channel (the library clears the tag when its channel closes or the broker cancels). */
  get consuming(): boolean {
    return !this.cancelled && this.library.consumerTag !== '';
  }

  /** Resolves at the first `ready`; rejects at the first setup error or after `boundMs`. */
  async started(boundMs: number): Promise<void> {
    const setup = new Promise<void>((resolve, reject) => {
      this.firstSetup = { resolve, reject };
    });
    try {
      await bounded(setup, boundMs, `the consumer was not ready within ${boundMs} ms`);
    } finally {
      this.firstSetup = undefined;
    }
  }

  /** The connection failed: the channel of every pending delivery is gone. */
  connectionLost(): void {
    this.release();
  }

  async cancel(): Promise<void> {
    if (this.cancelled) return;
    this.cancelled = true;
    this.owner.forget(this);
    this.release();
    // The library cancels, waits for pending handlers (released above) and closes the channel.
    await bounded(this.library.close(), CLOSE_BOUND_MS, '').catch(() => undefined);
  }

  private handle(message: AsyncMessage): Promise<ConsumerStatus> | ConsumerStatus | undefined {
    // Deliveries racing a cancel go back to the queue; the harness asked for no more.
    if (this.cancelled) return this.options.ack === 'auto' ? undefined : ConsumerStatus.REQUEUE;
    const body = asBuffer(message.body);
    const redelivered = message.redelivered;
    if (this.options.ack === 'auto') {
      this.onDelivery({ body, redelivered, ack: noAck });
      return undefined;
    }
    return new Promise<ConsumerStatus>((resolve) => {
      const settle = (status: ConsumerStatus): void => {
        if (this.pending.delete(settle)) resolve(status);
      };
      this.pending.add(settle);
      try {
        // No ackUpTo: the library settles each delivery by its handler's result, one at a time.
        this.onDelivery({
          body,
          redelivered,
          ack: () => settle(ConsumerStatus.ACK),
          nack: (requeue) => settle(requeue ? ConsumerStatus.REQUEUE : ConsumerStatus.DROP),
        });
      } catch (error) {
        // The library nacks (requeue) a delivery whose handler failed and reports the error.
        this.pending.delete(settle);
        throw error;
      }
    });
  }

  private release(): void {
    for (const settle of [...this.pending]) settle(ConsumerStatus.REQUEUE);
  }
}

/**
 * The body as the broker sent it. The library decodes `text/plain` bodies to strings and
 * `application/json` bodies to values; the harness publishes raw Buffers (no content type), so
 * this only matters for messages from elsewhere (JSON comes back re-serialised).
 */
function asBuffer(body: unknown): Buffer {
  if (Buffer.isBuffer(body)) return body;
  if (typeof body === 'string') return Buffer.from(body, 'utf8');
  return Buffer.from(JSON.stringify(body) ?? '', 'utf8');
}
