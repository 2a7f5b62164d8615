/**
 * Shared memory between the main thread and the consumer threads of one scenario. Threads
 * write their own slots with `process.hrtime.bigint()` times and bump counters; the main
 * thread raises flags (go, injected, toxic removed, stop). Both sides wait with
 * `Atomics.waitAsync`, so no event loop is ever blocked while a connection is open.
 */
import { ControlWords } from '../workers/controlWords';

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

export class ThreadBoard extends ControlWords {
  readonly threads: number;
  private readonly times: BigInt64Array;
  private readonly ints: Int32Array;

  constructor(threadsOrBuffer: number | SharedArrayBuffer, threads?: number) {
    const threadCount = typeof threadsOrBuffer === 'number' ? threadsOrBuffer : (threads ?? 0);
    super(
      typeof threadsOrBuffer === 'number' ? new SharedArrayBuffer(ThreadBoard.byteLength(threadCount)) : threadsOrBuffer,
      CONTROL_WORDS,
    );
    this.threads = threadCount;
    const timesOffset = CONTROL_WORDS * 4;
    this.times = new BigInt64Array(this.buffer, timesOffset, this.threads * TIME_SLOTS);
    this.ints = new Int32Array(this.buffer, timesOffset + this.threads * TIME_SLOTS * 8, this.threads * INT_SLOTS);
  }

  static byteLength(threads: number): number {
    return CONTROL_WORDS * 4 + threads * TIME_SLOTS * 8 + threads * INT_SLOTS * 4;
  }

  setTime(thread: number, slot: number, ns: bigint): void {
    Atomics.store(this.times, thread * TIME_SLOTS + slot, ns);
  }

  time(thread: number, slot: number): bigint {
    return Atomics.load(this.times, thread * TIME_SLOTS + slot);
  }

  setInt(thread: number, slot: number, value: number): void {
    Atomics.store(this.ints, thread * INT_SLOTS + slot, value);
  }

  addInt(thread: number, slot: number, delta = 1): void {
    Atomics.add(this.ints, thread * INT_SLOTS + slot, delta);
  }

  int(thread: number, slot: number): number {
    return Atomics.load(this.ints, thread * INT_SLOTS + slot);
  }
}
