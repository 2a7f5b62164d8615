/**
 * What one producer worker thread does (the worker entry src/workers/producerWorker.ts is this
 * function). Per round, the thread publishes its slice of sequence numbers to the workload's
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
import type { BackoffOptions } from '../client/types';
import { TimeoutError, describeError } from '../errors';
import { elapsedMs, nowNs } from '../measure/clock';
import { redactText } from '../redact';
import { encodeMessage } from './message';
import { ProducerConnection } from './producerConnection';
import { Word, WorkloadBoard, type BoardLayout } from './workloadBoard';

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
  /** One slice per round, in round order. */
  readonly slices: readonly ProducerSlice[];
  readonly messageBytes: number;
  readonly confirms: boolean;
  readonly persistent: boolean;
  /** Unconfirmed publishes allowed at once (confirm mode). */
  readonly maxInFlight: number;
  readonly connectTimeoutMs: number;
  readonly backoff: BackoffOptions;
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

export interface ProducerThreadReport {
  readonly threadIndex: number;
  readonly rounds: readonly ProducerRoundStats[];
  readonly faults: number;
  readonly reconnects: number;
  readonly error?: string;
}

interface ProducerContext {
  readonly task: ProducerTask;
  readonly board: WorkloadBoard;
  readonly connection: ProducerConnection;
  /** Brings the connection back after a fault; counts it. */
  readonly recover: () => Promise<void>;
}

export async function runProducerThread(task: ProducerTask): Promise<ProducerThreadReport> {
  const board = new WorkloadBoard(task.layout, task.buffer);
  const connection = new ProducerConnection({
    url: task.url,
    connectTimeoutMs: task.connectTimeoutMs,
    backoff: task.backoff,
    confirms: task.confirms,
  });
  const rounds: ProducerRoundStats[] = [];
  let reconnects = 0;
  let error: string | undefined;
  const recover = async (): Promise<void> => {
    if (!task.recover) throw new Error(`connection lost: ${connection.lastFault ?? 'unknown'}`);
    board.count(Word.CONNECTIONS_DOWN, 1);
    await connection.ensureConnection(task.connectBoundMs);
    board.count(Word.CONNECTIONS_DOWN, -1);
    board.count(Word.PRODUCER_RECONNECTS);
    reconnects += 1;
  };
  try {
    await connection.ensureConnection(task.connectBoundMs);
    board.count(Word.PRODUCERS_READY);
    for (const slice of task.slices) {
      if (!(await waitForRound(board, slice.round, task.roundBoundMs))) break;
      rounds.push(await publishSlice({ task, board, connection, recover }, slice));
      board.count(Word.PRODUCER_ROUNDS_DONE);
    }
  } catch (caught) {
    error = redactText(describeError(caught));
    board.count(Word.THREADS_FAILED);
  } finally {
    await connection.close();
  }
  return { threadIndex: task.threadIndex, rounds, faults: connection.faults, reconnects, ...(error === undefined ? {} : { error }) };
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

async function publishSlice({ task, board, connection, recover }: ProducerContext, slice: ProducerSlice): Promise<ProducerRoundStats> {
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
  const confirmCallback = (seq: number) => (failure: unknown) => {
    inFlight -= 1;
    if (failure) {
      retry.push(seq); // nacked, or the channel died first: unconfirmed at the fault
    } else if (confirmedInSlice[seq - slice.start] === 0) {
      confirmedInSlice[seq - slice.start] = 1;
      confirmed += 1;
      board.markConfirmed(seq);
    }
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
    if (task.confirms) inFlight += 1;
    let writable: boolean;
    try {
      const sentNs = nowNs();
      const paced = intervalNs > 0;
      const scheduledNs = paced ? startNs + BigInt(Math.round((seq - slice.start) * intervalNs)) : sentNs;
      const body = encodeMessage({ round: slice.round, seq, sentNs, scheduledNs, paced }, task.messageBytes);
      writable = connection.publish(task.queue, body, task.persistent, task.confirms ? confirmCallback(seq) : undefined);
    } catch (caught) {
      // Not sent at all (the channel is gone): try again once the connection is back.
      if (task.confirms) inFlight -= 1;
      if (resend) retry.unshift(seq);
      connection.destroy(`publish failed: ${describeError(caught)}`);
      continue;
    }
    board.markPublished(seq);
    sent += 1;
    if (resend) republished += 1;
    else next += 1;
    if (!writable) await connection.whenWritable(1000);
    else if (sent % 256 === 0) await yieldToEventLoop(); // let confirms and socket events in
  }
  // Without confirms, "published" means the broker has it, not that it sits in a client buffer.
  if (!task.confirms) await connection.barrier(task.queue, Math.max(1000, task.roundBoundMs - elapsedMs(startNs, nowNs())));
  return { round: slice.round, startNs, endNs: nowNs(), sent, republished, confirmed };
}
