/**
 * Loss and duplicate accounting over sequence numbers (pure). The ledger holds four counters
 * per sequence number: publish copies sent, confirms received, deliveries seen, and how many
 * of those deliveries carried the broker's `redelivered` flag.
 *
 * The at-least-once rules it checks:
 * - **No loss**: every sequence number in the baseline (confirmed by the broker, or merely
 *   published when confirms are off) was delivered at least once.
 * - **Duplicates only where allowed**: a delivery flagged `redelivered` is always allowed (the
 *   broker says an earlier delivery may have happened, e.g. its ack died with the connection).
 *   An unflagged delivery is the first delivery of one publish copy, so a sequence number may
 *   have at most as many unflagged deliveries as copies were published; the extra copies exist
 *   only because a publish was unconfirmed when the fault hit and the producer sent it again.
 *   Anything beyond that is an unexplained duplicate.
 */

export interface LedgerCounts {
  /** Publish copies per sequence number (1 normally; more after a republish). */
  readonly published: ArrayLike<number>;
  /** 1 when the broker confirmed some copy. */
  readonly confirmed: ArrayLike<number>;
  /** Deliveries seen by any consumer. */
  readonly delivered: ArrayLike<number>;
  /** Deliveries that carried `redelivered = true`. */
  readonly redelivered: ArrayLike<number>;
}

/** What must have been delivered: confirmed messages (with confirms), else every published one. */
export type LossBaseline = 'confirmed' | 'published';

export interface AccountingRange {
  /** First sequence number (inclusive). @default 0 */
  readonly from?: number;
  /** Last sequence number (exclusive). @default the ledger's length */
  readonly to?: number;
  readonly baseline: LossBaseline;
  /** How many offending sequence numbers to list per kind. @default 20 */
  readonly listLimit?: number;
}

export interface DeliveryAccount {
  /** Sequence numbers published at least once. */
  readonly published: number;
  /** Extra publish copies (republished because unconfirmed at a fault). */
  readonly republished: number;
  readonly confirmed: number;
  readonly baseline: LossBaseline;
  /** Sequence numbers delivered at least once. */
  readonly deliveredUnique: number;
  /** Every delivery, duplicates included. */
  readonly deliveries: number;
  /** Deliveries beyond the first per sequence number. */
  readonly duplicates: number;
  /** Deliveries flagged `redelivered` by the broker. */
  readonly redeliveries: number;
  /** Duplicates the at-least-once rules do not explain (must be 0). */
  readonly unexplainedDuplicates: number;
  /** Baseline sequence numbers never delivered (must be 0). */
  readonly lost: number;
  /** Delivered although never confirmed (allowed: the confirm was lost, not the message). */
  readonly deliveredUnconfirmed: number;
  /** Delivered but never published (must be 0: a foreign or corrupted message). */
  readonly phantom: number;
  /** Up to `listLimit` examples of each problem. */
  readonly lostSeqs: readonly number[];
  readonly unexplainedSeqs: readonly number[];
  readonly phantomSeqs: readonly number[];
}

/**
 * Accounts for the sequence numbers `[from, to)` of the ledger.
 * @example
 * accountDeliveries({ published: [1, 2], confirmed: [1, 1], delivered: [1, 2], redelivered: [0, 0] }, { baseline: 'confirmed' })
 * // seq 1 was published twice, so its two unflagged deliveries are allowed: duplicates 1, unexplained 0
 */
export function accountDeliveries(ledger: LedgerCounts, range: AccountingRange): DeliveryAccount {
  const from = range.from ?? 0;
  const to = range.to ?? ledger.delivered.length;
  const limit = range.listLimit ?? 20;
  let published = 0;
  let republished = 0;
  let confirmed = 0;
  let deliveredUnique = 0;
  let deliveries = 0;
  let duplicates = 0;
  let redeliveries = 0;
  let unexplainedDuplicates = 0;
  let lost = 0;
  let deliveredUnconfirmed = 0;
  let phantom = 0;
  const lostSeqs: number[] = [];
  const unexplainedSeqs: number[] = [];
  const phantomSeqs: number[] = [];
  for (let seq = from; seq < to; seq += 1) {
    const copies = ledger.published[seq] ?? 0;
    const isConfirmed = (ledger.confirmed[seq] ?? 0) > 0;
    const seen = ledger.delivered[seq] ?? 0;
    const flagged = Math.min(seen, ledger.redelivered[seq] ?? 0);
    if (copies > 0) published += 1;
    republished += Math.max(0, copies - 1);
    if (isConfirmed) confirmed += 1;
    deliveries += seen;
    redeliveries += flagged;
    if (seen > 0) {
      deliveredUnique += 1;
      duplicates += seen - 1;
      if (copies === 0) {
        phantom += 1;
        if (phantomSeqs.length < limit) phantomSeqs.push(seq);
        continue;
      }
      if (!isConfirmed) deliveredUnconfirmed += 1;
      const unexplained = Math.max(0, seen - flagged - copies);
      if (unexplained > 0) {
        unexplainedDuplicates += unexplained;
        if (unexplainedSeqs.length < limit) unexplainedSeqs.push(seq);
      }
    } else if (range.baseline === 'confirmed' ? isConfirmed : copies > 0) {
      lost += 1;
      if (lostSeqs.length < limit) lostSeqs.push(seq);
    }
  }
  return {
    published,
    republished,
    confirmed,
    baseline: range.baseline,
    deliveredUnique,
    deliveries,
    duplicates,
    redeliveries,
    unexplainedDuplicates,
    lost,
    deliveredUnconfirmed,
    phantom,
    lostSeqs,
    unexplainedSeqs,
    phantomSeqs,
  };
}

/** Lost messages as a percentage of the baseline (0 when the baseline is empty). */
export function lossPercent(account: DeliveryAccount): number {
  const base = account.baseline === 'confirmed' ? account.confirmed : account.published;
  return base === 0 ? 0 : (account.lost / base) * 100;
}
