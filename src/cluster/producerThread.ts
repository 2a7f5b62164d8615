/**
 * The producer of a failover scenario (a worker entry for `startThreadPool`): one connection of
 * the client under test (every node's URL, a node the fault does not hit first), publisher
 * confirms, persistent messages carrying sequence numbers, at a steady pace. An at-least-once
 * producer: a message whose confirm did not come (nacked, or its connection died first) is
 * published again once the client is back, and every copy and confirm is counted in the shared
 * ledger. Its outages are episodes like a consumer's, the first confirm after one ending it.
 *
 * On STOP_PRODUCING it takes no new sequence numbers and settles the rest (republishing what is
 * unconfirmed) within its bound, then raises PRODUCER_SETTLED. The function never throws.
 */
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { ClientConnection, ClientSpec, Publisher } from '../client/api';
import { connectClient } from '../client/registry';
import { describeError } from '../errors';
import { elapsedMs, nowNs } from '../measure/clock';
import { redactText } from '../redact';
import { encodeMessage } from '../suite-kit/message';
import { WakeableWait } from '../suite-kit/wakeableWait';
import { WorkloadBoard, type BoardLayout } from '../suite-kit/workloadBoard';
import { CauseCode, FailoverBoard, FailoverWord } from './failoverBoard';

export interface FailoverProducerTask {
  readonly threadIndex: number;
  readonly threads: number;
  readonly board: SharedArrayBuffer;
  readonly ledger: SharedArrayBuffer;
  readonly ledgerLayout: BoardLayout;
  readonly client: ClientSpec;
  readonly urls: readonly string[];
  readonly queue: string;
  readonly ratePerSecond: number;
  readonly messageBytes: number;
  /** Unconfirmed publishes allowed at once. */
  readonly maxInFlight: number;
  readonly recoveryBoundMs: number;
  /** Bound on settling after STOP_PRODUCING. */
  readonly settleBoundMs: number;
  readonly lifetimeBoundMs: number;
}

export interface FailoverProducerReport {
  readonly threadIndex: number;
  readonly sequences: number;
  readonly publishCopies: number;
  readonly republished: number;
  readonly confirmed: number;
  /** Sequence numbers still unconfirmed when the producer stopped (settling ran out of time). */
  readonly unconfirmedAtEnd: number;
  readonly error?: string;
}

export default async function runFailoverProducer(task: FailoverProducerTask): Promise<FailoverProducerReport> {
  return new FailoverProducer(task).run();
}

/** What the next turn of the pacing loop does. */
type Turn = { readonly kind: 'wait'; readonly ms: number } | { readonly kind: 'send'; readonly resend: boolean };

class FailoverProducer {
  private readonly me: number;
  private readonly board: FailoverBoard;
  private readonly ledger: WorkloadBoard;
  private readonly capacity: number;
  private readonly confirmedSeqs: Uint8Array;
  private readonly retry: number[] = [];
  private readonly startedNs = nowNs();
  private connection: ClientConnection | undefined;
  private publisher: Publisher | undefined;
  private next = 0;
  private inFlight = 0;
  private copies = 0;
  private republished = 0;
  private confirmed = 0;
  private settleStartedNs: bigint | undefined;
  private readonly wait = new WakeableWait();

  constructor(private readonly task: FailoverProducerTask) {
    this.me = task.threadIndex;
    this.board = new FailoverBoard(task.threads, task.board);
    this.ledger = new WorkloadBoard(task.ledgerLayout, task.ledger);
    this.capacity = task.ledgerLayout.sequences;
    this.confirmedSeqs = new Uint8Array(this.capacity);
  }

  async run(): Promise<FailoverProducerReport> {
    const { board, me } = this;
    let error: string | undefined;
    try {
      const connected = await this.connect();
      if (!(await board.waitFor(FailoverWord.GO, 1, this.task.lifetimeBoundMs, FailoverWord.STOP)))
        throw new Error('the scenario never started');
      await this.pace(connected, nowNs());
    } catch (caught) {
      error = redactText(describeError(caught));
      board.count(FailoverWord.FAILED);
    } finally {
      if (board.read(me).readyNs === null) board.markReady(me, nowNs(), undefined);
      board.raise(FailoverWord.PRODUCER_SETTLED);
      await this.publisher?.close().catch(() => undefined);
      await this.connection?.close().catch(() => undefined);
    }
    return {
      threadIndex: me,
      sequences: this.next,
      publishCopies: this.copies,
      republished: this.republished,
      confirmed: this.confirmed,
      unconfirmedAtEnd: this.next - this.confirmed,
      ...(error === undefined ? {} : { error }),
    };
  }

