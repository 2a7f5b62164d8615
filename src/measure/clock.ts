/**
 * One clock for every measurement: `process.hrtime.bigint()` is monotonic and shared by every
 * worker thread and every process on the machine, so differences across them are exact.
 */

/** Monotonic nanoseconds. */
export const nowNs = (): bigint => process.hrtime.bigint();

/** Difference `later - earlier` in milliseconds (fractional). */
export function elapsedMs(earlierNs: bigint, laterNs: bigint): number {
  return Number(laterNs - earlierNs) / 1e6;
}

/** The time an async step took: its start and end on the monotonic clock. */
export interface Bracket {
  readonly startedNs: bigint;
  readonly completedNs: bigint;
}

/** Runs `action` and returns its result with the bracket around it. */
export async function bracket<T>(action: () => Promise<T>): Promise<{ value: T; bracket: Bracket }> {
  const startedNs = nowNs();
  const value = await action();
  return { value, bracket: { startedNs, completedNs: nowNs() } };
}

/**
 * Resolves after `ms`. The timer keeps the process alive until then: whoever awaits a wait needs
 * what comes after it, and an unref'd timer let Node run out of work and exit 0 in the middle of
 * an `await` (globalSetup's wait for the embedded proxy ended a run that way, with no test run).
 */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Polls `done` every `sliceMs` until it holds (true) or `boundMs` passes (false). */
export async function pollUntil(done: () => boolean, boundMs: number, sliceMs = 50): Promise<boolean> {
  const deadline = Date.now() + boundMs;
  for (;;) {
    if (done()) return true;
    if (Date.now() >= deadline) return false;
    await sleep(sliceMs);
  }
}

/** One monotonic reading paired with the wall clock, so monotonic times can be set beside a packet capture's. */
export interface ClockAnchor {
  readonly monotonicNs: bigint;
  /** Wall-clock milliseconds since the epoch at that reading (within a few µs). */
  readonly epochMs: number;
}

/**
 * Pairs the monotonic clock with the wall clock. `Date.now()` only has whole milliseconds, so
 * this waits (at most about 1 ms, busy) for it to tick and reads the monotonic clock right at the
 * tick: the pair then agrees within the few µs between the two reads. Call it outside a timed phase.
 */
export function clockAnchor(): ClockAnchor {
  const start = Date.now();
  let epochMs = start;
  let monotonicNs = nowNs();
  // Bounded: 5 ms is far beyond a 1 ms tick, should the wall clock be stepped meanwhile.
  const giveUpNs = monotonicNs + 5_000_000n;
  while (epochMs === start && monotonicNs < giveUpNs) {
    // Monotonic first: a thread preempted between the two reads then still leaves with the tick
    // seen (a wall-clock read taken first could be the old tick while the bound has passed).
    monotonicNs = nowNs();
    epochMs = Date.now();
  }
  return { monotonicNs, epochMs };
}

/** A monotonic reading as wall-clock seconds since the epoch (what tshark's `frame.time_epoch` prints). */
export function epochSecondsOf(anchor: ClockAnchor, monotonicNs: bigint): number {
  return anchor.epochMs / 1000 + Number(monotonicNs - anchor.monotonicNs) / 1e9;
}

/** True once `promise` settles (either way), false if `boundMs` passes first; the timer is cleared either way. */
export async function withinMs(promise: Promise<unknown>, boundMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise.then(
        () => true,
        () => true,
      ),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(false), boundMs);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
