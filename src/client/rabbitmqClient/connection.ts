/**
 * One rabbitmq-client `Connection` behind the harness's `ClientConnection`, recovered by the
 * library alone (no harness loop):
 * - the Connection reconnects from the moment its socket closes, after `retryLow`..`retryHigh`
 *   (exponential, jittered), going round `hosts` when there are several;
 * - each Consumer re-runs its setup on a new channel with the same backoff, started when its
 *   channel closed (so consumers come back at max(connection delay, consumer delay));
 * - each Publisher re-opens its channel on its next send.
 *
 * Faults: the library's connection `error` event is the earliest it tells of a broken
 * connection. It is emitted in the socket's `close` handler (after the socket's own `error`,
 * in the same tick for a reset; for a FIN after the socket's `end`, once Node has closed its side
 * too: 0.2–5 ms later in a local measurement), once per outage: the library mutes it for later
 * failed attempts.
 * It is also the library's "last resort" for channel errors nobody took (a plain publisher's channel
 * closed by the broker): those are told apart by the library's own error classes and readiness, and
 * reported as the `channel_closed` signal (./signals.ts). `reportBack` comes once the library has
 * reconnected and every consumer consumes again (publishers need nothing: they recover on send).
 *
 * Signals come from the library's own events (./signals.ts says which): the Connection's
 * `connection.blocked` / `connection.unblocked`, channel errors of sends and consumers, and the
 * Consumer's `CANCEL_FORCED`. While blocked the library corks its socket: the adapter lets the
 * harness see that (sends that hang or resolve unsent); only its own `close` stays bounded.
 *
 * The library does not report its failed attempts, so `EnsureResult.attempts` is 1 after any outage.
 */
import type { Socket } from 'node:net';
import { Connection, type ConnectionOptions } from 'rabbitmq-client';
import { BrokerError, describeError } from '../../errors';
import { redactText } from '../../redact';
import { nowNs } from '../../measure/clock';
import type { ClientInfo, ConsumeOptions, Consumer, Delivery, Publisher, SignalKind } from '../api';
import { bounded } from '../bounded';
import { ConnectionBase } from '../connectionBase';
import { classifyFault, type FaultKind } from '../faults';
import { rabbitmqClientFaultWords } from './library';
import { ClientFaultError } from '../types';
import { RabbitmqClientConsumer, type ConsumerOwner } from './consumer';
import { RabbitmqClientPublisher, type PublisherOwner } from './publisher';
import { isChannelError, isChannelLevel, isServerChannelClose } from './signals';

const CLOSE_BOUND_MS = 1000;
/** How long `consume` waits for a consumer's first setup (channel open, passive declare, qos, consume: up to four round trips). */
const FIRST_SETUP_BOUND_MS = 10_000;

/** The socket under a Connection: internal (`_socket`, replaced on every attempt), but the only way to its local port. */
function socketOf(rabbit: Connection): Socket | undefined {
  return (rabbit as unknown as { _socket?: Socket })._socket;
}

export class RabbitmqClientConnection extends ConnectionBase implements PublisherOwner, ConsumerOwner {
  protected override readonly faultWords = rabbitmqClientFaultWords;
  readonly info: ClientInfo;
  private readonly rabbit: Connection;
  private readonly publishers = new Set<RabbitmqClientPublisher>();
  private readonly consumers = new Set<RabbitmqClientConsumer>();
  /** Between the library's `connection` event and the next failure. */
  private libraryConnected = false;
  private closing: Promise<void> | undefined;

  constructor(info: ClientInfo, options: ConnectionOptions) {
    super();
    this.info = info;
    this.current = 'down';
    this.rabbit = new Connection(options);
    this.rabbit.on('error', (error: unknown) => this.onLibraryError(error));
    this.rabbit.on('connection', () => {
      this.libraryConnected = true;
      this.maybeBack();
    });
    this.rabbit.on('connection.blocked', (reason: string) => this.reportSignal('blocked', reason));
    this.rabbit.on('connection.unblocked', () => this.reportSignal('unblocked', undefined));
  }

  get localPort(): number | undefined {
    return socketOf(this.rabbit)?.localPort;
  }

  /**
   * Resolves at the first connection.
   * @throws BrokerError at once when the broker refuses the login or the vhost (the library would retry forever)
   * @throws BrokerError when there is no connection within `boundMs`, with the first failure the library told
   */
  async started(boundMs: number, target: string): Promise<void> {
    let firstError: unknown;
    let onConnection: () => void = () => undefined;
    let onError: (error: unknown) => void = () => undefined;
    let timer: NodeJS.Timeout | undefined;
    const outcome = await new Promise<'connected' | 'refused' | 'timeout'>((resolve) => {
      if (this.current === 'up') return resolve('connected');
      onConnection = () => resolve('connected');
      onError = (error) => {
        firstError ??= error;
        const code = (error as { code?: unknown } | undefined)?.code;
        if (code === 'ACCESS_REFUSED' || code === 'NOT_ALLOWED') resolve('refused');
      };
      timer = setTimeout(() => resolve('timeout'), boundMs);
      this.rabbit.on('connection', onConnection);
      this.rabbit.on('error', onError);
    });
    clearTimeout(timer);
    this.rabbit.off('connection', onConnection);
    this.rabbit.off('error', onError);
    const told = firstError === undefined ? 'no attempt failed yet' : redactText(describeError(firstError));
    switch (outcome) {
      case 'connected':
        return;
      case 'refused':
        throw new BrokerError(
          `the broker at ${target} refused rabbitmq-client (${told}); check the user name, password and vhost in the URL`,
          {
            cause: firstError,
          },
        );
      case 'timeout':
        throw new BrokerError(
          `rabbitmq-client did not connect to ${target} within ${boundMs} ms (${told}); is the broker, or the proxy in front of it, up?`,
          { cause: firstError },
        );
    }
  }

