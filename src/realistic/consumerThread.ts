/**
 * One consumer worker thread of a realistic workload (a worker entry: `startThreadPool` loads
 * this module). The thread holds a few connections of the client under test, each with a
 * consumer (manual ack, prefetch) per logical consumer; every delivery is counted in the shared
 * ledger, and its end-to-end latency (receive time minus the publish time in the message) goes
 * into the thread's histogram of its round.
 *
 * Phases: connect every connection (counting its consumers ready) -> consume; after a fault
 * each connection is brought back by the client (`ensureConnected`: its library's recovery, or
 * the harness's loop for a client without one) while the run lasts -> on the stop signal, close
 * everything and report. Every wait is bounded; the function never throws (a failure is in the
 * report: the client's in `error`, the harness's own in `harnessError`), so the main thread always hears back.
 */
import type { ClientConnection, ClientFault, ClientSpec, Delivery } from '../client/api';
import { connectClient } from '../client/registry';
import { HarnessBoundError } from '../errors';
import { createLatencyHistogram, encodeHistogram, recordLatencyNs, type LatencyHistogram } from '../measure/histogram';
import { elapsedMs, nowNs } from '../measure/clock';
import { trapUnhandled } from '../client/unhandledTrap';
import type { EncodedHistogram } from '../results/rawResult';
import { decodeHeader, type MessageHeader } from '../suite-kit/message';
import { threadFailure, type ThreadFailure } from '../suite-kit/threadFailure';
import { Word, WorkloadBoard, type BoardLayout } from '../suite-kit/workloadBoard';

export interface ConsumerTask {
  readonly threadIndex: number;
  readonly buffer: SharedArrayBuffer;
  readonly layout: BoardLayout;
  readonly url: string;
  readonly queue: string;
  readonly client: ClientSpec;
  /** Consumers (channels) on each of the thread's connections. */
  readonly connections: readonly number[];
  readonly prefetch: number;
  /** Reconnect after a fault (true), or end the thread as failed (false). */
  readonly recover: boolean;
  /** Bound on connecting at start-up, and on each recovery. */
  readonly connectBoundMs: number;
  /** Bound on the whole task, start-up to the stop signal. */
  readonly lifetimeBoundMs: number;
}

/** First deliveries of one round seen by one thread (duplicates are only in the ledger). */
export interface ConsumerRoundStats {
  readonly deliveries: number;
  readonly firstNs: bigint | null;
  readonly lastNs: bigint | null;
  /** End-to-end latency from the publish time, µs. */
  readonly latency: EncodedHistogram | null;
  /** Paced rounds: end-to-end latency from the scheduled publish time, µs. */
  readonly scheduleLatency: EncodedHistogram | null;
}

export interface ConsumerThreadReport extends ThreadFailure {
  readonly threadIndex: number;
  readonly consumers: number;
  readonly connections: number;
  /** Task start to every consumer of this thread consuming. */
  readonly startupMs: number | null;
  readonly rounds: readonly ConsumerRoundStats[];
  /** Faults seen while up, over all connections. */
  readonly faults: number;
  readonly reconnects: number;
  /** Connections up when the stop signal came. */
  readonly connectionsUp: number;
  /** Errors nobody handled inside the client (unhandled rejections, uncaught exceptions): findings. */
  readonly unhandled: readonly string[];
}

class RoundRecorder {
  deliveries = 0;
  firstNs: bigint | null = null;
  lastNs: bigint | null = null;
  private histogram: LatencyHistogram | undefined;
  private scheduleHistogram: LatencyHistogram | undefined;

  record(receivedNs: bigint, header: MessageHeader): void {
    this.deliveries += 1;
    this.firstNs ??= receivedNs;
    this.lastNs = receivedNs;
    this.histogram ??= createLatencyHistogram();
    recordLatencyNs(this.histogram, receivedNs - header.sentNs);
    if (header.paced) {
      this.scheduleHistogram ??= createLatencyHistogram();
      recordLatencyNs(this.scheduleHistogram, receivedNs - header.scheduledNs);
    }
  }

  stats(): ConsumerRoundStats {
    const encode = (histogram: LatencyHistogram | undefined) => (histogram ? encodeHistogram(histogram) : null);
    return {
      deliveries: this.deliveries,
      firstNs: this.firstNs,
      lastNs: this.lastNs,
      latency: encode(this.histogram),
      scheduleLatency: encode(this.scheduleHistogram),
    };
  }
}

