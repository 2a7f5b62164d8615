/**
 * Shared memory of one sustained consume session: control words the main thread, the consumer
 * threads (client under test) and the harness producer threads signal each other with, one
 * delivery counter (and OS thread id) per consumer thread, one publish counter per producer thread (and one for
 * the start fill), and the last queue depth the main thread read from the broker (what the
 * producers pace themselves by).
 *
 * Hot counters are bumped with a plain Atomics.add, never a notify, each on its own 64-byte line
 * so threads do not contend for one cache line; the main thread reads them at a window's edges.
 */
import { nowNs } from '../measure/clock';
import { ControlWords } from '../workers/controlWords';
import { estimateDepth } from './watermarks';

/** Control words (Int32 indices). */
export const ConsumeControl = {
  /** Consumer threads connected (or failed trying: see CONSUMERS_FAILED). */
  CONSUMERS_READY: 0,
  /** Consumer threads that gave up (could not connect, lost the connection, a consume failed). */
  CONSUMERS_FAILED: 1,
  /** Highest consuming phase the main thread has opened (1-based; 0 = none yet). */
  PHASE: 2,
  /** Consumer threads with every consumer consuming, summed over phases (phase p: threads * p). */
  CONSUMING: 3,
  /** Highest phase the main thread has ended (consumers cancelled). */
  PHASE_END: 4,
  /** Consumer threads whose consumers are cancelled, summed over phases. */
  CANCELLED: 5,
  /** Producer threads connected (or failed trying). */
  PRODUCERS_READY: 6,
  PRODUCERS_FAILED: 7,
  /** Non-zero: producers stop publishing, make sure the broker has everything, and count PRODUCERS_DONE. */
  PRODUCE_STOP: 8,
  PRODUCERS_DONE: 9,
  /** Non-zero: every thread closes and returns. */
  STOP: 10,
  /** Ready messages in the queue at the last depth sample. */
  SAMPLED_READY: 11,
  /** Messages all producers had published when that sample was asked for. */
  PUBLISHED_AT_SAMPLE: 12,
  /** Depth samples taken (0: none yet). */
  DEPTH_SAMPLES: 13,
  /** Non-zero: the start fill is in the queue (./queueFill.ts); producers publish only from here. */
  FILLED: 14,
  /** Messages the start fill has published (counted in `published()`, like the producers'). */
  FILL_PUBLISHED: 15,
} as const;
/** Control words, padded to one 64-byte line. */
const CONTROL_WORDS = 16;
/** Int32 words per counter: one 64-byte line each. */
const LINE_WORDS = 16;

/** Sizes a board is built with; a worker needs them to attach to the same buffer. */
export interface ConsumeBoardLayout {
  readonly consumerThreads: number;
  readonly producerThreads: number;
}

/** The counters at one moment (`atNs`: the monotonic clock, halfway through reading them). */
export interface CounterReading {
  readonly atNs: bigint;
  /** Deliveries counted by every consumer thread since the session started. */
  readonly delivered: number;
  /** Messages the harness has handed to its connections: the start fill and every producer thread. */
  readonly published: number;
  /** CPU time the consumer threads have used so far, summed (null where the platform cannot tell). */
  readonly consumerCpuMs?: number | null;
}

export class ConsumeBoard extends ControlWords {
  readonly layout: ConsumeBoardLayout;
  private readonly words: Int32Array;

  /** A new board (main thread), or one attached to an existing buffer (worker thread). */
  constructor(layout: ConsumeBoardLayout, buffer?: SharedArrayBuffer) {
    for (const [field, value] of Object.entries(layout))
      if (!Number.isInteger(value) || value < 1) throw new RangeError(`${field} must be a positive integer; got ${String(value)}`);
    const bytes = ConsumeBoard.byteLength(layout);
    if (buffer && buffer.byteLength !== bytes)
      throw new RangeError(`board buffer has ${buffer.byteLength} bytes; layout ${JSON.stringify(layout)} needs ${bytes}`);
    super(buffer ?? new SharedArrayBuffer(bytes), CONTROL_WORDS);
    this.layout = { consumerThreads: layout.consumerThreads, producerThreads: layout.producerThreads };
    this.words = new Int32Array(this.buffer);
  }

