/**
 * A publisher on rabbitmq-client's own `createPublisher` (what its docs recommend): it opens its
 * channel on the first send and, after a reconnection, again on the next send. A send while the
 * connection is down waits in `acquire()` for the reconnection (up to `acquireTimeout`, 20 s by
 * default) and then goes out: the library queues publishes, it does not fail them. The harness
 * tells such a publish by the connection's state (`down`, with `currentFault`) when it started,
 * and by its latency.
 *
 * A channel the broker closes (e.g. a confirmed send to a deleted exchange: 404) fails every send
 * pending on it, as the library rejects them (kind `channel_closed`), and is the `channel_closed`
 * signal; the library gives the close's own error to the oldest unconfirmed send, which may be
 * another send than the one that caused it (./signals.ts). A basic.nack rejects with
 * PublishNackedError. Nothing is re-sent: the library's next send opens a new channel.
 */
import type { Channel, Connection, Publisher as LibraryPublisher, PublisherProps } from 'rabbitmq-client';
import { nowNs } from '../../measure/clock';
import type { Publisher, PublishOptions, SignalKind } from '../api';
import { bounded } from '../bounded';
import type { FaultKind } from '../faults';
import { PublishNackedError, type ClientFaultError } from '../types';
import { isNack, isServerChannelClose } from './signals';

/** What a publisher needs of its connection. */
export interface PublisherOwner {
  /** The publish failed: a ClientFaultError with the current outage's kind and time, or the error's own (or `kind`). */
  faultFrom(error: unknown, kind?: FaultKind): ClientFaultError;
  /** A typed signal the library gave through this publisher (a channel closed by the broker). */
  signal(kind: SignalKind, cause: unknown): void;
  forget(publisher: RabbitmqClientPublisher): void;
}

/** A server-side exchange that always exists: a passive declare of it is a cheap synchronous round trip. */
const ALWAYS_THERE = 'amq.direct';
const CLOSE_BOUND_MS = 1000;

export class RabbitmqClientPublisher implements Publisher {
  private readonly library: LibraryPublisher;
  /** The channel the library's publisher uses now (see `createObservedPublisher`). */
  private channel: Channel | undefined;
  private published = false;
  /**
   * The last send: a channel's sends settle in order (written, or confirmed: the broker confirms
   * in publish order), so `flush` waits for this one only. One promise per send, no set to keep:
   * each publish is awaited by its caller, so anything per send adds to every message's time.
   */
  private lastSent: Promise<void> | undefined;
  /** Sends settled so far (they settle in order), and the latest that failed, by its place in that order. */
  private settled = 0;
  private failure: { readonly settledAs: number; readonly fault: ClientFaultError | PublishNackedError } | undefined;
  private readonly onSent = (): void => {
    this.settled += 1;
  };
  private readonly onFailed = (error: unknown): never => {
    this.settled += 1;
    const fault = this.failureOf(error);
    this.failure = { settledAs: this.settled, fault };
    throw fault;
  };

  constructor(
    readonly confirms: boolean,
    rabbit: Connection,
    private readonly owner: PublisherOwner,
  ) {
    this.library = createObservedPublisher(rabbit, { confirm: confirms }, (channel) => {
      this.channel = channel;
    });
  }

  publish(exchange: string, routingKey: string, body: Buffer, options: PublishOptions = {}): Promise<void> {
    this.published = true;
    const envelope = options.persistent ? { exchange, routingKey, durable: true } : { exchange, routingKey };
    const sent = this.library.send(envelope, body).then(this.onSent, this.onFailed);
    this.lastSent = sent;
    return sent;
  }

  /**
   * Confirms: every send outstanding now is confirmed. Plain: those sends are written, then one
   * round trip on the publisher's own channel (the broker handles a channel's frames in order;
   * another channel's reply would prove nothing about this one's messages).
   */
  async flush(boundMs: number): Promise<void> {
    const flushed = async (): Promise<void> => {
      // A send that failed before this flush was told to its caller; one still in flight now is the flush's failure.
      const settledBefore = this.settled;
      await this.lastSent?.catch(() => undefined);
      if (this.failure && this.failure.settledAs > settledBefore) throw this.failure.fault;
      if (this.confirms || !this.published) return;
      const channel = this.channel;
      if (!channel) {
        throw new Error(
          "rabbitmq-client's createPublisher no longer opens its channel through Connection.acquire(); update createObservedPublisher in src/client/rabbitmqClient/publisher.ts",
        );
      }
      // Inactive on a live connection: the broker closed it (told as the signal when it did).
      if (!channel.active) throw this.owner.faultFrom(new Error("the publisher's channel closed after the last publish"), 'channel_closed');
      await channel.exchangeDeclare({ exchange: ALWAYS_THERE, passive: true }).catch((error: unknown) => {
        throw this.failureOf(error);
      });
    };
    await bounded(flushed(), boundMs, `flush: the broker did not answer within ${boundMs} ms`);
  }

  /** A send's (or the flush's) rejection as the harness's error; a broker's channel close is also the signal. */
  private failureOf(error: unknown): ClientFaultError | PublishNackedError {
    if (isNack(error)) return new PublishNackedError(`publish nacked by the broker: ${error.message}`, nowNs(), { cause: error });
    if (isServerChannelClose(error)) this.owner.signal('channel_closed', error);
    return this.owner.faultFrom(error);
  }

  async close(): Promise<void> {
    this.owner.forget(this);
    // Waits for pending confirms; a send stuck waiting for a reconnection makes it wait too: bounded.
    await bounded(this.library.close(), CLOSE_BOUND_MS, '').catch(() => undefined);
  }
}

/**
 * `rabbit.createPublisher(props)`, telling `onChannel` each channel it opens. The library's
 * Publisher keeps its channel to itself; it opens it (and re-opens it after a reconnection)
 * through `this.acquire()`, so calling `createPublisher` on an object that inherits everything
 * from the connection but observes `acquire` gives exactly the library's publisher, whose
 * channel `flush` can use. Should a later version open it otherwise, `flush` says so.
 */
function createObservedPublisher(rabbit: Connection, props: PublisherProps, onChannel: (channel: Channel) => void): LibraryPublisher {
  const observed = Object.create(rabbit) as Connection;
  observed.acquire = async (options) => {
    const channel = await rabbit.acquire(options);
    onChannel(channel);
    return channel;
  };
  return rabbit.createPublisher.call(observed, props);
}
