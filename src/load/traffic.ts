/**
 * The producers and consumers of a load run, over the client adapter interface (src/client/api.ts)
 * in this one process, so the producer's and the consumer's clocks are the same
 * `process.hrtime.bigint()`. Each message starts with its intended send time (8 bytes, monotonic
 * ns) and its sequence number (8 bytes).
 *
 * Open loop: one pacing loop sends, for each producer, every message that is due (a batch when
 * several are), never skipping one; it waits only when the producer's confirm window is full, its
 * write buffer is (backpressure), or its connection is down — and because latency is timed from
 * the intended time, every such wait shows in the figures. Recovery is the client's: the
 * supervisor calls `ensureConnected` after a fault (the harness loop reconnects for `amqplib`,
 * a library with its own recovery is waited for); nothing else is recovered here.
 */
import { describeError } from '../errors';
import type { ClientConnection, Consumer, Delivery, Publisher } from '../client/api';
import { nowNs, sleep } from '../measure/clock';
import type { LoadRecorder } from './recorder';
import type { Schedule } from './schedule';
import { HEADER_BYTES, type AckMode, type SizePlan } from './workload';

/** Plain publishes (no confirms) allowed in flight per producer before the loop waits for the socket. */
const PLAIN_IN_FLIGHT_CAP = 2000;
/** Bound of one `ensureConnected` call; the supervisor calls again until the run stops. */
const ENSURE_BOUND_MS = 30_000;
/** Pause before asking again when the client still says up from before a fault it reported. */
const STALE_UP_RETRY_MS = 20;

export interface ProducerPlan {
  readonly connection: ClientConnection;
  readonly publisher: Publisher;
  readonly queue: string;
}

export interface TrafficOptions {
  readonly producers: readonly ProducerPlan[];
  readonly schedule: Schedule;
  readonly size: SizePlan;
  /** 0 = no confirms. */
  readonly confirmWindow: number;
  readonly recorder: LoadRecorder;
  /** Messages of the whole run (every producer); Infinity for rate 0. */
  readonly totalMessages: number;
  /** Monotonic ns when the schedule ends (rate 0: publishing stops then). */
  readonly scheduleEndNs: bigint;
  /** Monotonic ns after which a publisher still behind schedule gives up the rest. */
  readonly giveUpNs: bigint;
}

interface ProducerState {
  readonly plan: ProducerPlan;
  readonly index: number;
  /** The producer's next message is global message next * producers + index. */
  next: number;
  outstanding: number;
}

export interface PublishingOutcome {
  /** Messages due by the end of the schedule that were never sent (the publisher was still behind at the give-up time). */
  readonly unsent: number;
  readonly sentTotal: number;
}

export interface Publishing {
  readonly done: Promise<PublishingOutcome>;
  /** Confirms (or plain writes) not yet resolved, over every producer. */
  outstanding(): number;
  /** Stops sending now (Ctrl-C, an error). */
  stop(): void;
}

