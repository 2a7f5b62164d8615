/**
 * The meeting point of amqplib's callbacks and `drainEvents`: deliveries and the first fault
 * are queued here, and a drain waits on it. Times are taken in the callbacks themselves, so a
 * fault's detection time is when the socket event fired, not when a drain got round to it.
 */
import { nowNs } from '../measure/clock';
import { ClientFaultError, DrainTimeoutError, type FaultKind, type DrainResult } from './types';

interface Waiter {
  wake(): void;
}

export class DeliveryInbox {
  private deliveries: Buffer[] = [];
  private fault: ClientFaultError | undefined;
  private waiter: Waiter | undefined;

  /** Called from the consumer callback. */
  deliver(body: Buffer): void {
    this.deliveries.push(body);
    this.waiter?.wake();
  }

  /** Records the first fault of the current connection; later ones are the same failure. */
  fail(message: string, kind: FaultKind, error?: unknown): void {
    if (this.fault) return;
    this.fault = new ClientFaultError(message, nowNs(), kind, { cause: error });
    this.waiter?.wake();
  }

  get failed(): boolean {
    return this.fault !== undefined;
  }

  /** Forgets the fault and anything queued: a new connection starts clean. */
  reset(): void {
    this.fault = undefined;
    this.deliveries = [];
  }

  async drain(timeoutMs: number, collectBodies: boolean): Promise<DrainResult> {
    if (this.deliveries.length === 0 && !this.fault) {
      const woke = await new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(false), timeoutMs);
        this.waiter = {
          wake: () => {
            clearTimeout(timer);
            resolve(true);
          },
        };
      });
      this.waiter = undefined;
      if (!woke) throw new DrainTimeoutError(timeoutMs, nowNs());
    }
    if (this.fault) throw this.fault;
    const bodies = this.deliveries;
    this.deliveries = [];
    return collectBodies ? { deliveries: bodies.length, bodies } : { deliveries: bodies.length };
  }
}
