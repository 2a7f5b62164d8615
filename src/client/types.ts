/**
 * The client under test, behind the two operations the methodology needs. To benchmark another
 * AMQP library, implement `ClientUnderTest` for it and register a factory in `src/client/index.ts`.
 */
import { BenchError } from '../errors';
import type { FaultKind } from './faults';

/** How the client gets its connection back after a fault. */
export type RecoveryMode = 'manual' | 'amqplib-recovery';

export { FAULT_KINDS, FAULT_KIND_LABELS, classifyFault, type FaultKind } from './faults';

export interface BackoffOptions {
  /** First retry delay. @default 10 */
  readonly initialDelayMs: number;
  /** Cap of the delay. @default 500 */
  readonly maxDelayMs: number;
  /** Growth per attempt. @default 2 */
  readonly factor: number;
  /** Random spread as a fraction of the delay (0..1), against thundering herds. @default 0.2 */
  readonly jitter: number;
}

export interface ClientOptions {
  /** Broker URL as this client reaches it (usually through the fault proxy). */
  readonly url: string;
  /** A fanout exchange the client's queue is bound to, so one publish reaches every thread. */
  readonly fanoutExchange?: string;
  /** Connect + AMQP handshake bound (amqplib `timeout`). @default 2000 */
  readonly connectTimeoutMs?: number;
  /** AMQP heartbeat in whole seconds; 0 disables. @default 0 */
  readonly heartbeatSeconds?: number;
  readonly backoff?: Partial<BackoffOptions>;
  /** Shown by the broker as `connection_name` (lets a leak check find this client's connections). */
  readonly connectionName?: string;
  /**
   * A named queue that outlives the connection (re-consumed after a reconnect; expires 60 s
   * after its last use). Without it each connection gets a server-named exclusive queue, which
   * the broker must delete, with its bindings, whenever the connection dies.
   */
  readonly queueName?: string;
}

export const DEFAULT_BACKOFF: BackoffOptions = { initialDelayMs: 10, maxDelayMs: 500, factor: 2, jitter: 0.2 };

/** What `drainEvents` handed to the application. */
export interface DrainResult {
  readonly deliveries: number;
  /** Bodies of the deliveries, when asked for (`collectBodies`). */
  readonly bodies?: readonly Buffer[];
}

export interface EnsureResult {
  /** Connection attempts it took (1 = first try worked). */
  readonly attempts: number;
  /** Monotonic time the client could consume again (connection, channel, queue, consumer all back). */
  readonly connectedNs: bigint;
}

export interface ClientUnderTest {
  readonly mode: RecoveryMode | string;
  /** First connection and topology (channel, queue, binding, consumer). */
  start(): Promise<void>;
  /**
   * Waits for deliveries and processes them.
   * @throws ClientFaultError when the connection failed (or failed earlier, unnoticed until now)
   * @throws DrainTimeoutError when nothing arrived within `timeoutMs`
   */
  drainEvents(timeoutMs: number, options?: { collectBodies?: boolean }): Promise<DrainResult>;
  /** Reconnects with bounded backoff until the client can consume again, or `deadlineMs` passes. */
  ensureConnection(deadlineMs: number): Promise<EnsureResult>;
  /** Publishes to the client's own queue and drains until that very message comes back. */
  roundTrip(timeoutMs: number): Promise<number>;
  /** Publishes `body` to an exchange (default exchange when ''); resolves false when the channel buffer is full. */
  publish(exchange: string, routingKey: string, body: Buffer): boolean;
  /** Kills the connection at the socket, as a network fault or a client-side deadline would. */
  destroyConnection(reason: string): void;
  /** Local TCP port of the current connection (matches the proxy's record of the client side). */
  readonly localPort: number | undefined;
  /** Name of the client's current queue. */
  readonly queue: string | undefined;
  close(): Promise<void>;
}

/** The connection failed; `detectedNs` is when the client first learned of it, `kind` what it learned. */
export class ClientFaultError extends BenchError {
  readonly detectedNs: bigint;
  readonly kind: FaultKind;

  constructor(message: string, detectedNs: bigint, kind: FaultKind, options?: { cause?: unknown }) {
    super('CLIENT_FAULT', message, options);
    this.detectedNs = detectedNs;
    this.kind = kind;
  }
}

/** Nothing arrived within the drain deadline. */
export class DrainTimeoutError extends BenchError {
  readonly detectedNs: bigint;

  constructor(timeoutMs: number, detectedNs: bigint) {
    super('TIMEOUT', `no delivery within ${timeoutMs} ms`);
    this.detectedNs = detectedNs;
  }
}
