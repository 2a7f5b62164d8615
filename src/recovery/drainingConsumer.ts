/**
 * The seed's two operations on top of any client under test: `drainEvents` (wait for
 * deliveries; throw the fault if the connection failed) and `ensureConnection` (get back to
 * consuming), plus a round trip that proves the connection works. Harness code, the same for
 * every library: the client consumes its queue (declared by the harness) into an inbox, and its
 * first fault of an outage lands there too, timed when the library reported it.
 */
import { randomUUID } from 'node:crypto';
import type { ClientConnection, ClientFault, Publisher } from '../client/api';
import { bounded } from '../client/bounded';
import { ClientFaultError, DrainTimeoutError, type DrainResult, type EnsureResult } from '../client/types';
import { TimeoutError } from '../errors';
import { elapsedMs, nowNs } from '../measure/clock';

export class DrainingConsumer {
  private deliveries: Buffer[] = [];
  private fault: ClientFault | undefined;
  private wake: (() => void) | undefined;
  private probes: Publisher | undefined;

  private constructor(
    readonly connection: ClientConnection,
    readonly queue: string,
  ) {}

  /** Starts consuming `queue` (auto ack) on `connection`; faults from here on are kept for `drainEvents`. */
  static async start(connection: ClientConnection, queue: string): Promise<DrainingConsumer> {
    const consumer = new DrainingConsumer(connection, queue);
    connection.onFault((fault) => consumer.onFault(fault));
    await connection.consume(queue, { ack: 'auto' }, (delivery) => consumer.onDelivery(delivery.body));
    return consumer;
  }

  /** Local port of the connection the next fault would hit (matches the proxy's record of the client). */
  get localPort(): number | undefined {
    return this.connection.localPort;
  }

  /** True while a fault is waiting to be seen (or was seen) and the connection is not back. */
  get failed(): boolean {
    return this.fault !== undefined;
  }

  /**
   * Waits for deliveries and hands them over.
   * @throws ClientFaultError when the connection failed (now, or unnoticed until now)
   * @throws DrainTimeoutError when nothing arrived within `timeoutMs`
   */
  async drainEvents(timeoutMs: number, options: { collectBodies?: boolean } = {}): Promise<DrainResult> {
    if (this.deliveries.length === 0 && !this.fault) {
      const woke = await new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => {
          this.wake = undefined;
          resolve(false);
        }, timeoutMs);
        this.wake = () => {
          clearTimeout(timer);
          this.wake = undefined;
          resolve(true);
        };
      });
      if (!woke) throw new DrainTimeoutError(timeoutMs, nowNs());
    }
    if (this.fault) throw new ClientFaultError(this.fault.message, this.fault.detectedNs, this.fault.kind);
    const bodies = this.deliveries;
    this.deliveries = [];
    return options.collectBodies ? { deliveries: bodies.length, bodies } : { deliveries: bodies.length };
  }

  /** Back to consuming (the client's own recovery, or the harness's loop for a client without one); forgets the fault. */
  async ensureConnection(deadlineMs: number): Promise<EnsureResult> {
    const ensured = await this.connection.ensureConnected(deadlineMs);
    this.fault = undefined;
    this.deliveries = [];
    return ensured;
  }

  /** Publishes a marker to the consumer's own queue and drains until that very message is back; resolves with the time it took. */
  async roundTrip(timeoutMs: number): Promise<number> {
    const startedNs = nowNs();
    const marker = Buffer.from(`probe-${randomUUID()}`);
    this.probes ??= await this.connection.publisher({ confirms: false });
    // Bounded by the round trip's own deadline: a client may hold a publish until it is back.
    await bounded(this.probes.publish('', this.queue, marker), timeoutMs, `probe not handed over within ${timeoutMs} ms`);
    for (;;) {
      const remainingMs = timeoutMs - elapsedMs(startedNs, nowNs());
      if (remainingMs <= 0) throw new TimeoutError(`probe message did not come back within ${timeoutMs} ms`);
      const { bodies } = await this.drainEvents(remainingMs, { collectBodies: true });
      if (bodies?.some((body) => body.equals(marker))) return elapsedMs(startedNs, nowNs());
    }
  }

  /** Gives up on the connection at the socket, as a client-side deadline (or a chaos kill) does. */
  destroyConnection(reason: string): void {
    this.connection.destroy(reason);
  }

  private onDelivery(body: Buffer): void {
    this.deliveries.push(body);
    this.wake?.();
  }

  private onFault(fault: ClientFault): void {
    this.fault ??= fault;
    this.wake?.();
  }
}
