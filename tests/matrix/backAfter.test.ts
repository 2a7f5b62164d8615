/**
 * When a thread was back after the fault's removal (pure): its consumer is back at its first
 * delivery after the removal's moment, read from the deliveries' own moments, not from when the
 * main thread raised its "removed" flag (which, for a fault with nothing to undo, comes after a
 * library that reconnected and subscribed at once already had its deliveries).
 */
import { PublishPhase, PublishState, type MatrixThreadReport } from '../../src/matrix/report';
import { backAfter } from '../../src/matrix/threadDetail';

const MS = 1_000_000n;
const at = (ms: number): bigint => 1_000_000n * MS + BigInt(ms) * MS;
/** The fault's own moment, its removal (a broker's close: nothing to undo). */
const REMOVED = at(1000);

/** Three messages published before the fault: [first delivered ms, last delivered ms] (0: never). */
function report(deliveries: readonly (readonly [number, number])[]): MatrixThreadReport {
  return {
    threadIndex: 0,
    state: Uint8Array.from(deliveries, () => PublishState.CONFIRMED),
    settledOnlyByClose: 0,
    phase: Uint8Array.from(deliveries, () => PublishPhase.BEFORE),
    publishedAtNs: BigInt64Array.from(deliveries, (_, seq) => at(seq * 10)),
    settledAtNs: BigInt64Array.from(deliveries, (_, seq) => at(seq * 10 + 2)),
    deliveries: Uint16Array.from(deliveries, ([first, last]) => (first === 0 ? 0 : first === last ? 1 : 2)),
    deliveredAtNs: BigInt64Array.from(deliveries, ([first]) => (first === 0 ? 0n : at(first))),
    lastDeliveredAtNs: BigInt64Array.from(deliveries, ([, last]) => (last === 0 ? 0n : at(last))),
    ports: [],
    rejections: [],
    events: [],
    unhandled: [],
    closeMs: 1,
  };
}

describe('backAfter', () => {
  it('reads a consumer that got again what the old channel left unacked after the removal as back, with no flag raised yet', () => {
    // Delivered first before the fault, again 60 ms after it on the new channel; the flag came later (no delivery after it).
    const back = backAfter(
      report([
        [5, 1060],
        [15, 1070],
        [25, 25],
      ]),
      0n,
      REMOVED,
    );
    expect(back.consumerNs).toBe(at(1060));
    expect(back.recoveredNs).toBeNull(); // nothing it published after the removal came back
  });

  it('keeps the earlier of a delivery after the removal and the first delivery after the flag', () => {
    expect(backAfter(report([[1200, 1200]]), at(1100), REMOVED).consumerNs).toBe(at(1100));
    expect(backAfter(report([[5, 1050]]), at(1100), REMOVED).consumerNs).toBe(at(1050));
  });

  it('reads a consumer that got nothing after the removal as not back', () => {
    expect(backAfter(report([[5, 900]]), 0n, REMOVED).consumerNs).toBeNull();
  });
});
