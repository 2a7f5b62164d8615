/**
 * One amqp-connection-manager connection under test. The library recovers by itself: after a
 * drop it waits `reconnectTimeInSeconds` (fixed), connects to the next URL of its list
 * (round robin), and every ChannelWrapper opens a new channel, re-runs its setup functions and
 * re-consumes before emitting 'connect'. This class only listens: the fault from the earliest
 * event, "back" once the manager and every wrapper are connected again.
 */
import { connect, type AmqpConnectionManagerOptions, type AmqpConnectionManager } from 'amqp-connection-manager';
import type { ChannelModel } from 'amqplib';
import { BrokerError, describeError, TimeoutError } from '../../errors';
import { redactText } from '../../redact';
import type { ClientInfo, ConsumeOptions, Consumer, Delivery, Publisher } from '../api';
import { socketOf } from '../amqplib/common';
import { amqplibFaultWords } from '../amqplib/library';
import { ConnectionBase } from '../connectionBase';
import { AcmConsumer, AcmPublisher, type WrapperBinding, type WrapperOwner } from './channels';
import { withinMs } from '../../measure/clock';
import { unwrapUnhandled } from '../unhandledError';

/** Bound on the library's polite close (it waits for a connect attempt in flight, then for CloseOk; a dead peer never answers). */
const CLOSE_BOUND_MS = 1000;
/** Bound on a new publisher's or consumer's first channel (`publisher()`, `consume()` while up). */
const CHANNEL_OPEN_BOUND_MS = 10_000;

export class AcmConnection extends ConnectionBase implements WrapperOwner {
  protected override readonly faultWords = amqplibFaultWords;
  readonly info: ClientInfo;
  readonly manager: AmqpConnectionManager;
  generation = 0;
  /** The library's current connection, or its last one while down (its socket's port matches the proxy's records). */
  private model: ChannelModel | undefined;
  /** The manager has a connection ('connect' seen, no 'disconnect' since). */
  private managerUp = false;
  private readonly bindings = new Set<WrapperBinding>();
  private lastConnectError: unknown;

  constructor(info: ClientInfo, urls: readonly string[], options: AmqpConnectionManagerOptions) {
    super();
    this.info = info;
    this.current = 'down';
    // Every URL: the library round-robins over the list on each (re)connection.
    this.manager = connect([...urls], options);
    this.manager.on('connect', () => this.onLibraryConnect());
    this.manager.on('disconnect', ({ err }: { err?: Error }) => this.onLibraryDisconnect(err));
    this.manager.on('connectFailed', ({ err }: { err: Error }) => {
      this.lastConnectError = err;
      if (this.outage) this.attemptsSinceFault += 1;
    });
    // The manager's own connection.blocked / unblocked events (forwarded from each amqplib connection).
    this.manager.on('blocked', ({ reason }: { reason: string }) => this.current !== 'closed' && this.reportSignal('blocked', reason));
    this.manager.on('unblocked', () => this.current !== 'closed' && this.reportSignal('unblocked', undefined));
  }

  get localPort(): number | undefined {
    return socketOf(this.model)?.localPort;
  }

  /**
   * Resolves once the library's first connection is up.
   * @throws BrokerError at once when the broker refuses the credentials (the library would retry them forever)
   * @throws TimeoutError naming the last failed attempt
   */
  async started(boundMs: number): Promise<void> {
    let onFailed: (arg: { err: Error }) => void = () => undefined;
    const refused = new Promise<Error>((resolve) => {
      onFailed = ({ err }) => {
        if (/ACCESS-REFUSED|\b403\b/.test(err.message)) resolve(err);
      };
      this.manager.on('connectFailed', onFailed);
    });
    try {
      const outcome = await Promise.race([this.waitUntilBack(boundMs), refused]);
      if (outcome === true) return;
      if (outcome instanceof Error)
        throw new BrokerError(
          `amqp-connection-manager: the broker refused the login (${redactText(outcome.message)}); check the user name and password in the URL`,
        );
    } finally {
      this.manager.removeListener('connectFailed', onFailed);
    }
    const last = this.lastConnectError === undefined ? 'no attempt finished' : redactText(describeError(this.lastConnectError));
    throw new TimeoutError(`amqp-connection-manager did not connect within ${boundMs} ms (last attempt: ${last})`);
  }

