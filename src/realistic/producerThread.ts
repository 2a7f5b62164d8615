/**
 * One producer worker thread of a realistic workload (a worker entry: `startThreadPool` loads
 * this module), publishing through the client under test. Per round, the thread publishes its slice of sequence numbers to the workload's
 * queue, each message stamped with its publish time; paced when the round has a rate, else as
 * fast as flow control (and the confirm window) allows.
 *
 * With publisher confirms the thread is an at-least-once producer: a message whose confirm did
 * not come (nacked, or its channel died first) is published again after the connection is back,
 * and the round is done only when every sequence number of the slice is confirmed. Every publish
 * copy and every confirm is counted in the shared ledger, which is what the loss and duplicate
 * accounting reads. The function never throws; a failure is in the report's `error`.
 */
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { ClientConnection, ClientFault, ClientSpec, Publisher } from '../client/api';
import { lostConnection } from './consumerThread';
import { bounded } from '../client/bounded';
import { connectClient } from '../client/registry';
import { TimeoutError, describeError } from '../errors';
import { PublishNackedError } from '../client/types';
import { elapsedMs, nowNs } from '../measure/clock';
import { redactText } from '../redact';
import { trapUnhandled } from '../client/unhandledTrap';
import { encodeMessage } from '../suite-kit/message';
import { Word, WorkloadBoard, type BoardLayout } from '../suite-kit/workloadBoard';

export interface ProducerSlice {
  readonly round: number;
  /** First sequence number of this thread's share of the round. */
  readonly start: number;
  readonly count: number;
  /** This thread's pace in messages per second; null: as fast as flow control allows. */
  readonly ratePerSecond: number | null;
}

export interface ProducerTask {
  readonly threadIndex: number;
  readonly buffer: SharedArrayBuffer;
  readonly layout: BoardLayout;
  readonly url: string;
  readonly queue: string;
  readonly client: ClientSpec;
  /** One slice per round, in round order. */
  readonly slices: readonly ProducerSlice[];
  readonly messageBytes: number;
  readonly confirms: boolean;
  readonly persistent: boolean;
  /** Unconfirmed publishes allowed at once (confirm mode). */
  readonly maxInFlight: number;
  /** Reconnect and republish after a fault (needs confirms to know what to republish). */
  readonly recover: boolean;
  readonly connectBoundMs: number;
  /** Bound on waiting for a round to start, and on publishing (and confirming) it. */
  readonly roundBoundMs: number;
}

export interface ProducerRoundStats {
  readonly round: number;
  readonly startNs: bigint;
  readonly endNs: bigint;
  /** Publish copies sent (fresh + republished). */
  readonly sent: number;
  readonly republished: number;
  readonly confirmed: number;
}

/**
 * Every publish copy of a confirm-mode thread ends in exactly one class: confirmed, nacked by the
 * broker, rejected by the client (its error: the connection died before the confirm), or still
 * pending when the thread ended (hung: not settled within the round bound, or cut short by a
 * failure). The thread republishes nacked and rejected copies, so these count copies, not messages.
 */
export interface PublishOutcomes {
  confirmed: number;
  nacked: number;
  rejected: number;
  /** Not settled yet (while running). */
  pending: number;
  /** Still pending when the thread ended, before it closed its connection (whatever the close then did to them). */
  hung: number;
  /** The first error a rejected copy carried, as the library said it. */
  firstRejection?: string;
}

export interface ProducerThreadReport {
  readonly threadIndex: number;
  readonly rounds: readonly ProducerRoundStats[];
  /** Confirm mode only: the class of every publish copy. */
  readonly outcomes?: PublishOutcomes;
  readonly faults: number;
  readonly reconnects: number;
  /** Errors nobody handled inside the client (unhandled rejections, uncaught exceptions): findings. */
  readonly unhandled: readonly string[];
  readonly error?: string;
}

interface ProducerContext {
  readonly task: ProducerTask;
  readonly board: WorkloadBoard;
  readonly connection: ClientConnection;
  readonly publisher: Publisher;
  /** Brings the connection back after a fault; counts it. */
  readonly recover: () => Promise<void>;
  readonly outcomes: PublishOutcomes;
}

export default async function runProducerThread(task: ProducerTask): Promise<ProducerThreadReport> {
  const board = new WorkloadBoard(task.layout, task.buffer);
  const rounds: ProducerRoundStats[] = [];
  let connection: ClientConnection | undefined;
  let faults = 0;
  let reconnects = 0;
  let error: string | undefined;
  const outcomes: PublishOutcomes = { confirmed: 0, nacked: 0, rejected: 0, pending: 0, hung: 0 };
  const trap = trapUnhandled();
  try {
    const connected = await connectClient(task.client, { urls: [task.url], startBoundMs: task.connectBoundMs });
    connection = connected;
    let lastFault: ClientFault | undefined;
    connection.onFault((fault) => {
      faults += 1;
      lastFault = fault;
    });
    const recover = async (): Promise<void> => {
      if (!task.recover) throw lostConnection(lastFault);
      board.count(Word.CONNECTIONS_DOWN, 1);
      await connected.ensureConnected(task.connectBoundMs);
      board.count(Word.CONNECTIONS_DOWN, -1);
      board.count(Word.PRODUCER_RECONNECTS);
      reconnects += 1;
    };
    const publisher = await connection.publisher({ confirms: task.confirms });
    board.count(Word.PRODUCERS_READY);
    for (const slice of task.slices) {
      if (!(await waitForRound(board, slice.round, task.roundBoundMs))) break;
      rounds.push(await publishSlice({ task, board, connection, publisher, recover, outcomes }, slice));
      board.count(Word.PRODUCER_ROUNDS_DONE);
    }
  } catch (caught) {
    error = redactText(describeError(caught));
    board.count(Word.THREADS_FAILED);
  } finally {
    outcomes.hung = outcomes.pending;
    await connection?.close();
    await trap.release(50); // late socket events of the close surface first
  }
  return {
    threadIndex: task.threadIndex,
    rounds,
    ...(task.confirms ? { outcomes: { ...outcomes } } : {}),
    faults,
    reconnects,
    unhandled: trap.trapped,
    ...(error === undefined ? {} : { error }),
  };
}

