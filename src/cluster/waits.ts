/**
 * The conditions a failover scenario waits for, as plain functions of the shared boards (it
 * waits for them with the clock's `pollUntil`).
 */
import type { LedgerCounts } from '../suite-kit/accounting';
import type { FailoverBoard } from './failoverBoard';

/**
 * Threads (of the first `threads`) still in an outage with no message after it, plus those of
 * `mustBeHit` that have not had an outage at all yet.
 */
export function unfinishedEpisodes(board: FailoverBoard, threads: number, mustBeHit: readonly number[]): number[] {
  const unfinished: number[] = [];
  for (let thread = 0; thread < threads; thread += 1) {
    const notHitYet = mustBeHit.includes(thread) && board.episodes(thread) === 0;
    if (notHitYet || board.waitingForFirstMessage(thread)) unfinished.push(thread);
  }
  return unfinished;
}

/** Sequence numbers below `sequences` that the broker confirmed and no consumer has seen yet. */
export function undeliveredConfirmed(ledger: LedgerCounts, sequences: number): number {
  let missing = 0;
  for (let seq = 0; seq < sequences; seq += 1) {
    if ((ledger.confirmed[seq] ?? 0) > 0 && (ledger.delivered[seq] ?? 0) === 0) missing += 1;
  }
  return missing;
}

/** Consumer threads whose first connection went to `node` when the fault came (every consumer for a rolling restart: `node` null). */
export function threadsOn(board: FailoverBoard, consumers: number, nodeByPort: ReadonlyMap<number, string>, node: string | null): number[] {
  const all = Array.from({ length: consumers }, (_, thread) => thread);
  if (node === null) return all;
  return all.filter((thread) => nodeByPort.get(board.read(thread).firstPort) === node);
}
