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
