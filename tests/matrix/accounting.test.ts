import { accountPublishes, sumAccounts } from '../../src/matrix/accounting';
import { PublishPhase, PublishState, type MatrixThreadReport } from '../../src/matrix/report';

const MS = 1_000_000n;
const T0 = 1_000_000n * MS;

/** A thread's report from one row per publish: [state, phase, published ms, settled ms (null: pending), deliveries]. */
function report(rows: readonly [number, number, number, number | null, number][]): MatrixThreadReport {
  return {
    threadIndex: 0,
    state: Uint8Array.from(rows.map((row) => row[0])),
    phase: Uint8Array.from(rows.map((row) => row[1])),
    publishedAtNs: BigInt64Array.from(rows.map((row) => T0 + BigInt(row[2]) * MS)),
    settledAtNs: BigInt64Array.from(rows.map((row) => (row[3] === null ? 0n : T0 + BigInt(row[3]) * MS))),
    deliveries: Uint16Array.from(rows.map((row) => row[4])),
    deliveredAtNs: BigInt64Array.from(rows.map((row) => (row[4] > 0 ? T0 + BigInt(row[2] + 1) * MS : 0n))),
    lastDeliveredAtNs: BigInt64Array.from(rows.map((row) => (row[4] > 0 ? T0 + BigInt(row[2] + row[4]) * MS : 0n))),
    settledOnlyByClose: 0,
    ports: [],
    rejections: [],
    events: [],
    unhandled: [],
    closeMs: 1,
  };
}

const { CONFIRMED, NACKED, REJECTED, PENDING } = PublishState;
const { BEFORE, DURING_FAULT, AFTER_REMOVAL } = PublishPhase;

describe('the fate of every publish', () => {
  it('puts each publish in exactly one class, and then says where each confirmed one went', () => {
    const account = accountPublishes({
      report: report([
        [CONFIRMED, BEFORE, 0, 2, 1], // delivered
        [CONFIRMED, BEFORE, 5, 7, 2], // delivered twice: one duplicate
        [CONFIRMED, BEFORE, 10, 12, 0], // still in the queue
        [CONFIRMED, BEFORE, 15, 17, 0], // lost
        [REJECTED, DURING_FAULT, 20, 21, 1], // rejected, delivered anyway
        [REJECTED, DURING_FAULT, 25, 26, 0], // rejected, never delivered
        [NACKED, DURING_FAULT, 30, 31, 0],
        [PENDING, AFTER_REMOVAL, 40, null, 0], // hung
      ]),
      leftInQueue: new Map([[2, 1]]),
      injectionStartedNs: T0 + 18n * MS,
      faultLossBeforeNs: null,
    });
    expect(account).toMatchObject({
      total: 8,
      confirmed: 4,
      nacked: 1,
      rejected: 2,
      hung: 1,
      confirmedDelivered: 2,
      confirmedQueued: 1,
      confirmedLost: 1,
      lostToFault: 0,
      rejectedDeliveredAnyway: 1,
      hungDelivered: 0,
      duplicates: 1,
      duringFault: { total: 3, confirmed: 0, nacked: 1, rejected: 2, hung: 0 },
      oldestHung: { seq: 7, publishedNs: T0 + 40n * MS },
    });
    expect(account.total).toBe(account.confirmed + account.nacked + account.rejected + account.hung);
    expect(account.maxSettleMs).toBe(2);
  });

  it('counts what was in flight when the fault hit: published before it, not settled by then', () => {
    const account = accountPublishes({
      report: report([
        [CONFIRMED, BEFORE, 0, 5, 1], // settled before the injection at 10 ms: not in flight
        [CONFIRMED, BEFORE, 8, 30, 1], // in flight, confirmed late
        [REJECTED, BEFORE, 9, 12, 0], // in flight, rejected
        [PENDING, BEFORE, 9, null, 0], // in flight, hung
      ]),
      leftInQueue: new Map(),
      injectionStartedNs: T0 + 10n * MS,
      faultLossBeforeNs: null,
    });
    expect(account.inFlightAtFault).toEqual({ total: 3, confirmed: 1, nacked: 0, rejected: 1, hung: 1 });
  });

  it("calls a confirmed message the fault destroyed (a deleted queue) the fault's loss, not the client's", () => {
    const account = accountPublishes({
      report: report([
        [CONFIRMED, BEFORE, 0, 1, 0], // in the queue when it was deleted
        [CONFIRMED, DURING_FAULT, 12, 13, 0], // published before it was declared again: went nowhere
        [CONFIRMED, AFTER_REMOVAL, 30, 31, 0], // after: a loss of its own
      ]),
      leftInQueue: new Map(),
      injectionStartedNs: T0 + 10n * MS,
      faultLossBeforeNs: T0 + 20n * MS,
    });
    expect(account).toMatchObject({ lostToFault: 2, confirmedLost: 1 });
  });

  it('sums threads, keeping the oldest hung publish of any', () => {
    const one = accountPublishes({
      report: report([[PENDING, DURING_FAULT, 50, null, 0]]),
      leftInQueue: new Map(),
      injectionStartedNs: T0,
      faultLossBeforeNs: null,
    });
    const two = accountPublishes({
      report: report([
        [CONFIRMED, BEFORE, 0, 3, 1],
        [PENDING, DURING_FAULT, 20, null, 1],
      ]),
      leftInQueue: new Map(),
      injectionStartedNs: T0,
      faultLossBeforeNs: null,
    });
    const total = sumAccounts([one, two]);
    expect(total).toMatchObject({ total: 3, confirmed: 1, hung: 2, hungDelivered: 1, maxSettleMs: 3 });
    expect(total.oldestHung).toEqual({ seq: 1, publishedNs: T0 + 20n * MS });
  });
});
