/**
 * Whose turn it is in a paired run (pure: events in, grants out). Two sides — the baseline build
 * A and the candidate B, each a benchmark run of its own — ask for a turn before every test and
 * every replicate, and a side holds its turn until it asks again: so a side's process does its
 * work only while the other waits, and nothing of one side (set-up, teardown, a test file
 * loading) overlaps the other's measuring.
 *
 * The k-th turns of the two sides form pair k, taken in A B B A order (pair k: A first when k is
 * even, B first when odd), so a side's position within its pairs alternates and an effect of going
 * first or second cancels. Two barriers: no turn is granted before both sides have asked for their
 * first (their start-ups overlap, their measuring never does), and a side that has finished waits
 * at `end` until the other has finished too (its teardown and report never overlap the other's
 * last turns). A side that ended or exited gives up its remaining turns: the other runs on alone.
 */

export type Side = 'A' | 'B';

export const SIDES: readonly Side[] = ['A', 'B'];

export interface TurnGrant {
  /** Position in the run, from 0. */
  readonly sequence: number;
  readonly side: Side;
  /** The side's own turn number, from 0 (its k-th turn is in pair k). */
  readonly turn: number;
  readonly label: string;
  readonly atMs: number;
}

interface Waiting {
  readonly kind: 'turn' | 'end';
  readonly label: string;
  readonly grant: () => void;
}

interface SideState {
  /** Turn requests made (the one waiting included). */
  issued: number;
  waiting: Waiting | null;
  /** Finished measuring (asked for `end`) or exited: its remaining turns are given up. */
  ended: boolean;
}

const other = (side: Side): Side => (side === 'A' ? 'B' : 'A');
/** The side that goes first in pair k. */
export const firstOfPair = (pair: number): Side => (pair % 2 === 0 ? 'A' : 'B');

export class TurnSchedule {
  private readonly state: Record<Side, SideState> = {
    A: { issued: 0, waiting: null, ended: false },
    B: { issued: 0, waiting: null, ended: false },
  };
  private readonly log: TurnGrant[] = [];

  constructor(private readonly clock: () => number = Date.now) {}

  /**
   * `side` asks for its next turn (`turn`) or says it has finished (`end`); `grant` is called when
   * it may go on (at once, or after the other side's turns before it).
   * @throws Error when the side already waits (one process asks one thing at a time), or asks after its end
   */
  request(side: Side, kind: 'turn' | 'end', label: string, grant: () => void): void {
    const own = this.state[side];
    if (own.waiting) throw new Error(`side ${side} asked for a turn while it already waits for one ("${own.waiting.label}")`);
    if (own.ended && kind === 'turn') throw new Error(`side ${side} asked for a turn after it had finished`);
    if (kind === 'turn') own.issued += 1;
    else own.ended = true;
    own.waiting = { kind, label, grant };
    this.pump();
  }

  /** The side's process is gone: it asks for nothing more. */
  exited(side: Side): void {
    const own = this.state[side];
    own.ended = true;
    own.waiting = null;
    this.pump();
  }

  /** The turns granted so far, in order. */
  grants(): readonly TurnGrant[] {
    return this.log;
  }

  /** What each side is doing, for a progress line. */
  waitingLabel(side: Side): string | null {
    return this.state[side].waiting?.label ?? null;
  }

  private completed(side: Side): number {
    const own = this.state[side];
    return own.ended ? own.issued : Math.max(0, own.issued - 1);
  }

  private mayGo(side: Side): boolean {
    const own = this.state[side];
    const theirs = this.state[other(side)];
    // The end barrier: both sides have finished (or gone).
    if (own.waiting!.kind === 'end') return theirs.ended;
    if (theirs.ended) return true;
    // The start barrier: both sides have come up.
    if (theirs.issued === 0) return false;
    const pair = own.issued - 1;
    const theirsBefore = firstOfPair(pair) === side ? pair : pair + 1;
    return this.completed(other(side)) >= theirsBefore;
  }

  private pump(): void {
    for (let progressed = true; progressed;) {
      progressed = false;
      for (const side of SIDES) {
        const waiting = this.state[side].waiting;
        if (!waiting || !this.mayGo(side)) continue;
        this.state[side].waiting = null;
        if (waiting.kind === 'turn') {
          const turn = this.state[side].issued - 1;
          this.log.push({ sequence: this.log.length, side, turn, label: waiting.label, atMs: this.clock() });
        }
        waiting.grant();
        progressed = true;
      }
    }
  }
}