  async publisher(options: { readonly confirms: boolean }): Promise<Publisher> {
    const publisher = new RabbitmqClientPublisher(options.confirms, this.rabbit, this);
    this.publishers.add(publisher);
    return publisher;
  }

  async consume(queue: string, options: ConsumeOptions, onDelivery: (delivery: Delivery) => void): Promise<Consumer> {
    const consumer = new RabbitmqClientConsumer(this.rabbit, queue, options, onDelivery, this);
    this.consumers.add(consumer);
    // While down, the library sets the consumer up once it is back (and `reportBack` waits for it).
    if (this.current !== 'up') return consumer;
    try {
      await consumer.started(FIRST_SETUP_BOUND_MS);
    } catch (error) {
      await consumer.cancel();
      throw new Error(
        `rabbitmq-client could not consume ${JSON.stringify(queue)}: ${describeError(error)}; the harness declares queues before consuming them`,
        {
          cause: error,
        },
      );
    }
    return consumer;
  }

  destroy(reason: string): void {
    const error = new Error(`connection destroyed by the client: ${reason}`);
    const socket = socketOf(this.rabbit);
    this.lost(error, 'deadline');
    // The library sees a socket closed with an error, as after a network fault, and recovers.
    socket?.destroy(error);
  }

  close(): Promise<void> {
    this.closing ??= this.closeOnce();
    return this.closing;
  }

  faultFrom(error: unknown, kind: FaultKind = this.kindOf(error)): ClientFaultError {
    const outage = this.outage;
    if (outage) return new ClientFaultError(`not connected: ${outage.message}`, outage.detectedNs, outage.kind, { cause: error });
    return new ClientFaultError(describeError(error), nowNs(), kind, { cause: error });
  }

  signal(kind: SignalKind, cause: unknown): void {
    this.reportSignal(kind, cause);
  }

  forget(member: RabbitmqClientPublisher | RabbitmqClientConsumer): void {
    if (member instanceof RabbitmqClientPublisher) this.publishers.delete(member);
    else this.consumers.delete(member);
  }

  consumerReady(): void {
    this.maybeBack();
  }

  /** On a live connection a channel error is its channel's close, whatever its words (`CH_CLOSE 'channel is closed'` too). */
  private kindOf(error: unknown): FaultKind {
    return isChannelError(error) ? 'channel_closed' : classifyFault(error, rabbitmqClientFaultWords);
  }

  private onLibraryError(error: unknown): void {
    // A channel error the library had nobody else to tell (a plain publisher's channel closed by
    // the broker): the connection is fine, the channel is gone.
    if (isChannelLevel(error)) {
      if (isServerChannelClose(error)) this.reportSignal('channel_closed', error);
      return;
    }
    // A connection failure is emitted after the library marked itself reconnecting; a stale
    // write error of an old channel can arrive once it is connected again.
    if (this.rabbit.ready) return;
    this.lost(error);
  }

  /** The connection failed (reported once per outage by `reportFault`). */
  private lost(error: unknown, kind?: FaultKind): void {
    this.reportFault(error, kind);
    this.libraryConnected = false;
    for (const consumer of this.consumers) consumer.connectionLost();
  }

  private maybeBack(): void {
    if (this.current !== 'down' || !this.libraryConnected) return;
    for (const consumer of this.consumers) if (!consumer.consuming) return;
    this.reportBack();
  }

  private async closeOnce(): Promise<void> {
    const connected = this.libraryConnected;
    this.markClosed();
    const members = async (): Promise<void> => {
      await Promise.all([
        ...[...this.consumers].map((consumer) => consumer.cancel()),
        ...[...this.publishers].map((publisher) => publisher.close()),
      ]);
    };
    // Connected: consumers and publishers first (the library's close waits for their channels).
    // Down: there is nothing to tell the broker; stopping the library first fails their pending
    // setups (waiting for a reconnection in acquire()) at once.
    if (connected) {
      // Each member's close is bounded at CLOSE_BOUND_MS: reaching it means one was cut short.
      const startedMs = Date.now();
      await members();
      if (Date.now() - startedMs >= CLOSE_BOUND_MS) this.noteCloseBoundHit();
    }
    // Stops the library's recovery; when connected, sends connection.close and waits for the socket to close.
    await bounded(this.rabbit.close(), CLOSE_BOUND_MS, '').catch(() => this.noteCloseBoundHit());
    // A dead peer never answers: whatever is left goes now (a no-op once the library is closed).
    this.rabbit.unsafeDestroy();
    if (!connected) await members();
  }
}
