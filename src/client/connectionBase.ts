/**
 * What every adapter's connection shares: its state (up, down, closed), the fault listeners, the
 * rule that a failed connection reports one fault (its first event, timed in the handler), and
 * waiting until the connection is back. An adapter calls `reportFault` from the library's
 * events and `reportBack` once it can publish and consume again.
 */
import { TimeoutError } from '../errors';
import { nowNs } from '../measure/clock';
import type {
  ClientConnection,
  ClientFault,
  ClientSignal,
  SignalKind,
  ClientInfo,
  ConnectionState,
  ConsumeOptions,
  Consumer,
  Delivery,
  EnsureResult,
  Publisher,
} from './api';
import { classifyFault, faultMessage, type FaultKind, type FaultWords } from './faults';

export abstract class ConnectionBase implements ClientConnection {
  abstract readonly info: ClientInfo;
  abstract readonly localPort: number | undefined;
  abstract publisher(options: { readonly confirms: boolean }): Promise<Publisher>;
  abstract consume(queue: string, options: ConsumeOptions, onDelivery: (delivery: Delivery) => void): Promise<Consumer>;
  abstract destroy(reason: string): void;
  abstract close(): Promise<void>;

  protected current: ConnectionState = 'up';
  /** The fault of the current outage, until the connection is back. */
  protected outage: ClientFault | undefined;
  /** Reconnection attempts since the last fault (library events or the harness loop count them). */
  protected attemptsSinceFault = 0;
  private readonly listeners = new Set<(fault: ClientFault) => void>();
  private readonly signalListeners = new Set<(signal: ClientSignal) => void>();
  private backWaiters: (() => void)[] = [];

  get state(): ConnectionState {
    return this.current;
  }

  private closeBoundHit = false;

  get closeHitBound(): boolean {
    return this.closeBoundHit;
  }

  /** The library's close did not end within the adapter's bound (it was cut short). */
  protected noteCloseBoundHit(): void {
    this.closeBoundHit = true;
  }

  /** The fault of the current outage; undefined while up. */
  get currentFault(): ClientFault | undefined {
    return this.outage;
  }

  onFault(listener: (fault: ClientFault) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  onSignal(listener: (signal: ClientSignal) => void): () => void {
    this.signalListeners.add(listener);
    return () => this.signalListeners.delete(listener);
  }

  /** A typed signal from the library's own event (timed here, in its handler); every one is told, none is merged. @returns it, so the adapter can reuse its time */
  protected reportSignal(kind: SignalKind, cause: unknown, detectedNs: bigint = nowNs()): ClientSignal {
    const signal: ClientSignal = {
      kind,
      message: cause === undefined || cause === null ? kind : faultMessage(cause).slice(0, 500),
      detectedNs,
    };
    for (const listener of [...this.signalListeners]) {
      try {
        listener(signal);
      } catch {
        // A listener's own failure must not stop the others or the client.
      }
    }
    return signal;
  }

  /** The library's own codes and words for a failure (its folder's library.ts), read after the common ones; none: the common reading only. */
  protected readonly faultWords: FaultWords | undefined = undefined;

  /** The kind of a failure this connection's library reported: the common reading (classifyFault), then the library's own words. */
  protected faultKindOf(error: unknown): FaultKind {
    return classifyFault(error, this.faultWords);
  }

  /**
   * Resolves once the connection, its publishers and consumers are back: a client its library
   * recovers waits for the library (`waitForLibraryRecovery`); one the harness recovers overrides
   * this with its loop.
   */
  ensureConnected(deadlineMs: number): Promise<EnsureResult> {
    return this.waitForLibraryRecovery(deadlineMs);
  }

  /**
   * The connection failed: the first call of an outage is the fault (timed here, in the
   * library's event handler, or by a client in another process in its own, `detectedNs`); later
   * events of the same outage are its aftermath.
   */
  protected reportFault(error: unknown, kind: FaultKind = this.faultKindOf(error), detectedNs: bigint = nowNs()): void {
    if (this.current !== 'up') return;
    this.current = 'down';
    this.attemptsSinceFault = 0;
    // Bounded: rabbitmq-client appends to one error's message for every ack queued on a dead channel (30 KB seen).
    const message = error === undefined || error === null ? 'connection lost' : faultMessage(error).slice(0, 500);
    this.outage = { kind, message, detectedNs };
    for (const listener of [...this.listeners]) {
      try {
        listener(this.outage);
      } catch {
        // A listener's own failure must not stop the others or the client.
      }
    }
  }

  /** The connection, its publishers and consumers are back. */
  protected reportBack(): void {
    if (this.current === 'closed') return;
    this.current = 'up';
    this.outage = undefined;
    const waiters = this.backWaiters;
    this.backWaiters = [];
    for (const wake of waiters) wake();
  }

  /** Marks the connection closed for good and releases anyone waiting for it. */
  protected markClosed(): void {
    this.current = 'closed';
    const waiters = this.backWaiters;
    this.backWaiters = [];
    for (const wake of waiters) wake();
  }

  /** Resolves true once `reportBack` ran (at once when up), false at the deadline or on close. */
  protected waitUntilBack(deadlineMs: number): Promise<boolean> {
    if (this.current === 'up') return Promise.resolve(true);
    if (this.current === 'closed') return Promise.resolve(false);
    return new Promise((resolve) => {
      const timer = setTimeout(() => done(false), deadlineMs);
      const done = (back: boolean) => {
        clearTimeout(timer);
        this.backWaiters = this.backWaiters.filter((waiter) => waiter !== wake);
        resolve(back);
      };
      const wake = () => done(this.current === 'up');
      this.backWaiters.push(wake);
    });
  }

  /** `ensureConnected` of a client its library recovers: wait, bounded, for the library. */
  protected async waitForLibraryRecovery(deadlineMs: number): Promise<EnsureResult> {
    if (this.current === 'up') return { attempts: 0, connectedNs: nowNs() };
    if (!(await this.waitUntilBack(deadlineMs))) {
      throw new TimeoutError(
        `${this.info.library} did not recover within ${deadlineMs} ms (${this.attemptsSinceFault} attempt(s) seen; last fault: ${this.outage?.message ?? 'none'})`,
      );
    }
    return { attempts: Math.max(1, this.attemptsSinceFault), connectedNs: nowNs() };
  }
}
