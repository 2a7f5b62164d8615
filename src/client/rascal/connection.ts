/**
 * One rascal broker (one vhost, one AMQP connection) under test. rascal recovers by itself: after
 * a connection error or close its vhost pauses channel allocation, emits 'disconnect' and
 * 'error' (or 'close'), and at once initialises itself again, retrying after a failure with its
 * `connection.retry` backoff (lib/amqp/Vhost.js:491-516); each subscription subscribes again once
 * a channel can be had (lib/amqp/Subscription.js:302-334). This class only listens: the fault
 * from the broker's 'error' / 'close', "back" at its 'connect'. rascal gives no event when a
 * subscription consumes again, so "back" means the connection is, and the consumers follow.
 */
import { BrokerError, describeError, TimeoutError } from '../../errors';
import { redactText } from '../../redact';
import type { ClientInfo, ClientProfile, ConsumeOptions, Consumer, Delivery, Publisher } from '../api';
import { amqplibFaultWords } from '../amqplib/library';
import { ConnectionBase } from '../connectionBase';
import { SocketWitness } from '../socketWitness';
import { RascalConsumer, RascalPublisher, type RascalOwner } from './channels';
import { rascalModule, type RascalBroker, type RascalPoolStats } from './rascalApi';
import { rascalConfigOf } from './settings';
import { withinMs } from '../../measure/clock';

/** Bound on rascal's shutdown (it cancels every subscription, drains the pools, closes the connection; a dead peer never answers). */
const CLOSE_BOUND_MS = 2000;

export class RascalConnection extends ConnectionBase implements RascalOwner {
  protected override readonly faultWords = amqplibFaultWords;
  readonly info: ClientInfo;
  private created: RascalBroker | undefined;
  private readonly witness = new SocketWitness();
  /** The channel pools rascal said 'busy' of, until their 'ready' (the pools outlive reconnections: lib/amqp/Vhost.js:447-458). */
  private readonly busyPools = new Set<RascalPoolStats['mode']>();

  constructor(info: ClientInfo) {
    super();
    this.info = info;
    this.current = 'down';
  }

  get broker(): RascalBroker {
    if (this.created === undefined) throw new Error('rascal: the broker is not created yet');
    return this.created;
  }

  get localPort(): number | undefined {
    return this.witness.socket?.localPort;
  }

  /**
   * Creates the broker (rascal connects once, failing at once when it cannot: no retry before
   * the first connection), bounded.
   * @throws BrokerError when the broker refuses the credentials
   * @throws TimeoutError when not connected within `boundMs`
   */
  async start(profile: ClientProfile, urls: readonly string[], connectionName: string | undefined, boundMs: number): Promise<void> {
    const creating = this.witness.run(() => rascalModule().BrokerAsPromised.create(rascalConfigOf(profile, urls, connectionName)));
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), boundMs);
    });
    try {
      const outcome = await Promise.race([creating, timedOut]);
      if (outcome === 'timeout') {
        // A broker created after the bound is shut down when it arrives.
        void creating.then((late) => late.shutdown()).catch(() => undefined);
        throw new TimeoutError(`rascal did not connect within ${boundMs} ms`);
      }
      this.created = outcome;
    } catch (error) {
      await shutdownPartial(error);
      if (error instanceof TimeoutError) throw error;
      const words = redactText(describeError(error));
      if (/ACCESS-REFUSED|\b403\b/.test(words))
        throw new BrokerError(`rascal: the broker refused the login (${words}); check the user name and password in the URL`);
      throw new BrokerError(`rascal could not connect: ${words}`);
    } finally {
      clearTimeout(timer);
    }
    this.listen(this.broker);
    this.reportBack();
  }

  async publisher(options: { readonly confirms: boolean }): Promise<Publisher> {
    return new RascalPublisher(options.confirms, this);
  }

  async consume(queue: string, options: ConsumeOptions, onDelivery: (delivery: Delivery) => void): Promise<Consumer> {
    const consumer = new RascalConsumer(queue, options, onDelivery, this);
    // While down, rascal's channel queue is paused: the subscription starts with the next connection.
    await consumer.start(this.current === 'up');
    return consumer;
  }

  destroy(reason: string): void {
    const error = new Error(`connection destroyed by the client: ${reason}`);
    this.reportFault(error, 'deadline');
    // With an error, so amqplib's socket handler runs and rascal reconnects as after a network fault.
    this.witness.socket?.destroy(error);
  }

  /** rascal's shutdown, bounded; then every socket it opened is destroyed whatever the peer did. */
  async close(): Promise<void> {
    if (this.current === 'closed') return;
    this.markClosed();
    const broker = this.created;
    if (broker !== undefined && !(await withinMs(broker.shutdown(), CLOSE_BOUND_MS))) this.noteCloseBoundHit();
    for (const socket of this.witness.open) socket.destroy(new Error('closed by the harness'));
  }

  subscriptionError(error: unknown): void {
    // A connection error reaches every subscription after the broker's own 'error' (rascal's
    // vhost listens first): only a subscription's channel closing while the connection stays is a signal.
    if (this.current === 'up') this.reportSignal('channel_closed', error);
  }

  publicationError(error: unknown): void {
    // Only a channel the broker closed while the connection stays (a nack or a timeout is not one).
    if (this.current === 'up' && this.faultKindOf(error) === 'channel_closed') this.reportSignal('channel_closed', error);
  }

  subscriptionCancelled(error: unknown): void {
    if (this.current === 'up') this.reportSignal('consumer_cancelled', error);
  }

  outside<T>(callback: () => T): T {
    return SocketWitness.outside(callback);
  }

  poolBusy(mode: RascalPoolStats['mode']): boolean {
    return this.busyPools.has(mode);
  }

  private listen(broker: RascalBroker): void {
    // The vhost's 'error' (or 'close', for a close without error) is the drop; during an outage
    // each failed attempt emits 'error' again, and a successful one 'connect'.
    broker.on('error', (error: unknown) =>
      this.outside(() => {
        if (this.current === 'up') this.reportFault(error);
        else if (this.current === 'down') this.attemptsSinceFault += 1;
      }),
    );
    broker.on('close', () => this.outside(() => this.reportFault(new Error('connection closed'), 'closed')));
    broker.on('connect', () =>
      this.outside(() => {
        if (this.current !== 'down') return;
        this.attemptsSinceFault += 1;
        this.reportBack();
      }),
    );
    broker.on('busy', (stats: RascalPoolStats) => this.busyPools.add(stats.mode));
    broker.on('ready', (stats: RascalPoolStats) => this.busyPools.delete(stats.mode));
    broker.on('blocked', (reason: unknown) => this.outside(() => this.current !== 'closed' && this.reportSignal('blocked', reason)));
    broker.on('unblocked', () => this.outside(() => this.current !== 'closed' && this.reportSignal('unblocked', undefined)));
  }
}

/** A broker rascal created but whose initialisation failed (attached to the error) holds a keep-alive timer: shut it down. */
async function shutdownPartial(error: unknown): Promise<void> {
  const key = (error as { broker?: unknown } | null)?.broker;
  if (typeof key !== 'symbol') return;
  const partial = (error as Record<symbol, RascalBroker | undefined>)[key];
  if (partial !== undefined) await withinMs(partial.shutdown(), CLOSE_BOUND_MS);
}
