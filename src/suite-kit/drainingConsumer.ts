/**
 * Two operations on top of any client under test: `drainEvents` (wait for
 * deliveries; throw the fault if the connection failed) and `ensureConnection` (get back to
 * consuming), plus a round trip that proves the connection works. Harness code, the same for
 * every library: the client consumes its queue (declared by the harness) into an inbox, and its
 * first fault of an outage lands there too, timed when the library reported it.
 */
import { randomUUID } from 'node:crypto';
import type { ClientConnection, ClientFault, Publisher } from '../client/api';
import { bounded } from '../client/bounded';
import { classifyFault, faultMessage } from '../client/faults';
import { ClientFaultError, DrainTimeoutError, type DrainResult, type EnsureResult } from '../client/types';
import { TimeoutError } from '../errors';
import { elapsedMs, nowNs } from '../measure/clock';

/** A wait of `drainEvents` for deliveries: when it began (performance.now(), ms), how long it may last, and how it ends. */
interface DrainWait {
  readonly startedMs: number;
  readonly timeoutMs: number;
  readonly end: (woke: boolean) => void;
}

export class DrainingConsumer {
  private deliveries: Buffer[] = [];
  private fault: ClientFault | undefined;
  private wait: DrainWait | undefined;
  /**
   * One deadline timer for every wait, left armed between waits and checked when it fires (then
   * re-armed for what is left of the current wait): a timer set and cleared per delivery cost the
   * consumer thread about as much CPU as the delivery itself, which on a small machine slows
   * every other thread.
   */
  private deadline: NodeJS.Timeout | undefined;
  private probes: Publisher | undefined;

  private constructor(
    readonly connection: ClientConnection,
    readonly queue: string,
  ) {}

  /**
   * Starts consuming `queue` (auto ack) on `connection`; faults from here on are kept for `drainEvents`.
   * `bodies: false`: the client only counts (a client program then hands over counts, not messages),
   * so `roundTrip` cannot find its marker: the caller proves the connection its own way.
   */
  static async start(connection: ClientConnection, queue: string, options: { readonly bodies?: boolean } = {}): Promise<DrainingConsumer> {
    const consumer = new DrainingConsumer(connection, queue);
    connection.onFault((fault) => consumer.onFault(fault));
    const consume = options.bodies === false ? { ack: 'auto' as const, bodies: false } : { ack: 'auto' as const };
    await connection.consume(queue, consume, (delivery) => consumer.onDelivery(delivery.body));
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
        this.wait = { startedMs: performance.now(), timeoutMs, end: resolve };
        this.armDeadline(timeoutMs);
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

  /**
   * Runs, before any fault, the harness code that a fault and its recovery run: a round trip (as
   * after recovery), `ensureConnection` while up, and a made-up fault through the drain path (it
   * never reaches the connection). V8 compiles a function on its first call: without this, every
   * thread compiles the same code at the fault moment, and on two cores 50 threads doing that at
   * once delay each other's detection and recovery. The bare floor (scripts/bare-recovery.js) makes the same
   * round trip before its fault, so neither side compiles its probe path at the fault. `probe` is
   * the round trip the recovery will make (by default `roundTrip`).
   */
  async rehearse(roundTripTimeoutMs: number, probe: () => Promise<unknown> = () => this.roundTrip(roundTripTimeoutMs)): Promise<void> {
    await probe();
    if (this.fault) return; // a real fault came first: keep it
    await this.ensureConnection(roundTripTimeoutMs); // up: returns at once, compiled all the same
    const madeUp = Object.assign(new Error('read ECONNRESET (rehearsal)'), { code: 'ECONNRESET' });
    this.onFault({ kind: classifyFault(madeUp), message: faultMessage(madeUp), detectedNs: nowNs() });
    try {
      await this.drainEvents(0);
    } catch (error) {
      if (!(error instanceof ClientFaultError)) throw error;
    } finally {
      this.fault = undefined;
    }
  }

  /** Gives up on the connection at the socket, as a client-side deadline (or a chaos kill) does. */
  destroyConnection(reason: string): void {
    this.connection.destroy(reason);
  }

  /** Forgets the deadline timer (the consumer is done waiting for good). Safe twice. */
  stopWaiting(): void {
    clearTimeout(this.deadline);
    this.deadline = undefined;
  }

  private onDelivery(body: Buffer): void {
    this.deliveries.push(body);
    this.endWait(true);
  }

  private onFault(fault: ClientFault): void {
    this.fault ??= fault;
    this.endWait(true);
  }

  private endWait(woke: boolean): void {
    const wait = this.wait;
    if (!wait) return;
    this.wait = undefined;
    // Left armed, but no longer what keeps the thread alive (the connection or the next wait does).
    this.deadline?.unref();
    wait.end(woke);
  }

  /**
   * Makes sure the timer fires no later than `dueInMs` from now, keeping the thread alive while a
   * wait is on. Plain numbers (performance.now()), not hrtime BigInts: this runs once per delivery.
   */
  private armDeadline(dueInMs: number): void {
    const dueMs = performance.now() + dueInMs;
    if (this.deadline && this.deadlineDueMs !== undefined && this.deadlineDueMs <= dueMs) {
      this.deadline.ref();
      return;
    }
    clearTimeout(this.deadline);
    this.deadlineDueMs = dueMs;
    this.deadline = setTimeout(() => this.onDeadline(), dueInMs);
  }

  private deadlineDueMs: number | undefined;

  /** The timer fired: end the current wait if its own deadline passed, else wait out the rest of it. */
  private onDeadline(): void {
    this.deadline = undefined;
    this.deadlineDueMs = undefined;
    const wait = this.wait;
    if (!wait) return;
    const leftMs = wait.timeoutMs - (performance.now() - wait.startedMs);
    if (leftMs <= 0) this.endWait(false);
    else this.armDeadline(leftMs);
  }
}