  async publisher(options: { readonly confirms: boolean }): Promise<Publisher> {
    const publisher = new AcmPublisher(options.confirms, this);
    this.bindings.add(publisher);
    if (this.current === 'up') await this.readyWithin(publisher, 'publisher');
    return publisher;
  }

  async consume(queue: string, options: ConsumeOptions, onDelivery: (delivery: Delivery) => void): Promise<Consumer> {
    const consumer = new AcmConsumer(queue, options, onDelivery, this);
    this.bindings.add(consumer);
    // While down the consumer is registered with its wrapper and starts with the next connection.
    if (this.current === 'up') await this.readyWithin(consumer, 'consumer');
    await consumer.start();
    return consumer;
  }

  destroy(reason: string): void {
    const socket = socketOf(this.manager.connection);
    this.reportFault(new Error(`connection destroyed by the client: ${reason}`), 'deadline');
    // With an error, so amqplib's socket handler runs and the library reconnects as after a network fault.
    socket?.destroy(new Error(`connection destroyed by the client: ${reason}`));
  }

  /**
   * The library's close (stops its retry timer, closes every wrapper, then the connection),
   * bounded; then the socket is destroyed whatever the peer did. A connection the library
   * completes after the bound (an attempt in flight) is destroyed when it arrives.
   */
  async close(): Promise<void> {
    if (this.current === 'closed') return;
    this.markClosed();
    this.generation += 1;
    const manager = this.manager;
    const closedInTime = await withinMs(manager.close(), CLOSE_BOUND_MS);
    const model = manager.connection ?? this.model;
    this.model = undefined;
    if (!closedInTime) {
      this.noteCloseBoundHit();
      // Gave up on the polite close: reject what the wrappers still queue, and keep the
      // library's reconnect handler from scheduling one more (pointless) attempt timer.
      for (const binding of this.bindings) void binding.wrapper.close().catch(() => undefined);
      model?.removeAllListeners('close');
      manager.on('connect', () => destroyWithError(manager.connection, 'connection completed after close()'));
    }
    // With an error: amqplib clears its heartbeat timers only once its socket handler runs.
    destroyWithError(model, 'closed by the harness');
  }

  bindingReady(): void {
    if (this.current === 'down' && this.managerUp && [...this.bindings].every((binding) => binding.ready)) this.reportBack();
  }

  forget(binding: WrapperBinding): void {
    this.bindings.delete(binding);
    this.bindingReady();
  }

  private onLibraryConnect(): void {
    if (this.current === 'closed') return;
    const model = this.manager.connection;
    this.model = model;
    // amqplib's 'error' (ECONNRESET, "Unexpected close", a broker's 320, missed heartbeats)
    // comes before the library's 'disconnect', which it emits from amqplib's 'close' after
    // every channel has closed: the earliest moment the fault is known, so it is timed here.
    model?.on('error', (error: Error) => {
      if (this.model === model) this.reportFault(unwrapUnhandled(error));
    });
    if (this.outage) this.attemptsSinceFault += 1;
    this.managerUp = true;
    this.bindingReady();
  }

  private onLibraryDisconnect(error: Error | undefined): void {
    this.generation += 1;
    this.managerUp = false;
    for (const binding of this.bindings) binding.ready = false;
    // A clean close by the broker (200) or a FIN without an 'error' reaches us only here.
    this.reportFault(error ? unwrapUnhandled(error) : new Error('connection closed'), error ? undefined : 'closed');
  }

  /** Waits (bounded) until a new wrapper has its channel, as `publisher()`/`consume()` promise. */
  private async readyWithin(binding: WrapperBinding & { lastError?: unknown }, what: string): Promise<void> {
    if (await withinMs(binding.wrapper.waitForConnect(), CHANNEL_OPEN_BOUND_MS)) return;
    const cause = binding.lastError === undefined ? '' : `: ${describeError(binding.lastError)}`;
    throw new TimeoutError(`amqp-connection-manager: the ${what}'s channel was not open within ${CHANNEL_OPEN_BOUND_MS} ms${cause}`);
  }
}

function destroyWithError(model: ChannelModel | undefined, reason: string): void {
  socketOf(model)?.destroy(new Error(reason));
}
