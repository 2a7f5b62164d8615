/**
 * The end of a sustained consume phase that accounts for every message: stop the producers (each
 * makes sure the broker has everything it sent), then wait until the consumers have counted as
 * many deliveries as were published in the session. Exact only when the consumers that counted
 * were the only ones since the session started, in one phase (no cancel, so no redelivery).
 */
import { elapsedMs, nowNs, sleep } from '../measure/clock';
import { ConsumeControl, type ConsumeBoard } from './consumeBoard';

export interface DrainOutcome {
  /** Every message the producers published over the whole session (all taken by the broker). */
  readonly published: number;
  /** Every delivery the consumers counted over the whole session. */
  readonly delivered: number;
  /** Time from the producers' stop to the last message counted (or the end of the wait). */
  readonly drainMs: number;
}

/** The wait ends when no delivery came for this long (the rest is missing). */
export const DRAIN_STALL_MS = 10_000;

/**
 * Drains as described above: waits as long as deliveries keep coming, at most `boundMs` in all.
 * @returns the counts, or why the producers did not stop cleanly (the caller fails the session with it)
 */
export async function drainCounted(board: ConsumeBoard, boundMs: number): Promise<DrainOutcome | string> {
  const stoppedNs = nowNs();
  const producers = board.layout.producerThreads;
  board.raise(ConsumeControl.PRODUCE_STOP);
  if (!(await board.waitFor(ConsumeControl.PRODUCERS_DONE, producers, boundMs, ConsumeControl.PRODUCERS_FAILED)))
    return `the producers did not stop cleanly within ${boundMs} ms`;
  const published = board.published();
  const deadline = Date.now() + boundMs;
  const failed = () => board.flag(ConsumeControl.CONSUMERS_FAILED) + board.flag(ConsumeControl.PRODUCERS_FAILED) > 0;
  let progressAt = Date.now();
  for (let last = board.delivered(); last < published && Date.now() < deadline && !failed();) {
    await sleep(5);
    const now = board.delivered();
    if (now > last) progressAt = Date.now();
    else if (Date.now() - progressAt > DRAIN_STALL_MS) break;
    last = now;
  }
  // A short grace: a duplicate delivery would show up here as more than was published.
  await sleep(50);
  return { published, delivered: board.delivered(), drainMs: elapsedMs(stoppedNs, nowNs()) };
}
