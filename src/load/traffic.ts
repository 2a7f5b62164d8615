/**
 * The producers of a load run, over the client adapter interface (src/client/api.ts). Each
 * message starts with its intended send time (8 bytes, monotonic ns) and its sequence number
 * (8 bytes).
 *
 * Open loop: one pacing loop sends, for each producer, every message that is due (a batch when
 * several are), never skipping one; it waits only when the producer's confirm window is full, its
 * write buffer is (backpressure), or its connection is down — and because latency is timed from
 * the intended time, every such wait shows in the figures. Recovery is the client's (supervise.ts).
 *
 * Message i of the workload is due at the schedule's offset of i and belongs to producer
 * i mod P, P being every producer of the workload. A process that runs only some producers (an
 * agent of a fleet) sends exactly their messages, so the agents of a fleet together send the
 * schedule one process would, with the same sequence numbers.
 */
import { describeError } from '../errors';
import type { ClientConnection, Publisher } from '../client/api';
import { nowNs } from '../measure/clock';
import type { LoadRecorder } from './recorder';
import type { Schedule } from './schedule';
import type { SizePlan } from './workload';

/** Plain publishes (no confirms) allowed in flight per producer before the loop waits for the socket. */
export const PLAIN_IN_FLIGHT_CAP = 2000;

export interface ProducerPlan {
  readonly connection: ClientConnection;
  readonly publisher: Publisher;
  readonly queue: string;
  /** The producer's index among every producer of the workload (0-based): it sends messages index, index + P, ... */
  readonly globalIndex: number;
}

export interface TrafficOptions {
  readonly producers: readonly ProducerPlan[];
  /** Producers of the whole workload (P), this process's and any other's. @default producers.length */
  readonly producerCount?: number;
  readonly schedule: Schedule;
  readonly size: SizePlan;
  /** 0 = no confirms. */
  readonly confirmWindow: number;
  readonly recorder: LoadRecorder;
  /** Messages of the whole workload (every producer); Infinity for rate 0. */
  readonly totalMessages: number;
  /** Monotonic ns when the schedule ends (rate 0: publishing stops then). */
  readonly scheduleEndNs: bigint;
  /** Monotonic ns after which a publisher still behind schedule gives up the rest. */
  readonly giveUpNs: bigint;
}

interface ProducerState {
  readonly plan: ProducerPlan;
  /** Messages this producer sent so far; its next is global message next * P + plan.globalIndex. */
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

/**
 * Messages of the whole workload (`total`) that belong to producer `globalIndex` of `producerCount`:
 * those with index i < total and i mod P = globalIndex.
 * @example messagesOfProducer(10, 1, 4) // 3 (messages 1, 5, 9)
 */
export function messagesOfProducer(total: number, globalIndex: number, producerCount: number): number {
  if (!Number.isFinite(total)) return Number.POSITIVE_INFINITY;
  return total > globalIndex ? Math.ceil((total - globalIndex) / producerCount) : 0;
}

/** Starts the pacing loop. */
export function startPublishing(options: TrafficOptions): Publishing {
  const loop = new PacingLoop(options);
  loop.wakeSoon();
  return { done: loop.done, outstanding: () => loop.outstanding(), stop: () => loop.stop() };
}

class PacingLoop {
  readonly done: Promise<PublishingOutcome>;
  private readonly states: ProducerState[];
  private readonly producerCount: number;
  private readonly window: number;
  private stopped = false;
  /** A producer had messages due but its window (or in-flight cap) was full at the last pass. */
  private windowFull = false;
  private timer: NodeJS.Timeout | undefined;
  private immediate: NodeJS.Immediate | undefined;
  private finish!: (outcome: PublishingOutcome) => void;

  constructor(private readonly options: TrafficOptions) {
    this.states = options.producers.map((plan) => ({ plan, next: 0, outstanding: 0 }));
    this.producerCount = options.producerCount ?? options.producers.length;
    this.window = options.confirmWindow > 0 ? options.confirmWindow : PLAIN_IN_FLIGHT_CAP;
    this.done = new Promise<PublishingOutcome>((resolve) => (this.finish = resolve));
  }

  outstanding(): number {
    return this.states.reduce((sum, state) => sum + state.outstanding, 0);
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.immediate) clearImmediate(this.immediate);
    this.end();
  }

  wakeSoon(): void {
    this.immediate = setImmediate(() => this.tick());
  }