/** Starts the pacing loop. */
export function startPublishing(options: TrafficOptions): Publishing {
  const { schedule, recorder } = options;
  const count = options.producers.length;
  const states: ProducerState[] = options.producers.map((plan, index) => ({ plan, index, next: 0, outstanding: 0 }));
  const window = options.confirmWindow > 0 ? options.confirmWindow : PLAIN_IN_FLIGHT_CAP;
  const startNs = recorder.startNs;
  let stopped = false;
  /** A producer had messages due but its window (or in-flight cap) was full at the last pass. */
  let windowFull = false;
  let timer: NodeJS.Timeout | undefined;
  let immediate: NodeJS.Immediate | undefined;
  let finish!: (outcome: PublishingOutcome) => void;
  const done = new Promise<PublishingOutcome>((resolve) => (finish = resolve));
  const global = (state: ProducerState) => state.next * count + state.index;

  const send = (state: ProducerState, intendedNs: bigint, sequence: number) => {
    const body = Buffer.alloc(sizeOf(options.size));
    body.writeBigUInt64BE(intendedNs, 0);
    body.writeBigUInt64BE(BigInt(sequence), 8);
    state.outstanding += 1;
    recorder.sent(intendedNs, nowNs());
    state.plan.publisher.publish('', state.plan.queue, body).then(
      () => {
        state.outstanding -= 1;
        if (options.confirmWindow > 0) recorder.confirmed(sequence, intendedNs, nowNs());
        wake();
      },
      (error: unknown) => {
        state.outstanding -= 1;
        if (/nack/i.test(describeError(error))) recorder.nacked();
        else recorder.publishFailed();
        wake();
      },
    );
  };

  /** One pass: every producer sends what is due; returns the next due time (ns) or null when all is sent. */
  const pass = (): bigint | null => {
    const now = nowNs();
    let earliest: bigint | null = null;
    let remaining = false;
    windowFull = false;
    for (const state of states) {
      if (state.plan.connection.state !== 'up') {
        remaining = true;
        continue;
      }
      while (state.outstanding < window) {
        const sequence = global(state);
        if (sequence >= options.totalMessages) break;
        if (!schedule.paced) {
          if (now >= options.scheduleEndNs) break;
          state.next += 1;
          send(state, nowNs(), sequence);
          continue;
        }
        const intendedNs = startNs + BigInt(Math.round(schedule.intendedOffsetNs(sequence)));
        if (intendedNs > now) {
          if (earliest === null || intendedNs < earliest) earliest = intendedNs;
          break;
        }
        state.next += 1;
        send(state, intendedNs, sequence);
      }
      const sequence = global(state);
      if (sequence < options.totalMessages && (schedule.paced || now < options.scheduleEndNs)) {
        remaining = true;
        if (state.outstanding >= window) windowFull = true;
      }
    }
    if (!remaining) return null;
    return earliest ?? now + 1_000_000n;
  };

  const unsent = () => states.reduce((sum, state) => sum + Math.max(0, countFor(state) - state.next), 0);
  const countFor = (state: ProducerState) =>
    Number.isFinite(options.totalMessages) ? Math.ceil((options.totalMessages - state.index) / count) : state.next;

  const loop = () => {
    timer = undefined;
    immediate = undefined;
    if (stopped) return;
    const nextNs = pass();
    const now = nowNs();
    if (nextNs === null || now >= options.giveUpNs) {
      stopped = true;
      finish({ unsent: unsent(), sentTotal: recorder.totals.published });
      return;
    }
    const waitMs = Number(nextNs - now) / 1e6;
    // Timers have 1 ms resolution: what falls due meanwhile goes out as one batch on the next
    // pass (never a busy loop, which would take a core from the broker). A full window that
    // frees up wakes the loop at once (wake()).
    if (waitMs <= 0) immediate = setImmediate(loop);
    else timer = setTimeout(loop, Math.min(waitMs, 50));
  };
  const wake = () => {
    if (stopped || immediate || !windowFull) return;
    if (timer) clearTimeout(timer);
    timer = undefined;
    immediate = setImmediate(loop);
  };
  immediate = setImmediate(loop);
  return {
    done,
    outstanding: () => states.reduce((sum, state) => sum + state.outstanding, 0),
    stop() {
      if (stopped) return;
      stopped = true;
      if (timer) clearTimeout(timer);
      if (immediate) clearImmediate(immediate);
      finish({ unsent: unsent(), sentTotal: recorder.totals.published });
    },
  };
}

/** Starts consuming `queue` on `connection`, recording each delivery (its intended time read from its first bytes). */
export function startConsumer(
  connection: ClientConnection,
  queue: string,
  options: { readonly ack: AckMode; readonly prefetch: number },
  recorder: LoadRecorder,
): Promise<Consumer> {
  const settle = settlerOf(options.ack, recorder);
  return connection.consume(queue, { ack: options.ack.kind === 'auto' ? 'auto' : 'manual', prefetch: options.prefetch }, (delivery) => {
    const atNs = nowNs();
    if (delivery.body.length >= HEADER_BYTES) {
      recorder.consumed(Number(delivery.body.readBigUInt64BE(8)), delivery.body.readBigUInt64BE(0), atNs);
    }
    settle(delivery);
  });
}

