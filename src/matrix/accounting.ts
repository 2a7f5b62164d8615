/**
 * The fate of every publish of a fault-matrix cell (pure): each ends in exactly one class —
 * confirmed, nacked, rejected by the client (with its error), or hung (not settled within the
 * cell's settle bound) — and then, from what the consumers received and what was left in the
 * queues: a confirmed message delivered, still queued, or lost (the fault's loss when the fault
 * itself destroys messages and it was published before the fault was undone); a rejected one
 * delivered anyway (its outcome was unknown to the application) or not; duplicates counted.
 */
import { PublishPhase, PublishState, type MatrixThreadReport } from './report';

export interface OutcomeCounts {
  readonly total: number;
  readonly confirmed: number;
  readonly nacked: number;
  readonly rejected: number;
  readonly hung: number;
}

export interface PublishAccount extends OutcomeCounts {
  readonly confirmedDelivered: number;
  readonly confirmedQueued: number;
  /** Confirmed, never delivered, not in the queue: lost (the client's, or the broker's). */
  readonly confirmedLost: number;
  /** Confirmed, never delivered, destroyed by the fault itself (a deleted queue). */
  readonly lostToFault: number;
  readonly rejectedDeliveredAnyway: number;
  readonly hungDelivered: number;
  /** Deliveries beyond the first of a message (and queued copies beyond one). */
  readonly duplicates: number;
  /** Published before the injection and not settled when it started: what was in flight when the fault hit. */
  readonly inFlightAtFault: OutcomeCounts;
  /** Published while the fault was in place. */
  readonly duringFault: OutcomeCounts;
  /** The slowest settled publish (publish -> confirm or rejection), ms. */
  readonly maxSettleMs: number | null;
  /** The oldest publish still pending at the end, if any: its sequence number and age. */
  readonly oldestHung: { readonly seq: number; readonly publishedNs: bigint } | null;
}

export interface AccountInput {
  readonly report: MatrixThreadReport;
  /** Own messages left in the thread's queue: sequence number -> copies. */
  readonly leftInQueue: ReadonlyMap<number, number>;
  readonly injectionStartedNs: bigint | null;
  /** Publishes before this moment that the fault destroyed are the fault's loss; null when it destroys none. */
  readonly faultLossBeforeNs: bigint | null;
}

const emptyCounts = (): { total: number; confirmed: number; nacked: number; rejected: number; hung: number } => ({
  total: 0,
  confirmed: 0,
  nacked: 0,
  rejected: 0,
  hung: 0,
});

function addTo(counts: ReturnType<typeof emptyCounts>, state: number): void {
  counts.total += 1;
  if (state === PublishState.CONFIRMED) counts.confirmed += 1;
  else if (state === PublishState.NACKED) counts.nacked += 1;
  else if (state === PublishState.REJECTED) counts.rejected += 1;
  else counts.hung += 1;
}

export function accountPublishes(input: AccountInput): PublishAccount {
  const { report, leftInQueue } = input;
  const all = emptyCounts();
  const inFlight = emptyCounts();
  const during = emptyCounts();
  let confirmedDelivered = 0;
  let confirmedQueued = 0;
  let confirmedLost = 0;
  let lostToFault = 0;
  let rejectedDeliveredAnyway = 0;
  let hungDelivered = 0;
  let duplicates = 0;
  let maxSettleNs: bigint | null = null;
  let oldestHung: PublishAccount['oldestHung'] = null;
  for (let seq = 0; seq < report.state.length; seq += 1) {
    const state = report.state[seq]!;
    const delivered = report.deliveries[seq] ?? 0;
    const queued = leftInQueue.get(seq) ?? 0;
    const publishedNs = report.publishedAtNs[seq]!;
    const settledNs = report.settledAtNs[seq]!;
    addTo(all, state);
    if (report.phase[seq] === PublishPhase.DURING_FAULT) addTo(during, state);
    const injection = input.injectionStartedNs;
    if (injection !== null && publishedNs < injection && (settledNs === 0n || settledNs >= injection)) addTo(inFlight, state);
    if (settledNs !== 0n && (maxSettleNs === null || settledNs - publishedNs > maxSettleNs)) maxSettleNs = settledNs - publishedNs;
    duplicates += Math.max(0, delivered - 1) + (delivered > 0 ? queued : Math.max(0, queued - 1));
    const arrived = delivered > 0 || queued > 0;
    if (state === PublishState.CONFIRMED) {
      if (delivered > 0) confirmedDelivered += 1;
      else if (queued > 0) confirmedQueued += 1;
      else if (input.faultLossBeforeNs !== null && publishedNs < input.faultLossBeforeNs) lostToFault += 1;
      else confirmedLost += 1;
    } else if (state === PublishState.PENDING) {
      if (arrived) hungDelivered += 1;
      if (oldestHung === null) oldestHung = { seq, publishedNs };
    } else if (arrived) {
      rejectedDeliveredAnyway += 1;
    }
  }
  return {
    ...all,
    confirmedDelivered,
    confirmedQueued,
    confirmedLost,
    lostToFault,
    rejectedDeliveredAnyway,
    hungDelivered,
    duplicates,
    inFlightAtFault: inFlight,
    duringFault: during,
    maxSettleMs: maxSettleNs === null ? null : Number(maxSettleNs) / 1e6,
    oldestHung,
  };
}

/** The accounts of several threads, summed (the oldest hung publish of any). */
export function sumAccounts(accounts: readonly PublishAccount[]): PublishAccount {
  const sumCounts = (pick: (account: PublishAccount) => OutcomeCounts): OutcomeCounts => {
    const counts = emptyCounts();
    for (const account of accounts) {
      const part = pick(account);
      counts.total += part.total;
      counts.confirmed += part.confirmed;
      counts.nacked += part.nacked;
      counts.rejected += part.rejected;
      counts.hung += part.hung;
    }
    return counts;
  };
  const sum = (pick: (account: PublishAccount) => number) => accounts.reduce((total, account) => total + pick(account), 0);
  const settles = accounts.map((account) => account.maxSettleMs).filter((value): value is number => value !== null);
  const hung = accounts
    .map((account) => account.oldestHung)
    .filter((value): value is NonNullable<PublishAccount['oldestHung']> => value !== null);
  return {
    ...sumCounts((account) => account),
    confirmedDelivered: sum((account) => account.confirmedDelivered),
    confirmedQueued: sum((account) => account.confirmedQueued),
    confirmedLost: sum((account) => account.confirmedLost),
    lostToFault: sum((account) => account.lostToFault),
    rejectedDeliveredAnyway: sum((account) => account.rejectedDeliveredAnyway),
    hungDelivered: sum((account) => account.hungDelivered),
    duplicates: sum((account) => account.duplicates),
    inFlightAtFault: sumCounts((account) => account.inFlightAtFault),
    duringFault: sumCounts((account) => account.duringFault),
    maxSettleMs: settles.length === 0 ? null : Math.max(...settles),
    oldestHung: hung.length === 0 ? null : hung.reduce((oldest, each) => (each.publishedNs < oldest.publishedNs ? each : oldest)),
  };
}
