/**
 * Shared control words between the main thread and the publish worker threads of one
 * throughput session. The main thread opens rounds (`GO` = round number) and stops the session;
 * each worker counts itself ready, done with a round, or failed. Both sides wait with
 * `Atomics.waitAsync`, so no event loop is blocked while a connection is open.
 *
 * Each worker also writes its figures for the round it just finished into its own slots
 * (first-publish and completion times, published, error and unsettled counts) before counting DONE, so
 * the main thread reads a round's figures as soon as the round is complete.
 */
import { ControlWords } from '../workers/controlWords';

/** Control words (Int32 indices). */
export const PublishControl = {
  /** Workers connected with their channels open (or failed trying: see FAILED). */
  READY: 0,
  /** Highest round the main thread has opened (1-based; 0 = none yet). */
  GO: 1,
  /** Rounds finished, summed over workers (round r is complete at workers * r). */
  DONE: 2,
  /** Non-zero: stop after the current round, close, return. */
  STOP: 3,
  /** Workers that gave up (connection lost, could not connect). */
  FAILED: 4,
  /**
   * Highest round cut at its bound (0 = none): its publishers make no further publish, settle the
   * one in flight and count the round done with what they published, so a slow client's round
   * ends as a figure, not a hang.
   */
  CUT: 5,
} as const;
const CONTROL_WORDS = 6;
/** Control words padded to a multiple of 8 bytes, where the BigInt64 time slots start. */
const CONTROL_BYTES = 24;
/** Int32 counts per worker: published, errors, unsettled. */
const COUNTS = 3;

/** What one worker did in the round it finished last. Times are `process.hrtime.bigint()` readings. */
export interface WorkerRoundSlot {
  readonly startedNs: bigint;
  readonly completedNs: bigint;
  readonly published: number;
  readonly errors: number;
  /** Publishes not settled within the publish bound (each stopped its publisher for the round). */
  readonly unsettled: number;
}

export class PublishBoard extends ControlWords {
  readonly workers: number;
  /** Per worker: [startedNs, completedNs]. */
  private readonly times: BigInt64Array;
  /** Per worker: [published, errors, unsettled]. */
  private readonly counts: Int32Array;

  /** A fresh board for `workers` threads, or a view of one created elsewhere (a worker receives the buffer). */
  constructor(workers: number, buffer: SharedArrayBuffer = new SharedArrayBuffer(PublishBoard.byteLength(workers))) {
    if (buffer.byteLength < PublishBoard.byteLength(workers))
      throw new RangeError(`a board for ${workers} workers needs ${PublishBoard.byteLength(workers)} bytes; got ${buffer.byteLength}`);
    super(buffer, CONTROL_WORDS);
    this.workers = workers;
    this.times = new BigInt64Array(buffer, CONTROL_BYTES, workers * 2);
    this.counts = new Int32Array(buffer, CONTROL_BYTES + workers * 16, workers * COUNTS);
  }

  static byteLength(workers: number): number {
    return CONTROL_BYTES + workers * 16 + workers * COUNTS * 4;
  }

  /** A worker's figures for the round it just finished; write before counting DONE. */
  writeRound(worker: number, slot: WorkerRoundSlot): void {
    Atomics.store(this.times, worker * 2, slot.startedNs);
    Atomics.store(this.times, worker * 2 + 1, slot.completedNs);
    Atomics.store(this.counts, worker * COUNTS, slot.published);
    Atomics.store(this.counts, worker * COUNTS + 1, slot.errors);
    Atomics.store(this.counts, worker * COUNTS + 2, slot.unsettled);
  }

  readRound(worker: number): WorkerRoundSlot {
    return {
      startedNs: Atomics.load(this.times, worker * 2),
      completedNs: Atomics.load(this.times, worker * 2 + 1),
      published: Atomics.load(this.counts, worker * COUNTS),
      errors: Atomics.load(this.counts, worker * COUNTS + 1),
      unsettled: Atomics.load(this.counts, worker * COUNTS + 2),
    };
  }
}
