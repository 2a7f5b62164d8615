/**
 * A bound on any wait on a client: a dead peer never answers, and a library that queues work
 * while disconnected may never resolve it.
 */
import { nowNs } from '../measure/clock';
import { ClientFaultError } from './types';

/** A wait on the client that its bound ended: the client never answered within `boundMs`. */
export class BoundPassedError extends ClientFaultError {
  constructor(
    message: string,
    readonly boundMs: number,
  ) {
    super(message, nowNs(), 'deadline');
  }
}

/** `promise`, or a rejection after `boundMs` (a dead peer never answers). */
export async function bounded<T>(promise: Promise<T>, boundMs: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  // If the bound wins, a later rejection of `promise` is expected, not unhandled.
  promise.catch(() => undefined);
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new BoundPassedError(message || `no answer within ${boundMs} ms`, boundMs)), boundMs);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The same bound on a sequence of waits, one at a time (a publisher's awaited publishes), with
 * one interval timer for the whole sequence instead of a timer set and cleared per wait: at tens
 * of thousands of publishes a second, `bounded` per publish cost the harness about 7% of a fast
 * client's rate. A wait is failed within `boundMs` + one check interval of its start.
 * Always `stop()` it (in a finally).
 */
export class SequenceBound {
  private current: { readonly startedMs: number; readonly fail: (error: BoundPassedError) => void } | undefined;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly boundMs: number,
    private readonly message: string,
  ) {
    this.timer = setInterval(() => this.check(), Math.max(1, Math.min(boundMs, 1000)));
  }

  /** `promise`, or a BoundPassedError (a ClientFaultError, `deadline`) once it has been waited on for longer than the bound. */
  wait<T>(promise: Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const entry = { startedMs: performance.now(), fail: reject };
      this.current = entry;
      promise.then(
        (value) => {
          if (this.current === entry) this.current = undefined;
          resolve(value);
        },
        (error: unknown) => {
          if (this.current === entry) this.current = undefined;
          reject(error);
        },
      );
    });
  }

  stop(): void {
    clearInterval(this.timer);
    this.current = undefined;
  }

  private check(): void {
    const current = this.current;
    if (current && performance.now() - current.startedMs > this.boundMs) {
      this.current = undefined;
      current.fail(new BoundPassedError(this.message || `no answer within ${this.boundMs} ms`, this.boundMs));
    }
  }
}
