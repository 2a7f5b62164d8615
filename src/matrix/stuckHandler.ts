/**
 * The acknowledgement timeout's consumer: a handler that gets stuck at the injection, the way a
 * production handler hangs (on a lock, a call that never returns), so every delivery it receives
 * from then on stays unacked in it and its prefetch window fills. It un-sticks once the thread has
 * noticed the fault (the library said its channel is gone) or the fault was removed (one nobody
 * noticed); from then on each delivery is acked at once again.
 *
 * Holding every delivery, not only the first, is what makes the cell the same every run. With one
 * held and the rest acked at once, the queue keeps delivering into the window up to the broker's
 * close, and whether a basic.deliver is still on its way to the channel when the broker closes it
 * is chance: RabbitMQ sends what its channel process already had after the channel.close, and
 * amqplib, which frees the channel's number as soon as the close arrives, then meets a frame on
 * a channel it does not know and closes the whole connection (504 "Frame on unknown channel"); a
 * library that opened a new channel on that number meanwhile gets it there. With the window full
 * and nothing acked, nothing more is delivered on that channel after the first few milliseconds
 * of the hold, so at the close seconds later nothing is in flight on it, every run.
 *
 * The held deliveries are never acked, not even when the handler un-sticks: the broker requeued
 * them when it closed their channel and their delivery tags died with it, so there is nothing
 * left to ack (an ack of such a tag on whatever channel the library has now is the application's
 * error, and when it is sent would depend on how fast the library replaced the channel). The
 * first held delivery is the one followed: whether it came back to the consumer or was left in
 * its queue (./threadDetail.ts, ./findings.ts).
 */
import { MatrixControl, MatrixTime, type MatrixBoard } from './board';
import { PROBE_ROUND } from './report';

export class StuckHandler {
  private state: 'working' | 'stuck' | 'unstuck' = 'working';
  private heldCount = 0;
  /** The first delivery it held, and when that message was delivered to it again. */
  private first: { seq: number; redeliveredNs: bigint | null } | undefined;

  constructor(
    private readonly board: MatrixBoard,
    private readonly me: number,
    /** The cell's fault is the acknowledgement timeout (otherwise it never holds anything). */
    private readonly enabled: boolean,
  ) {}

  /** Whether this delivery stays in the stuck handler, unacked; notes when the first held message comes back. */
  holds(round: number, seq: number, receivedNs: bigint): boolean {
    if (!this.enabled || round === PROBE_ROUND) return false;
    if (this.first?.seq === seq && this.first.redeliveredNs === null) this.first.redeliveredNs = receivedNs;
    if (this.state === 'working' && this.board.flag(MatrixControl.INJECTED) !== 0) this.state = 'stuck';
    if (this.state === 'stuck' && (this.board.time(this.me, MatrixTime.DETECTED) !== 0n || this.board.flag(MatrixControl.REMOVED) !== 0))
      this.state = 'unstuck';
    if (this.state !== 'stuck') return false;
    this.first ??= { seq, redeliveredNs: null };
    this.heldCount += 1;
    return true;
  }

  /** The thread's record of the first held delivery (absent when it held none). */
  report(): { seq: number; redeliveredNs: string | null; count: number } | undefined {
    if (!this.first) return undefined;
    return { seq: this.first.seq, redeliveredNs: this.first.redeliveredNs?.toString() ?? null, count: this.heldCount };
  }
}