/** True once round `round` started; false on the stop signal. @throws TimeoutError after `boundMs`. */
async function waitForRound(board: WorkloadBoard, round: number, boundMs: number): Promise<boolean> {
  const deadline = Date.now() + boundMs;
  while (Date.now() < deadline) {
    if (board.flag(Word.STOP) !== 0) return false;
    if (await board.waitFor(Word.ROUND, round + 1, Math.min(100, Math.max(1, deadline - Date.now())))) return board.flag(Word.STOP) === 0;
  }
  throw new TimeoutError(`round ${round} did not start within ${boundMs} ms`);
}

async function publishSlice(
  { task, board, connection, publisher, recover, outcomes }: ProducerContext,
  slice: ProducerSlice,
): Promise<ProducerRoundStats> {
  const startNs = nowNs();
  const end = slice.start + slice.count;
  const confirmedInSlice = new Uint8Array(slice.count);
  const retry: number[] = [];
  const intervalNs = slice.ratePerSecond ? 1e9 / slice.ratePerSecond : 0;
  let next = slice.start;
  let inFlight = 0;
  let confirmed = 0;
  let sent = 0;
  let republished = 0;

  let wake: (() => void) | undefined;
  const signal = (): void => {
    const waiting = wake;
    wake = undefined;
    waiting?.();
  };
  const pause = (ms: number): Promise<void> =>
    new Promise((resolve) => {
      const timer = setTimeout(() => {
        wake = undefined;
        resolve();
      }, ms);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  const onConfirmed = (seq: number): void => {
    inFlight -= 1;
    outcomes.pending -= 1;
    outcomes.confirmed += 1;
    if (confirmedInSlice[seq - slice.start] === 0) {
      confirmedInSlice[seq - slice.start] = 1;
      confirmed += 1;
      board.markConfirmed(seq);
    }
    signal();
  };
  const onUnconfirmed = (seq: number, reason: unknown): void => {
    inFlight -= 1;
    outcomes.pending -= 1;
    if (reason instanceof PublishNackedError) outcomes.nacked += 1;
    else {
      outcomes.rejected += 1;
      outcomes.firstRejection ??= redactText(describeError(reason));
    }
    retry.push(seq); // nacked, or the connection died first: unconfirmed at the fault
    signal();
  };
  const finished = (): boolean => (task.confirms ? confirmed === slice.count : next === end && retry.length === 0);

  while (!finished()) {
    if (elapsedMs(startNs, nowNs()) > task.roundBoundMs) {
      throw new TimeoutError(
        `round ${slice.round}: ${task.confirms ? `${slice.count - confirmed} of ${slice.count} still unconfirmed` : `${end - next} of ${slice.count} unsent`} after ${task.roundBoundMs} ms`,
      );
    }
    if (board.flag(Word.STOP) !== 0) throw new Error(`stopped during round ${slice.round}`);
    if (connection.state !== 'up') {
      await recover();
      continue;
    }
    if (task.confirms && inFlight >= task.maxInFlight) {
      await pause(100);
      continue;
    }
    const resend = retry.length > 0;
    if (!resend) {
      if (next >= end) {
        await pause(100); // everything sent: waiting for the last confirms (or a fault)
        continue;
      }
      const dueInMs = intervalNs === 0 ? 0 : (Number(startNs - nowNs()) + (next - slice.start) * intervalNs) / 1e6;
      if (dueInMs >= 1) {
        await pause(dueInMs);
        continue;
      }
    }
    const seq = resend ? retry.shift()! : next;
    const sentNs = nowNs();
    const paced = intervalNs > 0;
    const scheduledNs = paced ? startNs + BigInt(Math.round((seq - slice.start) * intervalNs)) : sentNs;
    const body = encodeMessage({ round: slice.round, seq, sentNs, scheduledNs, paced }, task.messageBytes);
    const publishing = publisher.publish('', task.queue, body, { persistent: task.persistent });
    if (task.confirms) {
      inFlight += 1;
      outcomes.pending += 1;
      publishing.then(
        () => onConfirmed(seq),
        (reason: unknown) => onUnconfirmed(seq, reason),
      );
    } else {
      try {
        // Bounded: a client that queues publishes while disconnected may hold this one until it is back.
        await bounded(
          publishing,
          Math.max(1, task.roundBoundMs - elapsedMs(startNs, nowNs())),
          `publish not handed over within the round bound`,
        );
      } catch (caught) {
        // Not handed over (the connection is gone): try again once it is back, or fail without recovery.
        if (resend) retry.unshift(seq);
        if (connection.state === 'up') connection.destroy(`publish failed: ${describeError(caught)}`);
        continue;
      }
    }
    board.markPublished(seq);
    sent += 1;
    if (resend) republished += 1;
    else next += 1;
    if (sent % 256 === 0) await yieldToEventLoop(); // let confirms and socket events in
  }
  // Without confirms, "published" means the broker has it, not that it sits in a client buffer.
  if (!task.confirms) await publisher.flush(Math.max(1000, task.roundBoundMs - elapsedMs(startNs, nowNs())));
  return { round: slice.round, startNs, endNs: nowNs(), sent, republished, confirmed };
}
