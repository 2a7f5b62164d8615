/**
 * @cloudamqp/amqp-client with its own recovery (`cloudamqp`): one `AMQPSession`, which
 * reconnects with exponential backoff from the moment the connection drops and re-consumes the
 * subscriptions made through its queue handles. The harness adds no loop: `ensureConnected`
 * waits for the session.
 *
 * - Faults: the transport's `onerror` is the earliest event (on a reset it runs in the socket's
 *   `error`, one event-loop turn before the session's `ondisconnect`, which runs on `close`); the
 *   session's `ondisconnect` reports too (a no-op once the outage is known). The library words
 *   a reset `read ECONNRESET`, a FIN `Socket closed` and a broker close
 *   `connection closed: CONNECTION_FORCED - … (320)`.
 * - Back: the session calls `onconnect` after re-consuming; `reportBack` once every consumer
 *   consumes again. A subscription the session could not re-consume (its queue is gone: the
 *   session calls `onrecoverfailed` and tries again only at its next reconnection) keeps the
 *   connection down, and `ensureConnected` says why: the adapter re-consumes nothing itself.
 * - Signals (./signals.ts): `onblocked` / `onunblocked` of the session; a subscription's channel
 *   closed by the broker through the client's `onerror`; the rest through the handles (./handles.ts).
 * - Publishing while down fails at once with the outage's `ClientFaultError`: the library does
 *   not queue publishes (its client is closed until reconnected), and neither does the adapter.
 * - One URL: `AMQPSession.connect` takes one and reconnects to it.
 */
import { AMQPSession, type AMQPClient } from './amqpClient';
import type { Socket } from 'node:net';
import { TimeoutError } from '../../errors';
import type { ClientInfo, ClientProfile, ConsumeOptions, Consumer, Delivery, EnsureResult, Publisher, SignalKind } from '../api';
import { bounded } from '../bounded';
import { ConnectionBase } from '../connectionBase';
import { CloudamqpConsumer, CloudamqpPublisher, type HandleOwner } from './handles';
import { sessionTuningOf } from './settings';
import { isServerChannelClose } from './signals';
import { isChannelOnlyError, socketOf, transportOf } from './transport';

/** Bound on `session.stop()`: cancels every subscription, then Connection.Close; a dead peer answers neither. */
const STOP_BOUND_MS = 2000;

export class CloudamqpConnection extends ConnectionBase implements HandleOwner {
  readonly info: ClientInfo;
  private session: AMQPSession | undefined;
  private transport: AMQPClient | undefined;
  private readonly consumers = new Set<CloudamqpConsumer>();
  /** Every socket the transport used, so `close` can destroy any the library left open. */
  private readonly sockets = new Set<Socket>();
  /** What the session's `onrecoverfailed` said since the last disconnect. */
  private recoverFailures: string[] = [];
  /** Why the last reconnection is not complete (a consumer not consuming), for ensureConnected's error. */
  private recoveryProblem: string | undefined;
  /** Library errors already told as a signal: the library rejects every call pending on a closed channel with one error. */
  private readonly toldErrors = new WeakSet<object>();

  constructor(info: ClientInfo) {
    super();
    this.info = info;
    this.current = 'down';
  }

  get localPort(): number | undefined {
    return socketOf(this.transport)?.localPort;
  }

  forget(consumer: CloudamqpConsumer): void {
    this.consumers.delete(consumer);
  }

  signal(kind: SignalKind, cause: unknown): void {
    if (typeof cause === 'object' && cause !== null) {
      if (this.toldErrors.has(cause)) return;
      this.toldErrors.add(cause);
    }
    this.reportSignal(kind, cause);
  }

