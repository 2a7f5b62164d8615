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
  const me = task.threadIndex;
  const board = new FailoverBoard(task.threads, task.board);
  const ledger = new WorkloadBoard(task.ledgerLayout, task.ledger);
  const capacity = task.ledgerLayout.sequences;
  const intervalNs = 1e9 / task.ratePerSecond;
  const confirmedSeqs = new Uint8Array(capacity);
  const retry: number[] = [];
  let connection: ClientConnection | undefined;
  let publisher: Publisher | undefined;
  let next = 0;
  let inFlight = 0;
  let copies = 0;
  let republished = 0;
  let confirmed = 0;
  let error: string | undefined;
  let wake: (() => void) | undefined;
  const signal = () => {
    const waiting = wake;
    wake = undefined;
    waiting?.();
  };
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        wake = undefined;
        resolve();
      }, ms);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  const startedNs = nowNs();
  try {
    const connected = await connectClient(task.client, {
      urls: task.urls,
      startBoundMs: task.recoveryBoundMs,
      connectionName: 'amqp-bench-failover-producer',
    });
    connection = connected;
    connected.onFault((fault) => {
      board.openEpisode(me, fault.detectedNs, CauseCode[fault.kind]);
      signal();
    });
    publisher = await connected.publisher({ confirms: true });
    board.markReady(me, nowNs(), connected.localPort);
    if (!(await board.waitFor(FailoverWord.GO, 1, task.lifetimeBoundMs, FailoverWord.STOP))) throw new Error('the scenario never started');
    const paceStartNs = nowNs();
    let settleStartedNs: bigint | undefined;

    for (;;) {
      if (board.flag(FailoverWord.STOP) !== 0) break;
      if (elapsedMs(startedNs, nowNs()) > task.lifetimeBoundMs) throw new Error(`no stop signal within ${task.lifetimeBoundMs} ms`);
      const producing = board.flag(FailoverWord.STOP_PRODUCING) === 0 && next < capacity;
      if (!producing) {
        settleStartedNs ??= nowNs();
        if (inFlight === 0 && retry.length === 0) break;
        if (elapsedMs(settleStartedNs, nowNs()) > task.settleBoundMs) break;
      }
      if (connected.state === 'down') {
        const ensured = await connected.ensureConnected(task.recoveryBoundMs);
        board.markReconnected(me, ensured.connectedNs, connected.localPort);
        continue;
      }
      if (connected.state === 'closed') throw new Error('connection closed by the client library');
      if (inFlight >= task.maxInFlight) {
        await pause(50);
        continue;
      }
      const resend = retry.length > 0;
      if (!resend) {
        if (!producing) {
          await pause(50);
          continue;
        }
        const dueInMs = (Number(paceStartNs - nowNs()) + next * intervalNs) / 1e6;
        if (dueInMs >= 1) {
          await pause(dueInMs);
          continue;
        }
      }
      const seq = resend ? retry.shift()! : next++;
      if (!resend) board.raise(FailoverWord.SEQUENCES, next);
      const sentNs = nowNs();
      const body = encodeMessage({ round: 0, seq, sentNs, scheduledNs: sentNs, paced: false }, task.messageBytes);
      inFlight += 1;
      ledger.markPublished(seq);
      copies += 1;
      if (resend) republished += 1;
      publisher.publish('', task.queue, body, { persistent: true }).then(
        () => {
          inFlight -= 1;
          if (confirmedSeqs[seq] === 0) {
            confirmedSeqs[seq] = 1;
            confirmed += 1;
            ledger.markConfirmed(seq);
          }
          // Only a confirm of a message sent after the latest fault came over the new connection.
          board.recordMessage(me, nowNs(), sentNs > board.latestOutageNs(me));
          signal();
        },
        () => {
          inFlight -= 1;
          // Nacked, or the connection died before the confirm: send it again once back.
          if (confirmedSeqs[seq] === 0) retry.push(seq);
          signal();
        },
      );
      if (copies % 64 === 0) await yieldToEventLoop();
    }
  } catch (caught) {
    error = redactText(describeError(caught));
    board.count(FailoverWord.FAILED);
  } finally {
    if (board.read(me).readyNs === null) board.markReady(me, nowNs(), undefined);
    board.raise(FailoverWord.PRODUCER_SETTLED);
    await publisher?.close().catch(() => undefined);
    await connection?.close().catch(() => undefined);
  }
  return {
    threadIndex: me,
    sequences: next,
    publishCopies: copies,
    republished,
    confirmed,
    unconfirmedAtEnd: next - confirmed,
    ...(error === undefined ? {} : { error }),
  };
}