  static byteLength(layout: ConsumeBoardLayout): number {
    return (CONTROL_WORDS + (layout.consumerThreads + layout.producerThreads) * LINE_WORDS) * 4;
  }

  /** Counts deliveries of consumer thread `thread` (hot path: no wake-up). */
  countDelivered(thread: number, messages = 1): void {
    Atomics.add(this.words, this.consumerWord(thread), messages);
  }

  /** Counts messages producer `producer` handed to its connection (hot path: no wake-up). */
  countPublished(producer: number, messages = 1): void {
    Atomics.add(this.words, this.producerWord(producer), messages);
  }

  /** A consumer thread's OS thread id (0: not known), so the main thread can read its CPU time. */
  setThreadId(thread: number, tid: number): void {
    Atomics.store(this.words, this.consumerWord(thread) + 1, tid);
  }

  threadIdOf(thread: number): number {
    return Atomics.load(this.words, this.consumerWord(thread) + 1);
  }

  deliveredBy(thread: number): number {
    return Atomics.load(this.words, this.consumerWord(thread));
  }

  publishedBy(producer: number): number {
    return Atomics.load(this.words, this.producerWord(producer));
  }

  delivered(): number {
    let sum = 0;
    for (let thread = 0; thread < this.layout.consumerThreads; thread += 1) sum += this.deliveredBy(thread);
    return sum;
  }

  /** Messages of the start fill (main thread; counted as handed to its connections). */
  countFilled(messages: number): void {
    Atomics.add(this.words, ConsumeControl.FILL_PUBLISHED, messages);
  }

  /** What the harness published: the start fill and every producer thread. */
  published(): number {
    let sum = Atomics.load(this.words, ConsumeControl.FILL_PUBLISHED);
    for (let producer = 0; producer < this.layout.producerThreads; producer += 1) sum += this.publishedBy(producer);
    return sum;
  }

  /** Both totals, timed halfway between two clock readings around them. */
  read(): CounterReading {
    const beforeNs = nowNs();
    const delivered = this.delivered();
    const published = this.published();
    return { atNs: beforeNs + (nowNs() - beforeNs) / 2n, delivered, published };
  }

  /** Main thread: a depth sample, with what had been published when it was asked for. */
  writeDepth(ready: number, publishedAtSample: number): void {
    Atomics.store(this.words, ConsumeControl.PUBLISHED_AT_SAMPLE, publishedAtSample);
    Atomics.store(this.words, ConsumeControl.SAMPLED_READY, ready);
    Atomics.add(this.words, ConsumeControl.DEPTH_SAMPLES, 1);
  }

  /** Producers: the queue depth to act on (see ./watermarks.ts); before the first sample, everything published. */
  estimatedDepth(): number {
    return estimateDepth(
      Atomics.load(this.words, ConsumeControl.SAMPLED_READY),
      Atomics.load(this.words, ConsumeControl.PUBLISHED_AT_SAMPLE),
      this.published(),
    );
  }

  private consumerWord(thread: number): number {
    if (!Number.isInteger(thread) || thread < 0 || thread >= this.layout.consumerThreads)
      throw new RangeError(`no consumer thread ${thread} on a board of ${this.layout.consumerThreads}`);
    return CONTROL_WORDS + thread * LINE_WORDS;
  }

  private producerWord(producer: number): number {
    if (!Number.isInteger(producer) || producer < 0 || producer >= this.layout.producerThreads)
      throw new RangeError(`no producer thread ${producer} on a board of ${this.layout.producerThreads}`);
    return CONTROL_WORDS + (this.layout.consumerThreads + producer) * LINE_WORDS;
  }
}