export default async function runConsumerThread(task: ConsumerTask): Promise<ConsumerThreadReport> {
  const startedNs = nowNs();
  const board = new WorkloadBoard(task.layout, task.buffer);
  const rounds = Array.from({ length: task.layout.rounds }, () => new RoundRecorder());
  const onDelivery = (delivery: Delivery): void => {
    const receivedNs = nowNs();
    const header = decodeHeader(delivery.body);
    if (!header) board.count(Word.FOREIGN);
    else if (board.recordDelivery(header.seq, header.round, delivery.redelivered)) rounds[header.round]!.record(receivedNs, header);
    // Acked after counting: a delivery seen here whose ack dies with its connection comes back flagged redelivered.
    delivery.ack();
  };
  const connections: ClientConnection[] = [];
  const consumers = task.connections.reduce((sum, channels) => sum + channels, 0);
  let faults = 0;
  let reconnects = 0;
  let startupMs: number | null = null;
  let failure: ThreadFailure = {};
  let connectionsUp = 0;
  const trap = trapUnhandled();

  try {
    const started = await Promise.allSettled(
      task.connections.map(async (channels) => {
        const connection = await connectClient(task.client, { urls: [task.url], startBoundMs: task.connectBoundMs });
        connections.push(connection);
        connection.onFault(() => {
          faults += 1;
        });
        for (let consumer = 0; consumer < channels; consumer += 1) {
          await connection.consume(task.queue, { ack: 'manual', prefetch: task.prefetch }, onDelivery);
        }
        board.count(Word.CONSUMERS_READY, channels);
      }),
    );
    const notStarted = started.find((result): result is PromiseRejectedResult => result.status === 'rejected');
    if (notStarted) throw notStarted.reason;
    startupMs = elapsedMs(startedNs, nowNs());

    await superviseUntilStop(board, task, connections, () => {
      reconnects += 1;
    });
    connectionsUp = connections.filter((connection) => connection.state === 'up').length;
  } catch (caught) {
    failure = threadFailure(caught);
    board.count(Word.THREADS_FAILED);
  } finally {
    await Promise.allSettled(connections.map((connection) => connection.close()));
    await trap.release(50); // late socket events of the closes surface first
  }
  return {
    threadIndex: task.threadIndex,
    consumers,
    connections: task.connections.length,
    startupMs,
    rounds: rounds.map((round) => round.stats()),
    faults,
    reconnects,
    connectionsUp,
    unhandled: trap.trapped,
    ...failure,
  };
}

/** Resolves with the fault when `connection` reports one (at once, without it, if it is down already). */
export function whenDown(connection: ClientConnection): Promise<ClientFault | undefined> {
  if (connection.state !== 'up') return Promise.resolve(undefined);
  return new Promise((resolve) => {
    const unsubscribe = connection.onFault((fault) => {
      unsubscribe();
      resolve(fault);
    });
  });
}

/** The error a thread fails with when a connection is lost and the workload does not recover. */
export function lostConnection(fault: ClientFault | undefined): Error {
  return new Error(`connection lost (${fault ? `${fault.kind}: ${fault.message}` : 'down'}); recovery is off for this workload`);
}

/**
 * Keeps every connection up, waiting for the client to bring it back after each fault
 * (ensureConnected), until the stop signal. Rejects as soon as one connection does not come
 * back (or may not: `recover` off), so the thread fails at once and the main thread ends the
 * round early instead of waiting for messages that cannot come.
 */
async function superviseUntilStop(
  board: WorkloadBoard,
  task: ConsumerTask,
  connections: readonly ClientConnection[],
  onReconnect: () => void,
): Promise<void> {
  const stopped = board.waitFor(Word.STOP, 1, task.lifetimeBoundMs).then((signalled) => {
    if (!signalled) throw new HarnessBoundError(`no stop signal within the thread's lifetime bound (${task.lifetimeBoundMs} ms)`);
  });
  const watch = async (connection: ClientConnection): Promise<void> => {
    for (;;) {
      const woke = await Promise.race([
        stopped.then(() => ({ stop: true }) as const),
        whenDown(connection).then((fault) => ({ stop: false, fault })),
      ]);
      if (woke.stop || connection.state === 'closed') return;
      if (!task.recover) throw lostConnection(woke.fault);
      board.count(Word.CONNECTIONS_DOWN, 1);
      await connection.ensureConnected(task.connectBoundMs);
      board.count(Word.CONNECTIONS_DOWN, -1);
      board.count(Word.CONSUMER_RECONNECTS);
      onReconnect();
    }
  };
  await Promise.race([stopped, Promise.all(connections.map(watch))]);
}