  private sequenceOf(state: ProducerState): number {
    return state.next * this.producerCount + state.plan.globalIndex;
  }

  private end(): void {
    const unsent = this.states.reduce((sum, state) => {
      const count = Number.isFinite(this.options.totalMessages)
        ? messagesOfProducer(this.options.totalMessages, state.plan.globalIndex, this.producerCount)
        : state.next;
      return sum + Math.max(0, count - state.next);
    }, 0);
    this.finish({ unsent, sentTotal: this.options.recorder.totals.published });
  }

  private tick(): void {
    this.timer = undefined;
    this.immediate = undefined;
    if (this.stopped) return;
    const nextNs = this.pass();
    const now = nowNs();
    if (nextNs === null || now >= this.options.giveUpNs) {
      this.stopped = true;
      this.end();
      return;
    }
    const waitMs = Number(nextNs - now) / 1e6;
    // Timers have 1 ms resolution: what falls due meanwhile goes out as one batch on the next
    // pass (never a busy loop, which would take a core from the broker). A full window that
    // frees up wakes the loop at once (wake()).
    if (waitMs <= 0) this.wakeSoon();
    else this.timer = setTimeout(() => this.tick(), Math.min(waitMs, 50));
  }

  private wake(): void {
    if (this.stopped || this.immediate || !this.windowFull) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.wakeSoon();
  }

  /** One pass: every producer sends what is due; returns the next due time (ns) or null when all is sent. */
  private pass(): bigint | null {
    const { schedule, totalMessages, scheduleEndNs } = this.options;
    const now = nowNs();
    let earliest: bigint | null = null;
    let remaining = false;
    this.windowFull = false;
    for (const state of this.states) {
      if (state.plan.connection.state !== 'up') {
        remaining = true;
        continue;
      }
      const dueAt = this.sendDue(state, now);
      if (dueAt !== null && (earliest === null || dueAt < earliest)) earliest = dueAt;
      if (this.sequenceOf(state) < totalMessages && (schedule.paced || now < scheduleEndNs)) {
        remaining = true;
        if (state.outstanding >= this.window) this.windowFull = true;
      }
    }
    if (!remaining) return null;
    return earliest ?? now + 1_000_000n;
  }

  /** Sends what is due of one producer, within its window; returns when its next message is due (null: nothing waits on time). */
  private sendDue(state: ProducerState, now: bigint): bigint | null {
    const { schedule, totalMessages, scheduleEndNs, recorder } = this.options;
    while (state.outstanding < this.window) {
      const sequence = this.sequenceOf(state);
      if (sequence >= totalMessages) return null;
      if (!schedule.paced) {
        if (now >= scheduleEndNs) return null;
        state.next += 1;
        this.send(state, nowNs(), sequence);
        continue;
      }
      const intendedNs = recorder.startNs + BigInt(Math.round(schedule.intendedOffsetNs(sequence)));
      if (intendedNs > now) return intendedNs;
      state.next += 1;
      this.send(state, intendedNs, sequence);
    }
    return null;
  }

  private send(state: ProducerState, intendedNs: bigint, sequence: number): void {
    const { recorder, confirmWindow } = this.options;
    const body = Buffer.alloc(sizeOf(this.options.size));
    body.writeBigUInt64BE(intendedNs, 0);
    body.writeBigUInt64BE(BigInt(sequence), 8);
    state.outstanding += 1;
    recorder.sent(intendedNs, nowNs());
    state.plan.publisher.publish('', state.plan.queue, body).then(
      () => {
        state.outstanding -= 1;
        if (confirmWindow > 0) recorder.confirmed(sequence, intendedNs, nowNs());
        this.wake();
      },
      (error: unknown) => {
        state.outstanding -= 1;
        if (/nack/i.test(describeError(error))) recorder.nacked();
        else recorder.publishFailed();
        this.wake();
      },
    );
  }
}

/** One message's size (bytes) under `plan`. */
export function sizeOf(plan: SizePlan, random: () => number = Math.random): number {
  if (plan.kind === 'fixed') return plan.bytes;
  if (plan.kind === 'uniform') return plan.minBytes + Math.floor(random() * (plan.maxBytes - plan.minBytes + 1));
  const drawn = Math.round(-Math.log(1 - random()) * plan.meanBytes);
  return Math.min(plan.maxBytes, Math.max(plan.minBytes, drawn));
}
