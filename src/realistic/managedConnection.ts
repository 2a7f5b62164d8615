/**
 * An amqplib connection with an explicit lifecycle and the harness's reconnect loop, shared by
 * the workload's consumer and producer connections (subclasses build their channels in
 * `setUp`).
 *
 * idle -> connecting -> up -> down (connection error or close, a channel closing, anything a
 * subclass reports through `fail`) -> connecting (ensureConnection) -> up ... -> closed.
 * Events of a replaced connection are ignored; `close()` is safe to call twice.
 */
import amqp, { type ChannelModel } from 'amqplib';
import { closeBounded, connectionUrl, socketOf } from '../client/amqplibTopology';
import { backoffDelayMs } from '../client/backoff';
import type { BackoffOptions } from '../client/types';
import { TimeoutError, describeError } from '../errors';
import { elapsedMs, nowNs, sleep } from '../measure/clock';

export type ConnectionState = 'idle' | 'connecting' | 'up' | 'down' | 'closed';

export interface ConnectionSettings {
  readonly url: string;
  /** Connect + handshake bound (amqplib `timeout`). */
  readonly connectTimeoutMs: number;
  readonly backoff: BackoffOptions;
  /** Bound on opening the channels after the handshake (a black-holed link never answers). @default 10000 */
  readonly setUpBoundMs?: number;
}

export abstract class ManagedConnection {
  private current: ConnectionState = 'idle';
  private model: ChannelModel | undefined;
  /** Bumped on every attempt and on close; events of older connections are ignored. */
  private generation = 0;
  private faultedGeneration = -1;
  private downWaiters: (() => void)[] = [];
  /** Faults seen while up. */
  faults = 0;
  lastFault: string | undefined;

  constructor(protected readonly settings: ConnectionSettings) {}

  get state(): ConnectionState {
    return this.current;
  }

  /** Opens the channels of a fresh connection; call `fail` for any later event that breaks them. */
  protected abstract setUp(model: ChannelModel, fail: (reason: string) => void): Promise<void>;

  /**
   * One attempt: connect and set up.
   * @throws the connection or set-up error; the half-built connection is destroyed.
   */
  async connect(): Promise<void> {
    if (this.current === 'closed') throw new Error('connection is closed');
    const generation = ++this.generation;
    const old = this.model;
    this.model = undefined;
    // What is left of a failed connection: its socket may still be half-open.
    socketOf(old)?.destroy();
    this.current = 'connecting';
    let model: ChannelModel | undefined;
    try {
      model = await amqp.connect(connectionUrl(this.settings.url, 0), { timeout: this.settings.connectTimeoutMs, noDelay: true });
      const fail = (reason: string): void => this.onFault(generation, reason);
      model.on('error', (error: Error) => fail(`connection error: ${error.message}`));
      model.on('close', (error?: Error) => fail(`connection closed${error ? `: ${error.message}` : ''}`));
      const socket = socketOf(model);
      const boundMs = this.settings.setUpBoundMs ?? 10_000;
      const timer = setTimeout(() => socket?.destroy(new Error(`channel set-up took longer than ${boundMs} ms`)), boundMs);
      try {
        await this.setUp(model, fail);
      } finally {
        clearTimeout(timer);
      }
      if (this.faultedGeneration === generation) throw new Error(`connection failed while setting up: ${this.lastFault ?? 'unknown'}`);
      if (generation !== this.generation) throw new Error('connection was closed while setting up');
    } catch (error) {
      socketOf(model)?.destroy();
      if (this.current === 'connecting') this.current = 'down';
      throw error;
    }
    this.model = model;
    this.current = 'up';
  }

  /** Resolves once the connection is down or closed (at once if it already is). */
  whenDown(): Promise<void> {
    if (this.current === 'down' || this.current === 'closed') return Promise.resolve();
    return new Promise((resolve) => this.downWaiters.push(resolve));
  }

  /**
   * Connects (again) with bounded exponential backoff until set up, or `deadlineMs` passes.
   * @returns the attempts it took (0 when already up).
   * @throws TimeoutError naming the last failure when the deadline passes.
   */
  async ensureConnection(deadlineMs: number): Promise<number> {
    if (this.current === 'up') return 0;
    const startedNs = nowNs();
    let lastError: unknown;
    for (let attempt = 1; this.current !== 'closed'; attempt += 1) {
      try {
        await this.connect();
        return attempt;
      } catch (error) {
        lastError = error;
      }
      const delayMs = backoffDelayMs(this.settings.backoff, attempt);
      if (elapsedMs(startedNs, nowNs()) + delayMs > deadlineMs) break;
      await sleep(delayMs);
    }
    throw new TimeoutError(`could not (re)connect within ${deadlineMs} ms: ${describeError(lastError)}`);
  }

  /** Gives up on the current connection (e.g. a publish on a dead channel): down at once. */
  destroy(reason: string): void {
    this.onFault(this.generation, reason);
    socketOf(this.model)?.destroy();
  }

  async close(): Promise<void> {
    if (this.current === 'closed') return;
    this.current = 'closed';
    this.generation += 1;
    this.wakeDownWaiters();
    const model = this.model;
    this.model = undefined;
    await closeBounded(model, socketOf(model), 2000);
  }

  private onFault(generation: number, reason: string): void {
    if (generation !== this.generation || this.current === 'closed') return;
    if (this.faultedGeneration === generation) return;
    this.faultedGeneration = generation;
    this.lastFault = reason;
    if (this.current !== 'up') return; // a failing attempt: connect() reports it
    this.faults += 1;
    this.current = 'down';
    this.wakeDownWaiters();
  }

  private wakeDownWaiters(): void {
    const waiters = this.downWaiters;
    this.downWaiters = [];
    for (const wake of waiters) wake();
  }
}
