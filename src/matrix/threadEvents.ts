/**
 * What a fault-matrix thread keeps as evidence (inside the worker): the library's faults and
 * typed signals and the harness loop's steps, in order (the first ones, then the last one), the
 * first of them after the injection taken as the thread noticing the fault (an unblock is not),
 * and every local port its connection had, so its connections can be found on the proxy's timeline.
 */
import { RECEIVED_KIND_CODES } from '../client/faults';
import { MatrixControl, MatrixInt, MatrixTime, type MatrixBoard } from './board';
import type { MatrixEvent } from './report';

/** At most this many events are kept as evidence (the first ones, then the last one). */
const MAX_EVENTS = 40;
/** At most this many distinct ports are kept (a library that reconnects in a loop). */
const MAX_PORTS = 200;

export class ThreadEvents {
  readonly events: MatrixEvent[] = [];
  private readonly ports = new Set<number>();

  constructor(
    private readonly board: MatrixBoard,
    private readonly thread: number,
  ) {}

  note(event: MatrixEvent): void {
    if (this.events.length < MAX_EVENTS) this.events.push(event);
    else this.events[MAX_EVENTS - 1] = event;
    if (this.board.flag(MatrixControl.INJECTED) === 0 || event.kind === 'unblocked') return;
    if (!this.board.setTimeOnce(this.thread, MatrixTime.DETECTED, BigInt(event.atNs))) return;
    const code = RECEIVED_KIND_CODES[event.kind as keyof typeof RECEIVED_KIND_CODES] ?? RECEIVED_KIND_CODES.error;
    this.board.setInt(this.thread, MatrixInt.DETECTED_KIND, code);
    this.board.count(MatrixControl.DETECTED);
  }

  /** The connection's local port now (undefined while it has none). */
  samplePort(port: number | undefined): void {
    if (port !== undefined && port > 0 && this.ports.size < MAX_PORTS) this.ports.add(port);
  }

  portsSeen(): number[] {
    return [...this.ports];
  }
}
