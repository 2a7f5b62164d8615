/**
 * One consumer thread of a failover scenario (a worker entry for `startThreadPool`): one
 * connection of the client under test, given every node's URL with its home node first, one
 * consumer (manual ack, prefetch) on the scenario's queue. Every delivery goes into the shared
 * ledger (sequence numbers, for loss and duplicate accounting) and the thread's own slots.
 *
 * On a fault the client tells of, the thread opens an episode (the detection time is the
 * library's event), waits for the client to be back (`ensureConnected`: the library's recovery
 * or the harness's loop, moving to the next URL), and the first delivery after that ends the
 * episode: the failover. With a silence deadline (a partition: no socket event comes), a thread
 * that receives nothing for that long after the injection gives up on its connection itself.
 * The function never throws: a failure is in the report.
 */
import type { ClientConnection, ClientSpec, Delivery } from '../client/api';
import { connectClient } from '../client/registry';
import { describeError } from '../errors';
import { elapsedMs, nowNs } from '../measure/clock';
import { redactText } from '../redact';
import { decodeHeader } from '../suite-kit/message';
import { WorkloadBoard, type BoardLayout } from '../suite-kit/workloadBoard';
import { CauseCode, FailoverBoard, FailoverWord } from './failoverBoard';

export interface FailoverConsumerTask {
  readonly threadIndex: number;
  readonly threads: number;
  readonly board: SharedArrayBuffer;
  readonly ledger: SharedArrayBuffer;
  readonly ledgerLayout: BoardLayout;
  readonly client: ClientSpec;
  /** Every node through its fault-proxy entry, this thread's home node first. */
  readonly urls: readonly string[];
  readonly queue: string;
  readonly prefetch: number;
  /** Give up on a connection silent for this long after the injection (a partition); null: wait for the client. */
  readonly silenceDeadlineMs: number | null;
  /** Bound on connecting, and on each recovery. */
  readonly recoveryBoundMs: number;
  /** Bound on the whole task. */
  readonly lifetimeBoundMs: number;
}

export interface FailoverThreadReport {
  readonly threadIndex: number;
  /** Silence deadlines that passed on a connection that was fine (a slow machine, not the fault). */
  readonly falseAlarms: number;
  readonly foreign: number;
  readonly error?: string;
}

const TICK_MS = 25;

export default async function runFailoverConsumer(task: FailoverConsumerTask): Promise<FailoverThreadReport> {
  const me = task.threadIndex;
  const board = new FailoverBoard(task.threads, task.board);
  const ledger = new WorkloadBoard(task.ledgerLayout, task.ledger);
  let connection: ClientConnection | undefined;
  let foreign = 0;
  let falseAlarms = 0;
  let error: string | undefined;
  const startedNs = nowNs();
  const onDelivery = (delivery: Delivery): void => {
    const receivedNs = nowNs();
    const header = decodeHeader(delivery.body);
    if (header) ledger.recordDelivery(header.seq, 0, delivery.redelivered);
    else foreign += 1;
    // While the client is not back, a delivery may still be the old connection's: it does not end the outage.
    board.recordMessage(me, receivedNs, connection?.state === 'up');
    // Acked after counting: a delivery whose ack dies with its connection comes again, flagged redelivered.
    delivery.ack();
  };
  try {
    const connected = await connectClient(task.client, {
      urls: task.urls,
      startBoundMs: task.recoveryBoundMs,
      connectionName: `amqp-bench-failover-consumer-${me}`,
    });
    connection = connected;
    connected.onFault((fault) => board.openEpisode(me, fault.detectedNs, CauseCode[fault.kind]));
    await connected.consume(task.queue, { ack: 'manual', prefetch: task.prefetch }, onDelivery);
    board.markReady(me, nowNs(), connected.localPort);

    // Silence is counted from the last delivery, reconnection or false alarm, whichever is latest.
    let quietSinceNs = nowNs();
    while (board.flag(FailoverWord.STOP) === 0) {
      if (elapsedMs(startedNs, nowNs()) > task.lifetimeBoundMs) throw new Error(`no stop signal within ${task.lifetimeBoundMs} ms`);
      if (connected.state === 'down') {
        const ensured = await connected.ensureConnected(task.recoveryBoundMs);
        board.markReconnected(me, ensured.connectedNs, connected.localPort);
        quietSinceNs = nowNs();
        continue;
      }
      if (connected.state === 'closed') throw new Error('connection closed by the client library');
      const lastMessageNs = board.lastMessageNs(me);
      if (lastMessageNs > quietSinceNs) quietSinceNs = lastMessageNs;
      if (
        task.silenceDeadlineMs !== null &&
        board.flag(FailoverWord.GO) !== 0 &&
        elapsedMs(quietSinceNs, nowNs()) > task.silenceDeadlineMs
      ) {
        const decidedNs = nowNs();
        quietSinceNs = decidedNs;
        if (board.flag(FailoverWord.INJECTED) === 0) {
          falseAlarms += 1;
        } else {
          const episodesBefore = board.episodes(me);
          connected.destroy(`no delivery for ${task.silenceDeadlineMs} ms`);
          // A client that does not report its own destroy as a fault: the decision is the detection.
          if (board.episodes(me) === episodesBefore) board.openEpisode(me, decidedNs, CauseCode.deadline);
          continue;
        }
      }
      await board.waitFor(FailoverWord.STOP, 1, TICK_MS);
    }
  } catch (caught) {
    error = redactText(describeError(caught));
    board.count(FailoverWord.FAILED);
  } finally {
    if (board.read(me).readyNs === null) board.markReady(me, nowNs(), undefined); // never leave the main thread waiting
    await connection?.close().catch(() => undefined);
  }
  return { threadIndex: me, falseAlarms, foreign, ...(error === undefined ? {} : { error }) };
}
