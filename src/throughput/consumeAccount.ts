/**
 * The end of a sustained consume phase that accounts for every message: stop the producers (each
 * makes sure the broker has everything it sent), purge what is still ready in the queue (the
 * broker says how many it removed), and wait until the consumers have counted the rest, which was
 * already on its way to them (at most their prefetch windows). Every message published in the
 * session must then be counted by a consumer or purged, exactly once.
 *
 * Why a purge rather than consuming the backlog to the end: the backlog is large on purpose (up
 * to 200 000 messages, see watermarks.ts) and consuming it took 5-7 s per test, none of it
 * measured. What the account proves about the client is the same: a purge removes only messages
 * no consumer was sent (ready), so a delivery the client received but never handed to the
 * application stays unacked, is not purged and shows as missing; one handed over twice shows as
 * extra. Exact only when the consumers that counted were the only ones since the session started,
 * in one phase (a cancel would requeue what was in flight, to be delivered again).
 */
import { elapsedMs, nowNs, sleep } from '../measure/clock';
import { ConsumeControl, type ConsumeBoard } from './consumeBoard';

export interface AccountOutcome {
  /** Every message the producers published over the whole session (all taken by the broker). */
  readonly published: number;
  /** Every delivery the consumers counted over the whole session. */
  readonly delivered: number;
  /** Ready messages the purge removed (the broker's count): published, never sent to a consumer. */
  readonly purged: number;
  /** Time from the producers' stop to the account closing (the last in-flight delivery counted, or the end of the wait). */
  readonly accountMs: number;
}

/** The wait for in-flight deliveries ends when none came for this long (the rest is missing). */
export const ACCOUNT_STALL_MS = 10_000;

/**
 * Closes the account as described above: waits as long as deliveries keep coming, at most `boundMs` in all.
 * @param purge removes the queue's ready messages and resolves to how many it removed
 * @returns the counts, or why the producers did not stop cleanly (the caller fails the session with it)
 */
export async function closeAccount(board: ConsumeBoard, purge: () => Promise<number>, boundMs: number): Promise<AccountOutcome | string> {
  const stoppedNs = nowNs();
  const producers = board.layout.producerThreads;
  board.raise(ConsumeControl.PRODUCE_STOP);
  if (!(await board.waitFor(ConsumeControl.PRODUCERS_DONE, producers, boundMs, ConsumeControl.PRODUCERS_FAILED)))
    return `the producers did not stop cleanly within ${boundMs} ms`;
  const published = board.published();
  const purged = await purge();
  const deadline = Date.now() + boundMs;
  const failed = () => board.flag(ConsumeControl.CONSUMERS_FAILED) + board.flag(ConsumeControl.PRODUCERS_FAILED) > 0;
  let progressAt = Date.now();
  for (let last = board.delivered(); last + purged < published && Date.now() < deadline && !failed();) {
    await sleep(5);
    const now = board.delivered();
    if (now > last) progressAt = Date.now();
    else if (Date.now() - progressAt > ACCOUNT_STALL_MS) break;
    last = now;
  }
  // A short grace: a duplicate delivery would show up here as more than was published.
  await sleep(50);
  return { published, delivered: board.delivered(), purged, accountMs: elapsedMs(stoppedNs, nowNs()) };
}
