/**
 * One producer thread's slice of one round (./producerThread.ts): its sequence numbers published
 * to the workload's queue, paced when the round has a rate, else as fast as flow control (and the
 * confirm window) allows. With confirms it is an at-least-once producer: a copy nacked, or whose
 * connection died first, is published again once the client is back, and the slice is done only
 * when every sequence number of it is confirmed. Every publish copy and confirm goes into the
 * shared ledger, which the loss and duplicate accounting reads.
 */
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { ClientConnection, Publisher } from '../client/api';
import { bounded } from '../client/bounded';
import { PublishNackedError } from '../client/types';
import { describeError, TimeoutError } from '../errors';
import { elapsedMs, nowNs } from '../measure/clock';
import { redactText } from '../redact';
import { encodeMessage } from '../suite-kit/message';
import { WakeableWait } from '../suite-kit/wakeableWait';
import { Word, type WorkloadBoard } from '../suite-kit/workloadBoard';
import type { ProducerRoundStats, ProducerSlice, ProducerTask, PublishOutcomes } from './producerThread';

export interface SliceContext {
  readonly task: ProducerTask;
  readonly board: WorkloadBoard;
  readonly connection: ClientConnection;
  readonly publisher: Publisher;
  /** Brings the connection back after a fault; counts it. */
  readonly recover: () => Promise<void>;
  readonly outcomes: PublishOutcomes;
}

/** The harness's stop signal came while the slice was being published: the main thread gave up on the round (and says why). */
export class StoppedDuringRound extends Error {}

/** The state of one slice: what is confirmed, what to send again, the pace, and a wake-up for the waits. */
class SliceRun {
  readonly startNs = nowNs();
  readonly end: number;
  readonly intervalNs: number;
  readonly retry: number[] = [];
  next: number;
  inFlight = 0;
  confirmed = 0;
  sent = 0;
  republished = 0;
  private readonly confirmedInSlice: Uint8Array;
  private readonly wait = new WakeableWait();

  constructor(
    private readonly context: SliceContext,
    readonly slice: ProducerSlice,
  ) {
    this.end = slice.start + slice.count;
    this.next = slice.start;
    this.intervalNs = slice.ratePerSecond ? 1e9 / slice.ratePerSecond : 0;
    this.confirmedInSlice = new Uint8Array(slice.count);
  }

  /** Waits `ms`, or less when a confirm, a rejection or a fault comes first. */
  pause(ms: number): Promise<void> {
    return this.wait.pause(ms);
  }

  onConfirmed(seq: number): void {
    const { outcomes, board } = this.context;
    this.inFlight -= 1;
    outcomes.pending -= 1;
    outcomes.confirmed += 1;
    if (this.confirmedInSlice[seq - this.slice.start] === 0) {
      this.confirmedInSlice[seq - this.slice.start] = 1;
      this.confirmed += 1;
      board.markConfirmed(seq);
    }
    this.wait.wake();
  }

  onUnconfirmed(seq: number, reason: unknown): void {
    const { outcomes } = this.context;
    this.inFlight -= 1;
    outcomes.pending -= 1;
    if (reason instanceof PublishNackedError) outcomes.nacked += 1;
    else {
      outcomes.rejected += 1;
      outcomes.firstRejection ??= redactText(describeError(reason));
    }
    this.retry.push(seq); // nacked, or the connection died first: unconfirmed at the fault
    this.wait.wake();
  }

  finished(): boolean {
    return this.context.task.confirms ? this.confirmed === this.slice.count : this.next === this.end && this.retry.length === 0;
  }

  /** @throws TimeoutError when the round bound passed (the client never settled it: a finding), StoppedDuringRound on the stop signal */
  checkBounds(): void {
    const { task, board } = this.context;
    if (elapsedMs(this.startNs, nowNs()) > task.roundBoundMs) {
      const left = task.confirms
        ? `${this.slice.count - this.confirmed} of ${this.slice.count} still unconfirmed`
        : `${this.end - this.next} of ${this.slice.count} unsent`;
      throw new TimeoutError(`round ${this.slice.round}: ${left} after ${task.roundBoundMs} ms`);
    }
    if (board.flag(Word.STOP) !== 0) throw new StoppedDuringRound(`stopped during round ${this.slice.round}`);
  }

  /** How long until the next publish is due (0: now), or null when there is nothing to send but confirms to wait for. */
  dueInMs(): number | null {
    if (this.context.task.confirms && this.inFlight >= this.context.task.maxInFlight) return 100;
    if (this.retry.length > 0) return 0;
    if (this.next >= this.end) return null;
    return this.intervalNs === 0 ? 0 : (Number(this.startNs - nowNs()) + (this.next - this.slice.start) * this.intervalNs) / 1e6;
  }

  /** Publishes one copy (the oldest to send again, else the next sequence number). */
  async sendOne(): Promise<void> {
    const { task, board, connection, publisher, outcomes } = this.context;
    const resend = this.retry.length > 0;
    const seq = resend ? this.retry.shift()! : this.next;
    const sentNs = nowNs();
    const paced = this.intervalNs > 0;
    const scheduledNs = paced ? this.startNs + BigInt(Math.round((seq - this.slice.start) * this.intervalNs)) : sentNs;
    const body = encodeMessage({ round: this.slice.round, seq, sentNs, scheduledNs, paced }, task.messageBytes);
    const publishing = publisher.publish('', task.queue, body, { persistent: task.persistent });
    if (task.confirms) {
      this.inFlight += 1;
      outcomes.pending += 1;
      publishing.then(
        () => this.onConfirmed(seq),
        (reason: unknown) => this.onUnconfirmed(seq, reason),
      );
    } else {
      try {
        // Bounded: a client that queues publishes while disconnected may hold this one until it is back.
        await bounded(
          publishing,
          Math.max(1, task.roundBoundMs - elapsedMs(this.startNs, nowNs())),
          `publish not handed over within the round bound`,
        );
      } catch (caught) {
        // Not handed over (the connection is gone): try again once it is back, or fail without recovery.
        if (resend) this.retry.unshift(seq);
        if (connection.state === 'up') connection.destroy(`publish failed: ${describeError(caught)}`);
        return;
      }
    }
    board.markPublished(seq);
    this.sent += 1;
    if (resend) this.republished += 1;
    else this.next += 1;
    if (this.sent % 256 === 0) await yieldToEventLoop(); // let confirms and socket events in
  }
}

/** Publishes `slice` until every message of it is confirmed (or sent, without confirms). */
export async function publishSlice(context: SliceContext, slice: ProducerSlice): Promise<ProducerRoundStats> {
  const { task, connection, publisher, recover } = context;
  const run = new SliceRun(context, slice);
  while (!run.finished()) {
    run.checkBounds();
    if (connection.state !== 'up') {
      await recover();
      continue;
    }
    const dueInMs = run.dueInMs();
    // Nothing left to send: waiting for the last confirms (or a fault).
    if (dueInMs === null || dueInMs >= 1) await run.pause(dueInMs ?? 100);
    else await run.sendOne();
  }
  // Without confirms, "published" means the broker has it, not that it sits in a client buffer.
  if (!task.confirms) await publisher.flush(Math.max(1000, task.roundBoundMs - elapsedMs(run.startNs, nowNs())));
  return {
    round: slice.round,
    startNs: run.startNs,
    endNs: nowNs(),
    sent: run.sent,
    republished: run.republished,
    confirmed: run.confirmed,
  };
}
