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
 * accounting reads (./slicePublisher.ts). The function never throws; a failure is in the report:
 * the client's in `error`, the harness's own in `harnessError`.
 */
import type { ClientConnection, ClientFault, ClientSpec } from '../client/api';
import { lostConnection } from './consumerThread';
import { connectClient } from '../client/registry';
import { HarnessBoundError } from '../errors';
import { trapUnhandled } from '../client/unhandledTrap';
import { threadFailure, type ThreadFailure } from '../suite-kit/threadFailure';
import { Word, WorkloadBoard, type BoardLayout } from '../suite-kit/workloadBoard';
import { publishSlice, StoppedDuringRound } from './slicePublisher';

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

export interface ProducerThreadReport extends ThreadFailure {
  readonly threadIndex: number;
  readonly rounds: readonly ProducerRoundStats[];
  /** Confirm mode only: the class of every publish copy. */
  readonly outcomes?: PublishOutcomes;
  readonly faults: number;
  readonly reconnects: number;
  /** Errors nobody handled inside the client (unhandled rejections, uncaught exceptions): findings. */
  readonly unhandled: readonly string[];
}

export default async function runProducerThread(task: ProducerTask): Promise<ProducerThreadReport> {
  const board = new WorkloadBoard(task.layout, task.buffer);
  const rounds: ProducerRoundStats[] = [];
  let connection: ClientConnection | undefined;
  let faults = 0;
  let reconnects = 0;
  let failure: ThreadFailure = {};
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
    // The stop signal mid-round: the main thread gave up on the round, and its outcome says why.
    if (!(caught instanceof StoppedDuringRound)) {
      failure = threadFailure(caught);
      board.count(Word.THREADS_FAILED);
    }
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
    ...failure,
  };
}

/** True once round `round` started; false on the stop signal. @throws HarnessBoundError after `boundMs` (the main thread's part). */
async function waitForRound(board: WorkloadBoard, round: number, boundMs: number): Promise<boolean> {
  const deadline = Date.now() + boundMs;
  while (Date.now() < deadline) {
    if (board.flag(Word.STOP) !== 0) return false;
    if (await board.waitFor(Word.ROUND, round + 1, Math.min(100, Math.max(1, deadline - Date.now())))) return board.flag(Word.STOP) === 0;
  }
  throw new HarnessBoundError(`round ${round} did not start within ${boundMs} ms`);
}