/**
 * How a consumer settles each delivery under `mode` (PerfTest's `-a`, `--multi-ack-every`,
 * `--nack`): one ack each; an ack of everything so far on every N-th delivery; or a nack (requeued:
 * delivered again, counted with the redeliveries) of a share of the deliveries, spread evenly, and
 * an ack of the rest. The adapter says which of these its library has (run.ts refuses the others).
 */
export function settlerOf(mode: AckMode, recorder: LoadRecorder): (delivery: Delivery) => void {
  if (mode.kind === 'multiple') {
    let unacked = 0;
    return (delivery) => {
      unacked += 1;
      if (unacked < mode.every) return;
      unacked = 0;
      delivery.ackUpTo!();
    };
  }
  if (mode.kind === 'nack') {
    let seen = 0;
    return (delivery) => {
      seen += 1;
      // Evenly spread: the n-th delivery is nacked when floor(n * fraction) steps up.
      if (Math.floor(seen * mode.fraction) > Math.floor((seen - 1) * mode.fraction)) {
        recorder.nackedByConsumer();
        delivery.nack!(true);
      } else delivery.ack();
    };
  }
  return (delivery) => delivery.ack();
}

/** One fault of a connection: when the client reported it and when it was back (null: not back by the end). */
export interface ConnectionFaultSpan {
  readonly detectedNs: bigint;
  backNs: bigint | null;
  readonly kind: string;
}

/**
 * Watches a connection: after each fault, calls `ensureConnected` until it is back or the run
 * stops (the harness loop's reconnect for `amqplib`; a library's own recovery is only waited for).
 * A fault reported while an earlier one is still being waited out is closed by the same wait.
 */
export function superviseConnection(
  connection: ClientConnection,
  log: (line: string) => void,
): { readonly faults: readonly ConnectionFaultSpan[]; stop(): void } {
  const faults: ConnectionFaultSpan[] = [];
  let stopped = false;
  let recovering = false;
  const recover = async () => {
    if (recovering) return;
    recovering = true;
    const open = () => faults.filter((fault) => fault.backNs === null);
    while (!stopped && open().length > 0) {
      try {
        const back = await connection.ensureConnected(ENSURE_BOUND_MS);
        // Every fault reported by then is closed by this return, except one reported after the
        // connection was already back: that one waits for the next (after a moment, should the
        // client not have seen it down yet).
        const closing = open().filter((fault) => back.connectedNs >= fault.detectedNs);
        for (const fault of closing) fault.backNs = back.connectedNs;
        if (closing.length === 0) await sleep(STALE_UP_RETRY_MS);
      } catch (error) {
        if (!stopped) log(`load: ${connection.info.name} not back yet: ${describeError(error)}`);
      }
    }
    recovering = false;
  };
  const unsubscribe = connection.onFault((fault) => {
    faults.push({ detectedNs: fault.detectedNs, backNs: null, kind: fault.kind });
    void recover();
  });
  return {
    faults,
    stop() {
      stopped = true;
      unsubscribe();
    },
  };
}

/** One message's size (bytes) under `plan`. */
export function sizeOf(plan: SizePlan, random: () => number = Math.random): number {
  if (plan.kind === 'fixed') return plan.bytes;
  if (plan.kind === 'uniform') return plan.minBytes + Math.floor(random() * (plan.maxBytes - plan.minBytes + 1));
  const drawn = Math.round(-Math.log(1 - random()) * plan.meanBytes);
  return Math.min(plan.maxBytes, Math.max(plan.minBytes, drawn));
}
