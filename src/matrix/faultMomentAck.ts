/**
 * The delivery each consumer has inside its handler at the fault's moment. Production handlers
 * take time, so a fault meets a delivery whose handler has not yet acked it, and what a library
 * does with that ack (the channel it came on dead, or gone and replaced) is part of how it
 * survives the fault. Left to chance, whether a delivery is in its handler at the moment depends
 * on the workload's timing (a handler that acks at once is rarely caught), so the finding would
 * come and go between runs. Here it is made every time: once the main thread asks (just before
 * the injection), the consumer keeps the ack of its next own delivery, says so on the board, and
 * acks it only when the fault is in place for it: the thread noticed the fault, or the fault was
 * removed (one nobody noticed). A fault whose consumer holds deliveries itself (the
 * acknowledgement timeout: every one from the injection on, never acked; ./stuckHandler.ts) is
 * not given another.
 */
import { MatrixControl, MatrixTime, type MatrixBoard } from './board';

export class FaultMomentAck {
  private ack: (() => void) | undefined;
  private state: 'waiting' | 'holding' | 'acked' = 'waiting';

  constructor(
    private readonly board: MatrixBoard,
    private readonly me: number,
    /** The fault holds deliveries of its own (the thread then holds none here). */
    private readonly faultHolds: boolean,
  ) {}

  /** Keeps this delivery's ack when the main thread asked for one and none is kept yet; true when kept. */
  keep(ack: () => void): boolean {
    if (this.faultHolds || this.state !== 'waiting' || this.board.flag(MatrixControl.HOLD_ACK) === 0) return false;
    this.state = 'holding';
    this.ack = ack;
    this.board.count(MatrixControl.ACK_HELD);
    return true;
  }

  /** Acks the kept delivery once the fault is in place for this thread (it noticed it, or it was removed). */
  tick(): void {
    if (this.state !== 'holding') return;
    if (this.board.time(this.me, MatrixTime.DETECTED) === 0n && this.board.flag(MatrixControl.REMOVED) === 0) return;
    this.state = 'acked';
    const ack = this.ack!;
    this.ack = undefined;
    try {
      ack();
    } catch {
      // An ack that throws to its caller on a dead channel tells the application, which handles
      // it; what the library leaves unhandled inside itself is caught by the thread's trap.
    }
  }
}
