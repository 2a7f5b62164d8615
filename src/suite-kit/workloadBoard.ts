/**
 * Shared memory of one realistic workload: control words the main thread and the worker
 * threads signal each other with, and the delivery ledger (four Uint16 counters per sequence
 * number, see ./accounting.ts) every thread updates with Atomics. Because the ledger is shared,
 * "how many distinct messages were delivered" is exact at any moment, across threads and
 * duplicates, without any thread sending its deliveries anywhere.
 *
 * Low-rate words (ready, round, stop) wake waiters; per-message counters do not notify (the
 * main thread polls them), so the hot path costs a few atomic adds and no wake-ups.
 */
import { ControlWords } from '../workers/controlWords';
import type { LedgerCounts } from './accounting';

/** Control words (Int32 indices). */
export const Word = {
  /** Logical consumers consuming (counted once each, at start-up). */
  CONSUMERS_READY: 0,
  /** Producer threads connected and waiting for the first round. */
  PRODUCERS_READY: 1,
  /** Rounds started: the main thread sets r + 1 to start round r. */
  ROUND: 2,
  /** Producer-rounds finished (each producer adds one per round). */
  PRODUCER_ROUNDS_DONE: 3,
  STOP: 4,
  /** Distinct sequence numbers delivered. */
  UNIQUE: 5,
  /** Every delivery, duplicates included. */
  DELIVERIES: 6,
  CONSUMER_RECONNECTS: 7,
  PRODUCER_RECONNECTS: 8,
  /** Connections currently down (added on a fault, removed on recovery). */
  CONNECTIONS_DOWN: 9,
  /** Threads that gave up (a fault they could not recover from, or a start-up failure). */
  THREADS_FAILED: 10,
  /** Deliveries that were not workload messages. */
  FOREIGN: 11,
} as const;
const CONTROL_WORDS = 12;

/** Sizes a board is built with; a worker needs them to attach to the same buffer. */
export interface BoardLayout {
  /** Sequence numbers in the run (all rounds). */
  readonly sequences: number;
  readonly rounds: number;
}

export class WorkloadBoard extends ControlWords {
  readonly layout: BoardLayout;
  private readonly roundUniqueCounts: Int32Array;
  private readonly published: Uint16Array;
  private readonly confirmed: Uint16Array;
  private readonly delivered: Uint16Array;
  private readonly redelivered: Uint16Array;

  /** A new board (main thread), or one attached to an existing buffer (worker thread). */
  constructor(layout: BoardLayout, buffer?: SharedArrayBuffer) {
    if (!Number.isInteger(layout.sequences) || layout.sequences < 0)
      throw new RangeError(`sequences must be a non-negative integer; got ${layout.sequences}`);
    if (!Number.isInteger(layout.rounds) || layout.rounds < 1)
      throw new RangeError(`rounds must be a positive integer; got ${layout.rounds}`);
    const bytes = WorkloadBoard.byteLength(layout);
    if (buffer && buffer.byteLength !== bytes)
      throw new RangeError(`board buffer has ${buffer.byteLength} bytes; layout ${JSON.stringify(layout)} needs ${bytes}`);
    super(buffer ?? new SharedArrayBuffer(bytes), CONTROL_WORDS);
    this.layout = { sequences: layout.sequences, rounds: layout.rounds };
    const int32Words = CONTROL_WORDS + layout.rounds;
    this.roundUniqueCounts = new Int32Array(this.buffer, CONTROL_WORDS * 4, layout.rounds);
    const ledger = (index: number) => new Uint16Array(this.buffer, int32Words * 4 + index * layout.sequences * 2, layout.sequences);
    this.published = ledger(0);
    this.confirmed = ledger(1);
    this.delivered = ledger(2);
    this.redelivered = ledger(3);
  }

  static byteLength(layout: BoardLayout): number {
    return (CONTROL_WORDS + layout.rounds) * 4 + 4 * layout.sequences * 2;
  }

  /** One more publish copy of `seq` is about to be sent. */
  markPublished(seq: number): void {
    Atomics.add(this.published, seq, 1);
  }

  markConfirmed(seq: number): void {
    Atomics.store(this.confirmed, seq, 1);
  }

  /**
   * Counts one delivery of `seq` (of `round`); true when it is the first delivery of that
   * sequence number. A sequence number outside the layout counts as foreign.
   */
  recordDelivery(seq: number, round: number, redelivered: boolean): boolean {
    if (seq >= this.layout.sequences || round >= this.layout.rounds) {
      Atomics.add(this.control, Word.FOREIGN, 1);
      return false;
    }
    const before = Atomics.add(this.delivered, seq, 1);
    if (redelivered) Atomics.add(this.redelivered, seq, 1);
    Atomics.add(this.control, Word.DELIVERIES, 1);
    if (before !== 0) return false;
    Atomics.add(this.control, Word.UNIQUE, 1);
    Atomics.add(this.roundUniqueCounts, round, 1);
    return true;
  }

  /** Distinct sequence numbers of `round` delivered so far. */
  roundUnique(round: number): number {
    return Atomics.load(this.roundUniqueCounts, round);
  }

  /** A copy of the ledger (take it once the threads are quiet, or accept a moving picture). */
  snapshot(): LedgerCounts {
    return {
      published: this.published.slice(),
      confirmed: this.confirmed.slice(),
      delivered: this.delivered.slice(),
      redelivered: this.redelivered.slice(),
    };
  }
}
