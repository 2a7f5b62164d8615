/**
 * How long the main thread waits for a cell's threads to be back after the fault's removal (each
 * thread's own message published after it, delivered to its own consumer, and a publish after it
 * confirmed: `isBack`). A consumer slower than
 * its thread publishes (a library that acks in batches on a timer takes one prefetch per tick) has
 * a queue to get through before that message: what was published before the removal and not yet
 * delivered, which grows with how long the cell ran before the fault. At a fixed bound the same
 * client, delivering all along, would read back in one run and not back in the next. So the wait
 * goes on past the bound while a thread not yet back is still being delivered its own messages,
 * step by step, up to one more bound. A consumer that got nothing in a step past the bound is not
 * waited for any longer (as for a client that never came back), but it does not end the wait of
 * the others: one thread whose channel the broker closed must not make a thread still draining its
 * queue read "not back" (seen with foo-foo-mq: a stale ack closed one connection's channel while
 * the other four were still being delivered to, and all five read "not back").
 */
import { MatrixControl, MatrixInt, MatrixTime, type MatrixBoard } from './board';

/** True when every thread was back: within `boundMs`, or later while it was still being delivered to (at most twice `boundMs`). */
export async function recoveredWhileDelivering(board: MatrixBoard, threads: number, boundMs: number, stepMs: number): Promise<boolean> {
  const startedMs = Date.now();
  if (await board.waitFor(MatrixControl.RECOVERED, threads, Math.max(0, boundMs - stepMs))) return true;
  let before = deliveredSoFar(
    board,
    Array.from({ length: threads }, (_, thread) => thread),
  );
  for (;;) {
    if (await board.waitFor(MatrixControl.RECOVERED, threads, stepMs)) return true;
    const waitedMs = Date.now() - startedMs;
    // Past the bound, a thread not back that got nothing in the last step is given up on; the others are still waited for.
    const waitedFor = [...before]
      .filter(([thread, delivered]) => !isBack(board, thread) && (waitedMs < boundMs || board.int(thread, MatrixInt.DELIVERED) > delivered))
      .map(([thread]) => thread);
    if (waitedMs >= 2 * boundMs || waitedFor.length === 0) return false;
    before = deliveredSoFar(board, waitedFor);
  }
}

/** Each of `threads`: how many of its own messages its consumer got so far. */
function deliveredSoFar(board: MatrixBoard, threads: readonly number[]): Map<number, number> {
  return new Map(threads.map((thread) => [thread, board.int(thread, MatrixInt.DELIVERED)]));
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
