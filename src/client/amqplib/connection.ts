/**
 * What both amqplib adapters' connections share: the current amqplib connection, the publishers
 * and consumers opened on it (re-opened by the subclass on every new connection), the typed
 * signals amqplib gives (blocked/unblocked on the connection, a channel the broker closed, a
 * consumer it cancelled), the socket's local port, and killing the socket. A subclass adds how
 * it connects and recovers, and what it does when the broker takes a binding away while the
 * connection stays up.
 */
import type { ChannelModel } from 'amqplib';
import { TimeoutError } from '../../errors';
import { elapsedMs, nowNs } from '../../measure/clock';
import type { ConsumeOptions, Consumer, Delivery, EnsureResult, Publisher } from '../api';
import { ConnectionBase } from '../connectionBase';
import type { FaultKind } from '../faults';
import type { ChannelBinding, ChannelLoss, ChannelOwner } from './binding';
import { socketOf } from './common';
import { AmqplibConsumer } from './consumer';
import { AmqplibPublisher } from './publisher';
import { amqplibFaultWords } from './library';

/** The connection-level events both adapters map, on a ChannelModel or amqplib's recovering model. */
interface BlockingEvents {
  on(event: 'blocked', listener: (reason: string) => void): unknown;
  on(event: 'unblocked', listener: () => void): unknown;
}

export abstract class AmqplibConnectionBase extends ConnectionBase implements ChannelOwner {
  protected override readonly faultWords = amqplibFaultWords;
  protected model: ChannelModel | undefined;
  protected readonly bindings = new Set<ChannelBinding>();
  /** Woken whenever a binding or the connection changes state (see `waitForBindings`). */
  private bindingWaiters = new Set<() => void>();

  get localPort(): number | undefined {
    return socketOf(this.model)?.localPort;
  }

  forget(binding: ChannelBinding): void {
    this.bindings.delete(binding);
    this.notifyBindings();
  }

  /** A binding told us the broker closed its channel or cancelled its consumer: the signal, then the adapter's policy. */
  lost(binding: ChannelBinding, kind: ChannelLoss['kind'], message: string): ChannelLoss {
    const { detectedNs } = this.reportSignal(kind, message);
    // After amqplib has finished with the event (a channel the broker closes is released only after its 'error').
    setImmediate(() => this.afterLoss(binding));
    return { kind, message, detectedNs };
  }

  async publisher(options: { readonly confirms: boolean }): Promise<Publisher> {
    return this.track(new AmqplibPublisher(options.confirms, this));
  }

  async consume(queue: string, options: ConsumeOptions, onDelivery: (delivery: Delivery) => void): Promise<Consumer> {
    return this.track(new AmqplibConsumer(queue, options, onDelivery, this));
  }

  destroy(reason: string): void {
    const socket = socketOf(this.model);
    this.reportFault(new Error(`connection destroyed by the client: ${reason}`), 'deadline');
    // With an error, or amqplib never learns of a socket destroyed on this side.
    socket?.destroy(new Error(`connection destroyed by the client: ${reason}`));
  }

  /** What this adapter does once the broker took `binding` away while the connection stays up. */
  protected abstract afterLoss(binding: ChannelBinding): void;

  /** amqplib's connection.blocked / unblocked, as typed signals (the reason is the broker's). */
  protected mapBlocking(source: BlockingEvents, current: () => boolean): void {
    source.on('blocked', (reason: string) => current() && this.reportSignal('blocked', reason));
    source.on('unblocked', () => current() && this.reportSignal('unblocked', undefined));
  }

  protected override reportFault(error: unknown, kind?: FaultKind): void {
    super.reportFault(error, kind);
    this.notifyBindings();
  }

  protected override reportBack(): void {
    super.reportBack();
    this.notifyBindings();
  }

  protected override markClosed(): void {
    super.markClosed();
    this.notifyBindings();
  }

  /** Every publisher and consumer has a channel the broker has not taken away. */
  protected bindingsReady(): boolean {
    return [...this.bindings].every((binding) => binding.ready);
  }

  protected notifyBindings(): void {
    const waiters = [...this.bindingWaiters];
    this.bindingWaiters.clear();
    for (const wake of waiters) wake();
  }

  /**
   * `ensureConnected` of both adapters: the connection back (`recover` brings it back, bounded by
   * what is left of the deadline), then every binding back; `missing` says why not at the deadline.
   * @throws TimeoutError when not all back within `deadlineMs`
   */
  protected async everythingBack(
    deadlineMs: number,
    recover: (remainingMs: number) => Promise<EnsureResult>,
    missing: (lost: readonly ChannelBinding[]) => string,
  ): Promise<EnsureResult> {
    const startedNs = nowNs();
    let attempts = 0;
    /** When the connection came back, while no binding has been waited for since. */
    let connectedNs: bigint | undefined;
    for (;;) {
      const remainingMs = deadlineMs - elapsedMs(startedNs, nowNs());
      if (this.current !== 'up') {
        const recovered = await recover(Math.max(1, remainingMs));
        attempts += recovered.attempts;
        connectedNs = recovered.connectedNs;
        continue;
      }
      if (this.bindingsReady()) return { attempts, connectedNs: connectedNs ?? nowNs() };
      connectedNs = undefined;
      if (remainingMs <= 0) {
        const lost = [...this.bindings].filter((binding) => !binding.ready);
        throw new TimeoutError(`not back within ${deadlineMs} ms: ${missing(lost)}`);
      }
      await this.waitForBindings(remainingMs);
    }
  }

  /** Resolves on the next change of a binding or of the connection (its close too), or after `boundMs`. */
  protected waitForBindings(boundMs: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.bindingWaiters.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, boundMs);
      this.bindingWaiters.add(wake);
    });
  }

  /** Keeps `binding` for every later connection, and opens it now when connected. */
  private async track<T extends ChannelBinding>(binding: T): Promise<T> {
    this.bindings.add(binding);
    if (this.model && this.current === 'up') await binding.attach(this.model);
    return binding;
  }
}
