/**
 * Waiting on a shared Int32 word across threads without blocking an event loop: the one loop
 * every board (recovery, throughput, realistic) uses.
 */
type WaitAsync = (
  array: Int32Array,
  index: number,
  value: number,
  timeoutMs?: number,
) => { async: boolean; value: Promise<string> | string };
const waitAsync = (Atomics as unknown as { waitAsync: WaitAsync }).waitAsync;

/**
 * Resolves true once `control[index]` reaches at least `target`, false after `timeoutMs`, or
 * false as soon as `control[abortIndex]` (e.g. STOP or FAILED) becomes non-zero, checked every
 * `sliceMs`.
 */
export async function waitForWord(
  control: Int32Array,
  index: number,
  target: number,
  timeoutMs: number,
  abortIndex?: number,
  sliceMs = 50,
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const current = Atomics.load(control, index);
    if (current >= target) return true;
    if (abortIndex !== undefined && Atomics.load(control, abortIndex) !== 0) return false;
    const remainingMs = deadline - Date.now();
    if (remainingMs <= 0) return false;
    const sliceBoundMs = abortIndex === undefined ? remainingMs : Math.min(remainingMs, sliceMs);
    const result = waitAsync(control, index, current, sliceBoundMs);
    if (result.async) {
      // A pending waitAsync does not keep Node's event loop alive; this timer does.
      const keepAlive = setTimeout(() => undefined, sliceBoundMs);
      await result.value;
      clearTimeout(keepAlive);
    }
  }
}

/**
 * The control words at the start of a shared buffer, as every board (recovery, throughput,
 * realistic) uses them: flags one side raises and the other waits on, and counters.
 */
export class ControlWords {
  readonly buffer: SharedArrayBuffer;
  protected readonly control: Int32Array;

  constructor(buffer: SharedArrayBuffer, words: number) {
    this.buffer = buffer;
    this.control = new Int32Array(buffer, 0, words);
  }

  flag(index: number): number {
    return Atomics.load(this.control, index);
  }

  /** Sets a control word and wakes everyone waiting on it. */
  raise(index: number, value = 1): void {
    Atomics.store(this.control, index, value);
    Atomics.notify(this.control, index);
  }

  /**
   * Wakes whoever waits on `index` without changing it: they check their abort word at once
   * instead of at the end of their slice (`waitForWord`'s `sliceMs`).
   */
  wake(index: number): void {
    Atomics.notify(this.control, index);
  }

  /** Adds `delta` to a counter and wakes its waiters. */
  count(index: number, delta = 1): void {
    Atomics.add(this.control, index, delta);
    Atomics.notify(this.control, index);
  }

  /** See `waitForWord`. Never blocks the event loop. */
  waitFor(index: number, target: number, timeoutMs: number, abortIndex?: number, sliceMs?: number): Promise<boolean> {
    return waitForWord(this.control, index, target, timeoutMs, abortIndex, sliceMs);
  }
}

/** How a board with per-thread slots is laid out: its control words, then each thread's moments and integers. */
export interface ThreadSlotsLayout {
  readonly controlWords: number;
  /** BigInt64 slots per thread (`process.hrtime.bigint()` moments, 0 = not yet). */
  readonly timeSlots: number;
  /** Int32 slots per thread (states, counts, ports). */
  readonly intSlots: number;
}

/** Where the moments start: after the control words, 8-byte aligned (as BigInt64Array needs). */
function timesOffset(layout: ThreadSlotsLayout): number {
  return Math.ceil((layout.controlWords * 4) / 8) * 8;
}

/** The bytes a board of `layout` for `threads` threads takes. */
function threadSlotsByteLength(layout: ThreadSlotsLayout, threads: number): number {
  return timesOffset(layout) + threads * layout.timeSlots * 8 + threads * layout.intSlots * 4;
}

/**
 * Control words, then per thread its moments and its integers, each read and written atomically:
 * what the recovery, matrix and failover boards share. Made new (main thread) or attached to the
 * buffer a worker was given.
 */
export class ThreadSlots extends ControlWords {
  readonly threads: number;
  protected readonly times: BigInt64Array;
  protected readonly ints: Int32Array;
  private readonly layout: ThreadSlotsLayout;

  /** A new board for `threads` threads (main thread), or one attached to the `buffer` a worker was given for `threads` threads. */
  constructor(layout: ThreadSlotsLayout, threadsOrBuffer: number | SharedArrayBuffer, threads = 0) {
    if (typeof threadsOrBuffer === 'number') threads = threadsOrBuffer;
    super(
      typeof threadsOrBuffer === 'number' ? new SharedArrayBuffer(threadSlotsByteLength(layout, threads)) : threadsOrBuffer,
      layout.controlWords,
    );
    this.layout = layout;
    this.threads = threads;
    const offset = timesOffset(layout);
    this.times = new BigInt64Array(this.buffer, offset, threads * layout.timeSlots);
    this.ints = new Int32Array(this.buffer, offset + threads * layout.timeSlots * 8, threads * layout.intSlots);
  }

  time(thread: number, slot: number): bigint {
    return Atomics.load(this.times, thread * this.layout.timeSlots + slot);
  }

  setTime(thread: number, slot: number, ns: bigint): void {
    Atomics.store(this.times, thread * this.layout.timeSlots + slot, ns);
  }

  int(thread: number, slot: number): number {
    return Atomics.load(this.ints, thread * this.layout.intSlots + slot);
  }

  setInt(thread: number, slot: number, value: number): void {
    Atomics.store(this.ints, thread * this.layout.intSlots + slot, value);
  }

  addInt(thread: number, slot: number, delta = 1): void {
    Atomics.add(this.ints, thread * this.layout.intSlots + slot, delta);
  }
}
