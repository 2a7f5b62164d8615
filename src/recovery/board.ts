/**
 * Shared memory between the main thread and the consumer threads of one scenario. Threads
 * write their own slots with `process.hrtime.bigint()` times and bump counters; the main
 * thread raises flags (go, injected, toxic removed, stop). Both sides wait with
 * `Atomics.waitAsync`, so no event loop is ever blocked while a connection is open.
 */
import { ThreadSlots } from '../workers/controlWords';

/** Control words (Int32 indices). */
export const Control = {
  READY: 0,
  GO: 1,
  INJECTED: 2,
  TOXIC_REMOVED: 3,
  STOP: 4,
  DETECTED: 5,
  RECOVERED: 6,
  FINISHED: 7,
} as const;
const CONTROL_WORDS = 8;

/** Per-thread time slots (BigInt64, ns). */
export const TimeSlot = { READY: 0, DETECTED: 1, RECOVERY_STARTED: 2, RECOVERED: 3 } as const;
const TIME_SLOTS = 4;

/** Per-thread integer slots. */
export const IntSlot = { STATE: 0, CAUSE: 1, LOCAL_PORT: 2, ATTEMPTS: 3, DELIVERIES: 4, STALLS: 5 } as const;
const INT_SLOTS = 6;

export const ThreadState = { STARTING: 0, READY: 1, DRAINING: 2, DETECTED: 3, RECOVERING: 4, RECOVERED: 5, FAILED: 6 } as const;

const LAYOUT = { controlWords: CONTROL_WORDS, timeSlots: TIME_SLOTS, intSlots: INT_SLOTS } as const;

export class ThreadBoard extends ThreadSlots {
  /** A new board for `threads` threads (main thread), or one attached to the buffer a worker was given. */
  constructor(threadsOrBuffer: number | SharedArrayBuffer, threads?: number) {
    super(LAYOUT, threadsOrBuffer, threads);
  }
}