  async start(url: string, profile: ClientProfile, connectionName: string | undefined): Promise<void> {
    const session = await AMQPSession.connect(url, {
      ...sessionTuningOf(profile),
      ...(connectionName ? { name: connectionName } : {}),
      logger: null,
      // Runs before every attempt: counts reconnection attempts, and stops one that would open a
      // connection after close() (the session's loop checks `stopped` only before its wait).
      beforeConnect: () => {
        this.rememberSocket();
        if (this.current === 'closed') throw new Error('connection closed by the harness');
        if (this.current === 'down') this.attemptsSinceFault += 1;
      },
      ondisconnect: (error?: Error) => {
        this.reportFault(error ?? new Error('connection lost'), error ? undefined : 'closed');
        this.recoverFailures = [];
        this.recoveryProblem = undefined;
      },
      onconnect: () => this.onLibraryConnected(),
      onrecoverfailed: (queue: string, error: Error) => {
        this.recoverFailures.push(`consumer of ${JSON.stringify(queue)} not re-established by the session: ${error.message}`);
      },
      onblocked: (reason: string) => this.reportSignal('blocked', reason),
      onunblocked: () => this.reportSignal('unblocked', undefined),
    });
    let transport: AMQPClient;
    try {
      transport = transportOf(session);
    } catch (error) {
      await bounded(session.stop(), STOP_BOUND_MS, '').catch(() => undefined);
      throw error;
    }
    if (this.current === 'closed') {
      // close() ran while connecting (the harness's start bound): do not leave this one open.
      await bounded(session.stop(), STOP_BOUND_MS, '').catch(() => undefined);
      socketOf(transport)?.destroy();
      return;
    }
    this.session = session;
    this.transport = transport;
    this.rememberSocket();
    const libraryOnError = transport.onerror;
    transport.onerror = (error) => {
      // Timed here, in the library's handler: on a reset this is the socket's 'error'. A
      // subscription's channel closed by the broker comes here too (the session silences its own channels').
      if (!isChannelOnlyError(transport, error)) this.reportFault(error);
      else if (isServerChannelClose(error)) this.signal('channel_closed', error);
      libraryOnError.call(transport, error);
    };
    this.reportBack();
  }

  async publisher(options: { readonly confirms: boolean }): Promise<Publisher> {
    return new CloudamqpPublisher(options.confirms, this.requireSession(), this);
  }

  async consume(queue: string, options: ConsumeOptions, onDelivery: (delivery: Delivery) => void): Promise<Consumer> {
    // Passive: the queue is the harness's (any durability and arguments); the library's default
    // declaration (durable: true) would fail with PRECONDITION_FAILED on a non-durable queue.
    const handle = await this.requireSession().queue(queue, { passive: true });
    const consumer = new CloudamqpConsumer(handle, options, onDelivery, this);
    await consumer.subscribe();
    this.consumers.add(consumer);
    return consumer;
  }

  override async ensureConnected(deadlineMs: number): Promise<EnsureResult> {
    try {
      return await this.waitForLibraryRecovery(deadlineMs);
    } catch (error) {
      if (error instanceof TimeoutError && this.recoveryProblem) throw new TimeoutError(`${error.message}; ${this.recoveryProblem}`);
      throw error;
    }
  }

  destroy(reason: string): void {
    const socket = socketOf(this.transport);
    this.reportFault(new Error(`connection destroyed by the client: ${reason}`), 'deadline');
    // With an error: the library sees a socket error, then the close, and recovers as from any fault.
    socket?.destroy(new Error(`connection destroyed by the client: ${reason}`));
  }

  async close(): Promise<void> {
    if (this.current === 'closed') return;
    this.markClosed();
    const session = this.session;
    this.session = undefined;
    this.rememberSocket();
    // stop(): no more reconnects, cancels the subscriptions, closes politely; bounded.
    if (session) await bounded(session.stop(), STOP_BOUND_MS, '').catch(() => this.noteCloseBoundHit());
    this.rememberSocket();
    // What the polite close did not end: a dead peer's socket, or a handshake that timed out
    // (the library rejects the attempt but leaves its socket open).
    for (const socket of this.sockets) if (!socket.destroyed) socket.destroy();
    this.sockets.clear();
    this.consumers.clear();
  }

  private rememberSocket(): void {
    const socket = socketOf(this.transport);
    if (socket) this.sockets.add(socket);
    for (const known of this.sockets) if (known.destroyed) this.sockets.delete(known);
  }

  private requireSession(): AMQPSession {
    if (!this.session) throw new Error('the cloudamqp connection is closed; connect a new one');
    return this.session;
  }

  /**
   * The session reconnected and re-consumed what it could (the first connect is reported by
   * `start`). Back once every consumer consumes; otherwise down, saying which the session did not
   * re-establish: the session tries again at its next reconnection, the adapter never does.
   */
  private onLibraryConnected(): void {
    if (!this.session) return;
    this.rememberSocket();
    // The session swapped in new library consumers: listen for the broker's cancel of those.
    for (const consumer of this.consumers) consumer.watch();
    if (this.current === 'closed' || !this.transport || this.transport.closed) return;
    const notConsuming = [...this.consumers].filter((consumer) => !consumer.healthy).length;
    if (notConsuming > 0) {
      this.recoveryProblem =
        this.recoverFailures.length > 0
          ? this.recoverFailures.join('; ')
          : `${notConsuming} consumer(s) not consuming after the session's reconnection`;
      return;
    }
    this.recoveryProblem = undefined;
    this.reportBack();
  }
}
