/**
 * Shared memory between the main thread and the threads of one fault-matrix cell: flags the main
 * thread raises (go, injected, removed, settle, stop, close-check), counters the threads bump
 * (ready, detected, recovered, classed, finished), and per thread its moments (`process.hrtime.bigint()`)
 * and running counts. Both sides wait with `Atomics.waitAsync`: no event loop is ever blocked
 * while a connection is open.
 */
import { ThreadSlots } from '../workers/controlWords';

export const MatrixControl = {
  READY: 0,
  GO: 1,
  INJECTED: 2,
  REMOVED: 3,
  /** Stop publishing; wait for what is in flight. */
  SETTLE: 4,
  STOP: 5,
  DETECTED: 6,
  RECOVERED: 7,
  FINISHED: 8,
  /** Thread 0 checks that close() returns while its connection is blocked (an alarm). */
  CLOSE_CHECK: 9,
  CLOSE_CHECKED: 10,
  /** Threads that classed every publish at the end of the settle bound (before anything is closed). */
  CLASSED: 11,
  /** Threads loaded and waiting for their moment to open (a worker takes a while to start). */
  LOADED: 12,
  /** Each thread's moment to open its connection is set (MatrixTime.OPEN_AT). */
  OPEN: 13,
  /** Each consumer keeps the ack of its next own delivery until the fault is in place (./faultMomentAck.ts). */
  HOLD_ACK: 14,
  /** Threads keeping such an ack. */
  ACK_HELD: 15,
} as const;
const CONTROL_WORDS = 16;

/** Per-thread moments (BigInt64, ns; 0 = not yet). */
export const MatrixTime = {
  READY: 0,
  /** The first fault or signal the client gave after the injection. */
  DETECTED: 1,
  /** A message it published after the removal was delivered to its own consumer: publisher and consumer both work. */
  RECOVERED: 2,
  /** First confirm of a publish made after the removal. */
  PUBLISHER_BACK: 3,
  /** First delivery (its own message or the harness's probe) after the removal. */
  CONSUMER_BACK: 4,
  /** Its connection opened (the client's connect returned): where its heartbeat timers start. */
  OPENED: 5,
  /** When it is to open its connection (set by the main thread: staggered over a heartbeat interval, or all at once). */
  OPEN_AT: 6,
} as const;
const TIME_SLOTS = 7;

export const MatrixInt = {
  /** What it received first (RECEIVED_KIND_CODES). */
  DETECTED_KIND: 0,
  LOCAL_PORT: 1,
  PUBLISHED: 2,
  CONFIRMED: 3,
  REJECTED: 4,
  NACKED: 5,
  /** Deliveries of its own messages (duplicates included). */
  DELIVERED: 6,
  PROBES: 7,
  /** Publishes waiting for their confirm now. */
  OUTSTANDING: 8,
  FAILED: 9,
} as const;
const INT_SLOTS = 10;

const LAYOUT = { controlWords: CONTROL_WORDS, timeSlots: TIME_SLOTS, intSlots: INT_SLOTS } as const;

export class MatrixBoard extends ThreadSlots {
  /** A new board for `threads` threads (main thread), or one attached to the buffer a worker was given. */
  constructor(threadsOrBuffer: number | SharedArrayBuffer, threads?: number) {
    super(LAYOUT, threadsOrBuffer, threads);
  }

  /** Sets a moment once: the first one wins. Returns true when this call set it. */
  setTimeOnce(thread: number, slot: number, ns: bigint): boolean {
    return Atomics.compareExchange(this.times, thread * TIME_SLOTS + slot, 0n, ns) === 0n;
  }
}
