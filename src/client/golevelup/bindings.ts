/**
 * Publishing and consuming through the module's own `AmqpConnection` API. The module has one
 * publishing channel per connection, its default channel (a ChannelWrapper in confirm mode:
 * amqp-connection-manager's `createChannel` confirms unless told otherwise, and the module passes
 * only a name), so every publish, plain or not, resolves on the broker's confirm. A subscriber
 * (`createSubscriber`) is a setup function on that channel, which the wrapper re-runs on every
 * reconnection: checkQueue, then basic.consume; its handler's promise decides the ack (resolved:
 * basic.ack, a `Nack`: basic.nack).
 */
import { randomUUID } from 'node:crypto';
import type { Channel, ConsumeMessage } from 'amqplib';
import { TimeoutError } from '../../errors';
import { nowNs } from '../../measure/clock';
import type { ClientFault, ConsumeOptions, Consumer, Delivery, Publisher, PublishOptions } from '../api';
import { bounded } from '../bounded';
import { amqplibFaultWords } from '../amqplib/library';
import { faultErrorOf } from '../faults';
import { type ClientFaultError, PublishNackedError } from '../types';
import { golevelupModules, type GolevelupAmqpConnection, type GolevelupNack } from './golevelupApi';
import { GOLEVELUP_DEFAULT_PREFETCH } from './settings';

/** What a publisher or consumer needs from its connection. */
export interface ModuleOwner {
  readonly amqp: GolevelupAmqpConnection;
  /** The fault of the current outage, or undefined when up. */
  readonly currentFault: ClientFault | undefined;
  readonly state: 'up' | 'down' | 'closed';
  /** The last error the default channel emitted (a setup that failed), for a timeout's message. */
  readonly lastChannelError: unknown;
  forget(consumer: GolevelupConsumer): void;
}

/** Bound on a subscriber's first consume while up (the module's promise never settles when its setup fails). */
const SUBSCRIBE_BOUND_MS = 10_000;
/** Bound on the module's consumer cancel (a dead peer never answers). */
const CANCEL_BOUND_MS = 1000;
/** amqplib's confirm callback error for a basic.nack, which the wrapper passes on. */
const NACKED = 'message nacked';

function faultError(owner: ModuleOwner, what: string, error: unknown): ClientFaultError {
  return faultErrorOf(owner.currentFault, what, error, amqplibFaultWords);
}

/**
 * `AmqpConnection.publish` (a Buffer goes out as it is). While disconnected the message waits in
 * the wrapper's queue and the promise stays pending until the reconnection; one written but not
 * confirmed when the connection drops is rejected ("channel closed"): a ClientFaultError.
 */
export class GolevelupPublisher implements Publisher {
  private readonly pending = new Set<Promise<void>>();

  constructor(
    readonly confirms: boolean,
    private readonly owner: ModuleOwner,
  ) {}

  publish(exchange: string, routingKey: string, body: Buffer, options: PublishOptions = {}): Promise<void> {
    const sent = this.owner.amqp.publish(exchange, routingKey, body, { persistent: options.persistent ?? false }).then(
      () => undefined,
      (error: unknown) => {
        if (error instanceof Error && error.message === NACKED && !this.owner.currentFault)
          throw new PublishNackedError('publish not confirmed: the broker nacked it (basic.nack)', nowNs(), { cause: error });
        throw faultError(this.owner, 'publish not confirmed', error);
      },
    );
    this.pending.add(sent);
    const forget = () => void this.pending.delete(sent);
    void sent.then(forget, forget);
    return sent;
  }

  /** Every publish so far confirmed (the module's publishes are all confirmed). */
  async flush(boundMs: number): Promise<void> {
    await bounded(Promise.all([...this.pending]), boundMs, `flush: the broker did not confirm every message within ${boundMs} ms`);
  }

  /** Nothing of its own to close: the default channel is the connection's. */
  async close(): Promise<void> {
    await Promise.resolve();
  }
}

/**
 * A subscriber through `AmqpConnection.createSubscriber`, with a consumer tag of its own (so the
 * module's `cancelConsumer` finds it after a reconnection) and the bytes as they came (the
 * module's default deserializer is JSON.parse). Its prefetch is set by a setup added before the
 * subscriber's (the module sets one prefetch per channel, in its config): the wrapper re-runs
 * both, in order, on every reconnection.
 */
export class GolevelupConsumer implements Consumer {
  private readonly tag = `amqp-bench-${randomUUID()}`;
  /** Handlers waiting for the harness's ack or nack, each with how to settle it. */
  private readonly waiting = new Set<(response: GolevelupNack | undefined) => void>();

  constructor(
    private readonly queue: string,
    private readonly options: ConsumeOptions,
    private readonly onDelivery: (delivery: Delivery) => void,
    private readonly owner: ModuleOwner,
  ) {}

  async start(): Promise<void> {
    // Automatic ack is the module's own model: the handler returns, the module acks (with its default prefetch).
    const prefetch = this.options.ack === 'manual' ? (this.options.prefetch ?? 0) : GOLEVELUP_DEFAULT_PREFETCH;
    const channel = this.owner.amqp.managedChannel;
    await channel.addSetup((raw: Channel) => raw.prefetch(prefetch).then(() => undefined));
    const subscribed = this.owner.amqp.createSubscriber(
      (_message: unknown, raw?: ConsumeMessage) => this.handle(raw),
      { queue: this.queue, createQueueIfNotExists: false, deserializer: (content: Buffer) => content },
      'amqp-bench',
      { consumerTag: this.tag },
    );
    // While down the subscriber is a setup of the default channel and starts with the next connection.
    if (this.owner.state !== 'up') return;
    try {
      await bounded(subscribed, SUBSCRIBE_BOUND_MS, '');
    } catch {
      const cause = this.owner.lastChannelError === undefined ? '' : `: ${String((this.owner.lastChannelError as Error).message)}`;
      throw new TimeoutError(
        `@golevelup/nestjs-rabbitmq: the subscriber on ${this.queue} was not consuming within ${SUBSCRIBE_BOUND_MS} ms${cause}`,
      );
    }
  }

  /** The module's cancel (basic.cancel on the channel it registered the tag with); its setup stays. */
  async cancel(): Promise<void> {
    this.owner.forget(this);
    await bounded(this.owner.amqp.cancelConsumer(this.tag), CANCEL_BOUND_MS, '').catch(() => undefined);
  }

  /** Hands every handler still waiting back to the module as a requeueing `Nack` (its close waits for them). */
  release(): void {
    for (const settle of [...this.waiting]) settle(new (golevelupModules().Nack)(true));
  }

  private handle(raw: ConsumeMessage | undefined): Promise<GolevelupNack | undefined> {
    if (raw === undefined) return Promise.resolve(undefined);
    const delivery = { body: raw.content, redelivered: raw.fields.redelivered };
    if (this.options.ack === 'auto') {
      this.onDelivery({ ...delivery, ack: () => undefined });
      return Promise.resolve(undefined);
    }
    return new Promise((resolve) => {
      const settle = (response: GolevelupNack | undefined) => {
        if (this.waiting.delete(settle)) resolve(response);
      };
      this.waiting.add(settle);
      this.onDelivery({ ...delivery, ack: () => settle(undefined), nack: (requeue) => settle(new (golevelupModules().Nack)(requeue)) });
    });
  }
}
