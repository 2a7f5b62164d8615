/**
 * How long the main thread waits for a cell's threads to be back after the fault's removal (each
 * thread's own message published after it, delivered to its own consumer, and a publish after it
 * confirmed: `isBack`). A consumer slower than
 * its thread publishes (a library that acks in batches on a timer takes one prefetch per tick) has
 * a queue to get through before that message: what was published before the removal and not yet
 * delivered, which grows with how long the cell ran before the fault. At a fixed bound the same
 * client, delivering all along, would read back in one run and not back in the next. So the wait
 * goes on past the bound while every thread not yet back is still being delivered its own
 * messages, step by step, up to one more bound; a consumer that got nothing in a step is not
 * waited for (the wait ends at the bound, as for a client that never came back).
 */
import { MatrixControl, MatrixInt, MatrixTime, type MatrixBoard } from './board';

/** True when every thread was back: within `boundMs`, or later while the ones not back were still being delivered to (at most twice `boundMs`). */
export async function recoveredWhileDelivering(board: MatrixBoard, threads: number, boundMs: number, stepMs: number): Promise<boolean> {
  const startedMs = Date.now();
  if (await board.waitFor(MatrixControl.RECOVERED, threads, Math.max(0, boundMs - stepMs))) return true;
  let before = deliveredToThoseNotBack(board, threads);
  for (;;) {
    if (await board.waitFor(MatrixControl.RECOVERED, threads, stepMs)) return true;
    const waitedMs = Date.now() - startedMs;
    const stillDelivered = [...before].every(
      ([thread, delivered]) => isBack(board, thread) || board.int(thread, MatrixInt.DELIVERED) > delivered,
    );
    if (waitedMs >= 2 * boundMs || (waitedMs >= boundMs && !stillDelivered)) return false;
    before = deliveredToThoseNotBack(board, threads);
  }
}

/** Each thread not back yet: how many of its own messages its consumer got so far. */
function deliveredToThoseNotBack(board: MatrixBoard, threads: number): Map<number, number> {
  const delivered = new Map<number, number>();
  for (let thread = 0; thread < threads; thread += 1)
    if (!isBack(board, thread)) delivered.set(thread, board.int(thread, MatrixInt.DELIVERED));
  return delivered;
}

/**
 * A thread is back once its own message published after the removal was delivered and one of its
 * publishes after the removal was confirmed: a delivery alone is not its publisher back (py-amqp's
 * channel opened again after a 404 routes a publish and never confirms it), and ending the wait on
 * it made the cell's timeline, so its verdict, depend on whether that publish met the exchange's
 * binding declared again.
 */
export function isBack(board: MatrixBoard, thread: number): boolean {
  return board.time(thread, MatrixTime.RECOVERED) !== 0n && board.time(thread, MatrixTime.PUBLISHER_BACK) !== 0n;
}
