/**
 * The wait for a cell's threads to be back after the removal (real timers, small bounds): a
 * consumer still being delivered its own messages at the bound is waited for, one that got nothing
 * is not.
 */
import { MatrixBoard, MatrixControl, MatrixInt, MatrixTime } from '../../src/matrix/board';
import { recoveredWhileDelivering } from '../../src/matrix/recoveryWait';

const BOUND_MS = 400;
const STEP_MS = 100;

/** One thread of the board (thread 0 unless told): one delivery every `everyMs` (or none), back at `backAtMs` (or never). */
function delivering(board: MatrixBoard, everyMs: number | null, backAtMs: number | null, thread = 0): () => void {
  const timers: NodeJS.Timeout[] = [];
  if (everyMs !== null) timers.push(setInterval(() => board.addInt(thread, MatrixInt.DELIVERED, 1), everyMs));
  if (backAtMs !== null)
    timers.push(
      setTimeout(() => {
        board.setTimeOnce(thread, MatrixTime.RECOVERED, process.hrtime.bigint());
        board.setTimeOnce(thread, MatrixTime.PUBLISHER_BACK, process.hrtime.bigint());
        board.count(MatrixControl.RECOVERED);
      }, backAtMs),
    );
  return () => timers.forEach((timer) => clearTimeout(timer));
}

describe('recoveredWhileDelivering', () => {
  it('waits past the bound for a consumer still being delivered its own messages', async () => {
    const board = new MatrixBoard(1);
    const stop = delivering(board, 20, BOUND_MS * 1.5);
    try {
      await expect(recoveredWhileDelivering(board, 1, BOUND_MS, STEP_MS)).resolves.toBe(true);
    } finally {
      stop();
    }
  }, 10_000);

  it('ends at the bound for a consumer that got nothing in the last step', async () => {
    const board = new MatrixBoard(1);
    const stop = delivering(board, null, BOUND_MS * 1.5);
    const startedMs = Date.now();
    try {
      await expect(recoveredWhileDelivering(board, 1, BOUND_MS, STEP_MS)).resolves.toBe(false);
      expect(Date.now() - startedMs).toBeLessThan(BOUND_MS * 1.5);
    } finally {
      stop();
    }
  }, 10_000);

  it('waits on for a thread still being delivered to when another got nothing: one stalled thread does not make the others read not back', async () => {
    const board = new MatrixBoard(2);
    const stopStalled = delivering(board, null, null, 0);
    const stopDraining = delivering(board, 20, BOUND_MS * 1.5, 1);
    try {
      await expect(recoveredWhileDelivering(board, 2, BOUND_MS, STEP_MS)).resolves.toBe(false);
      expect(board.time(1, MatrixTime.RECOVERED)).not.toBe(0n);
      expect(board.time(0, MatrixTime.RECOVERED)).toBe(0n);
    } finally {
      stopStalled();
      stopDraining();
    }
  }, 10_000);

  it('ends at twice the bound for a consumer delivered to all along that is never back', async () => {
    const board = new MatrixBoard(1);
    const stop = delivering(board, 20, null);
    const startedMs = Date.now();
    try {
      await expect(recoveredWhileDelivering(board, 1, BOUND_MS, STEP_MS)).resolves.toBe(false);
      expect(Date.now() - startedMs).toBeGreaterThanOrEqual(BOUND_MS * 2 - 20);
      expect(Date.now() - startedMs).toBeLessThan(BOUND_MS * 2 + STEP_MS * 3);
    } finally {
      stop();
    }
  }, 10_000);

  it('ends at the bound for a thread whose own message came but none of whose publishes was confirmed', async () => {
    // py-amqp's channel opened again after a 404: the publish is routed, never confirmed, and the thread publishes nothing more.
    const board = new MatrixBoard(1);
    board.setTimeOnce(0, MatrixTime.RECOVERED, process.hrtime.bigint());
    const startedMs = Date.now();
    await expect(recoveredWhileDelivering(board, 1, BOUND_MS, STEP_MS)).resolves.toBe(false);
    expect(Date.now() - startedMs).toBeGreaterThanOrEqual(BOUND_MS - 20);
    expect(Date.now() - startedMs).toBeLessThan(BOUND_MS * 1.5);
  }, 10_000);

  it('returns at once when every thread is back within the bound', async () => {
    const board = new MatrixBoard(1);
    const stop = delivering(board, null, 50);
    try {
      await expect(recoveredWhileDelivering(board, 1, BOUND_MS, STEP_MS)).resolves.toBe(true);
    } finally {
      stop();
    }
  }, 10_000);
});
