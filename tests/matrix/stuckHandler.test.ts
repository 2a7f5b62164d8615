/** The acknowledgement timeout's stuck consumer (a board in memory): what it holds, from when, until when, and what it follows. */
import { MatrixBoard, MatrixControl, MatrixTime } from '../../src/matrix/board';
import { PROBE_ROUND } from '../../src/matrix/report';
import { StuckHandler } from '../../src/matrix/stuckHandler';

const NS = 1_000n;

describe('StuckHandler', () => {
  it('holds every delivery from the injection until the thread noticed the fault, and follows the first one held', () => {
    const board = new MatrixBoard(2);
    const handler = new StuckHandler(board, 1, true);
    expect(handler.holds(0, 0, 1n * NS)).toBe(false);
    expect(handler.report()).toBeUndefined();
    board.raise(MatrixControl.INJECTED);
    expect([1, 2, 3, 4].map((seq) => handler.holds(0, seq, BigInt(seq) * NS))).toEqual([true, true, true, true]);
    // The harness's probes are never its own messages: acked at once.
    expect(handler.holds(PROBE_ROUND, 0, 5n * NS)).toBe(false);
    // Another thread noticing is not this one noticing.
    board.setTimeOnce(0, MatrixTime.DETECTED, 6n * NS);
    expect(handler.holds(0, 5, 6n * NS)).toBe(true);
    board.setTimeOnce(1, MatrixTime.DETECTED, 7n * NS);
    // Un-stuck: later deliveries are acked at once; the first held message coming back is noted once.
    expect(handler.holds(0, 2, 8n * NS)).toBe(false);
    expect(handler.holds(0, 1, 9n * NS)).toBe(false);
    expect(handler.holds(0, 1, 10n * NS)).toBe(false);
    expect(handler.report()).toEqual({ seq: 1, redeliveredNs: String(9n * NS), count: 5 });
  });

  it('un-sticks at the removal when the thread never noticed, and holds nothing when its fault is not the acknowledgement timeout', () => {
    const board = new MatrixBoard(1);
    const stuck = new StuckHandler(board, 0, true);
    const other = new StuckHandler(board, 0, false);
    board.raise(MatrixControl.INJECTED);
    expect(stuck.holds(0, 7, 1n * NS)).toBe(true);
    expect(other.holds(0, 7, 1n * NS)).toBe(false);
    board.raise(MatrixControl.REMOVED);
    expect(stuck.holds(0, 8, 2n * NS)).toBe(false);
    expect(stuck.report()).toEqual({ seq: 7, redeliveredNs: null, count: 1 });
    expect(other.report()).toBeUndefined();
  });
});