  private async connect(): Promise<ClientConnection> {
    const { task, board, me } = this;
    const connected = await connectClient(task.client, {
      urls: task.urls,
      startBoundMs: task.recoveryBoundMs,
      connectionName: 'amqp-bench-failover-producer',
    });
    this.connection = connected;
    connected.onFault((fault) => {
      board.openEpisode(me, fault.detectedNs, CauseCode[fault.kind]);
      this.wait.wake();
    });
    this.publisher = await connected.publisher({ confirms: true });
    board.markReady(me, nowNs(), connected.localPort);
    return connected;
  }

  /** Publishes at the pace until STOP, or until it has settled (or ran out of its settle bound) after STOP_PRODUCING. */
  private async pace(connected: ClientConnection, paceStartNs: bigint): Promise<void> {
    const { task, board, me } = this;
    for (;;) {
      if (board.flag(FailoverWord.STOP) !== 0) return;
      if (elapsedMs(this.startedNs, nowNs()) > task.lifetimeBoundMs) throw new Error(`no stop signal within ${task.lifetimeBoundMs} ms`);
      if (this.settled()) return;
      if (connected.state === 'down') {
        const ensured = await connected.ensureConnected(task.recoveryBoundMs);
        board.markReconnected(me, ensured.connectedNs, connected.localPort);
        continue;
      }
      if (connected.state === 'closed') throw new Error('connection closed by the client library');
      const turn = this.nextTurn(paceStartNs);
      if (turn.kind === 'wait') await this.wait.pause(turn.ms);
      else await this.send(turn.resend);
    }
  }

  private producing(): boolean {
    return this.board.flag(FailoverWord.STOP_PRODUCING) === 0 && this.next < this.capacity;
  }

  /** No longer producing, and nothing left to settle or no time left to settle it. */
  private settled(): boolean {
    if (this.producing()) return false;
    this.settleStartedNs ??= nowNs();
    if (this.inFlight === 0 && this.retry.length === 0) return true;
    return elapsedMs(this.settleStartedNs, nowNs()) > this.task.settleBoundMs;
  }

  private nextTurn(paceStartNs: bigint): Turn {
    if (this.inFlight >= this.task.maxInFlight) return { kind: 'wait', ms: 50 };
    if (this.retry.length > 0) return { kind: 'send', resend: true };
    if (!this.producing()) return { kind: 'wait', ms: 50 };
    const dueInMs = (Number(paceStartNs - nowNs()) + this.next * (1e9 / this.task.ratePerSecond)) / 1e6;
    return dueInMs >= 1 ? { kind: 'wait', ms: dueInMs } : { kind: 'send', resend: false };
  }

  /** Publishes the next sequence number (or the oldest unconfirmed one again); its confirm or nack is counted when it comes. */
  private async send(resend: boolean): Promise<void> {
    const { task, board, ledger, me, confirmedSeqs } = this;
    const seq = resend ? this.retry.shift()! : this.next++;
    if (!resend) board.raise(FailoverWord.SEQUENCES, this.next);
    const sentNs = nowNs();
    const body = encodeMessage({ round: 0, seq, sentNs, scheduledNs: sentNs, paced: false }, task.messageBytes);
    this.inFlight += 1;
    ledger.markPublished(seq);
    this.copies += 1;
    if (resend) this.republished += 1;
    this.publisher!.publish('', task.queue, body, { persistent: true }).then(
      () => {
        this.inFlight -= 1;
        if (confirmedSeqs[seq] === 0) {
          confirmedSeqs[seq] = 1;
          this.confirmed += 1;
          ledger.markConfirmed(seq);
        }
        // Only a confirm of a message sent after the latest fault came over the new connection.
        board.recordMessage(me, nowNs(), sentNs > board.latestOutageNs(me));
        this.wait.wake();
      },
      () => {
        this.inFlight -= 1;
        // Nacked, or the connection died before the confirm: send it again once back.
        if (confirmedSeqs[seq] === 0) this.retry.push(seq);
        this.wait.wake();
      },
    );
    if (this.copies % 64 === 0) await yieldToEventLoop();
  }
}
