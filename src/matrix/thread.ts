/**
 * One thread of a fault-matrix cell (a worker entry: one long-lived task per thread): the client
 * under test publishing with confirms, in a bounded window, into its own queue and consuming it
 * (manual ack, prefetch), while the main thread injects a fault. It records every publish's fate
 * (confirmed, nacked, rejected with the library's error, or still pending), every delivery, every
 * fault and typed signal the library gave, and the moments that matter: its first notice of the
 * fault, the first confirm and the first delivery after the fault's removal, and the first of its
 * own post-removal messages delivered (recovered). The harness's own loop (a client whose
 * recovery is the harness's) reconnects here; a library that recovers by itself is left to it.
 */
import type { ClientConnection, ClientSpec, Publisher } from '../client/api';
import { RECEIVED_KIND_CODES } from '../client/faults';
import { connectClient } from '../client/registry';
import { PublishNackedError } from '../client/types';
import { trapUnhandled } from '../client/unhandledTrap';
import { bounded } from '../client/bounded';
import { describeError } from '../errors';
import { nowNs, sleep } from '../measure/clock';
import { redactText } from '../redact';
import { decodeHeader, encodeMessage } from '../suite-kit/message';
import { MatrixBoard, MatrixControl, MatrixInt, MatrixTime } from './board';
import { PROBE_ROUND, PublishPhase, PublishState, type MatrixEvent, type MatrixThreadReport } from './report';

export interface MatrixTask {
  readonly threadIndex: number;
  readonly threads: number;
  readonly buffer: SharedArrayBuffer;
  readonly client: ClientSpec;
  /** The broker through the fault proxy. */
  readonly url: string;
  readonly connectionName: string;
  readonly exchange: string;
  /** Its own queue (bound to the exchange with its own name as routing key). */
  readonly queue: string;
  /** Publishes awaiting their confirm at most (the confirm window). */
  readonly confirmWindow: number;
  readonly publishIntervalMs: number;
  readonly messageBytes: number;
  readonly prefetch: number;
  /** Bound on every wait for the main thread, and on the harness loop's reconnection. */
  readonly phaseBoundMs: number;
  /** Bound on close() (a library may hang in it, e.g. while blocked). */
  readonly closeBoundMs: number;
}

/** At most this many events are kept as evidence (the first ones, then the last one). */
const MAX_EVENTS = 40;

export default async function matrixThread(task: MatrixTask): Promise<MatrixThreadReport> {
  const board = new MatrixBoard(task.buffer, task.threads);
  const me = task.threadIndex;
  const trap = trapUnhandled();
  const events: MatrixEvent[] = [];
  const state: number[] = [];
  const phase: number[] = [];
  const publishedAtNs: bigint[] = [];
  const settledAtNs: bigint[] = [];
  const deliveries: number[] = [];
  const rejections = new Map<string, { count: number; firstNs: bigint }>();
  let connection: ClientConnection | undefined;
  let closeMs: number | null | undefined;
  let closeCheck: MatrixThreadReport['closeCheck'];
  let error: string | undefined;

  const note = (event: MatrixEvent) => {
    if (events.length < MAX_EVENTS) events.push(event);
    else events[MAX_EVENTS - 1] = event;
    // The first fault or signal after the injection is the client noticing it (an unblock is not).
    if (board.flag(MatrixControl.INJECTED) === 0 || event.kind === 'unblocked') return;
    if (board.setTimeOnce(me, MatrixTime.DETECTED, BigInt(event.atNs))) {
      board.setInt(
        me,
        MatrixInt.DETECTED_KIND,
        RECEIVED_KIND_CODES[event.kind as keyof typeof RECEIVED_KIND_CODES] ?? RECEIVED_KIND_CODES.error,
      );
      board.count(MatrixControl.DETECTED);
    }
  };

  try {
    connection = await connectClient(task.client, {
      urls: [task.url],
      connectionName: task.connectionName,
      startBoundMs: task.phaseBoundMs,
    });
    const client = connection;
    client.onFault((fault) =>
      note({ source: 'fault', kind: fault.kind, message: redactText(fault.message), atNs: String(fault.detectedNs) }),
    );
    client.onSignal((signal) =>
      note({ source: 'signal', kind: signal.kind, message: redactText(signal.message), atNs: String(signal.detectedNs) }),
    );
    const publisher = await client.publisher({ confirms: true });
    await client.consume(task.queue, { ack: 'manual', prefetch: task.prefetch }, (delivery) => {
      const header = decodeHeader(delivery.body);
      delivery.ack();
      if (!header) return;
      const receivedNs = nowNs();
      const afterRemoval = board.flag(MatrixControl.REMOVED) !== 0;
      if (header.round === PROBE_ROUND) {
        board.addInt(me, MatrixInt.PROBES);
        if (afterRemoval) board.setTimeOnce(me, MatrixTime.CONSUMER_BACK, receivedNs);
        return;
      }
      deliveries[header.seq] = (deliveries[header.seq] ?? 0) + 1;
      board.addInt(me, MatrixInt.DELIVERED);
      if (afterRemoval) board.setTimeOnce(me, MatrixTime.CONSUMER_BACK, receivedNs);
      if (phase[header.seq] === PublishPhase.AFTER_REMOVAL && board.setTimeOnce(me, MatrixTime.RECOVERED, receivedNs))
        board.count(MatrixControl.RECOVERED);
    });
    board.setInt(me, MatrixInt.LOCAL_PORT, client.localPort ?? 0);
    board.setTimeOnce(me, MatrixTime.READY, nowNs());
    board.count(MatrixControl.READY);
    if (!(await board.waitFor(MatrixControl.GO, 1, task.phaseBoundMs))) throw new Error('the start signal never came');

    const publishOne = (seq: number) => {
      const afterRemoval = board.flag(MatrixControl.REMOVED) !== 0;
      phase[seq] = afterRemoval
        ? PublishPhase.AFTER_REMOVAL
        : board.flag(MatrixControl.INJECTED) !== 0
          ? PublishPhase.DURING_FAULT
          : PublishPhase.BEFORE;
      state[seq] = PublishState.PENDING;
      const sentNs = nowNs();
      publishedAtNs[seq] = sentNs;
      board.addInt(me, MatrixInt.PUBLISHED);
      board.addInt(me, MatrixInt.OUTSTANDING);
      const body = encodeMessage({ round: 0, seq, sentNs, scheduledNs: sentNs, paced: false }, task.messageBytes);
      let settled: Promise<void>;
      try {
        settled = publisher.publish(task.exchange, task.queue, body);
      } catch (thrown) {
        settled = Promise.reject(thrown);
      }
      settled.then(
        () => {
          state[seq] = PublishState.CONFIRMED;
          settledAtNs[seq] = nowNs();
          board.addInt(me, MatrixInt.CONFIRMED);
          board.addInt(me, MatrixInt.OUTSTANDING, -1);
          if (phase[seq] === PublishPhase.AFTER_REMOVAL) board.setTimeOnce(me, MatrixTime.PUBLISHER_BACK, settledAtNs[seq]);
        },
        (reason: unknown) => {
          const nacked = reason instanceof PublishNackedError;
          state[seq] = nacked ? PublishState.NACKED : PublishState.REJECTED;
          settledAtNs[seq] = nowNs();
          board.addInt(me, nacked ? MatrixInt.NACKED : MatrixInt.REJECTED);
          board.addInt(me, MatrixInt.OUTSTANDING, -1);
          const message = redactText(describeError(reason)).slice(0, 200);
          const known = rejections.get(message);
          if (known) known.count += 1;
          else if (rejections.size < 10) rejections.set(message, { count: 1, firstNs: settledAtNs[seq] });
        },
      );
    };

    // Publish at the pace, never more than the window awaiting confirms (a closed loop, as applications do).
    let seq = 0;
    let reconnecting: Promise<unknown> | undefined;
    while (board.flag(MatrixControl.SETTLE) === 0) {
      if (board.int(me, MatrixInt.OUTSTANDING) < task.confirmWindow) publishOne(seq++);
      // The harness's own loop reconnects once the fault is removed; a library recovers by itself.
      if (client.info.recovery === 'harness' && client.state === 'down' && board.flag(MatrixControl.REMOVED) !== 0 && !reconnecting)
        reconnecting = client
          .ensureConnected(task.phaseBoundMs)
          .catch((reason: unknown) =>
            note({
              source: 'harness',
              kind: 'error',
              message: `harness loop: ${redactText(describeError(reason))}`,
              atNs: String(nowNs()),
            }),
          )
          .finally(() => {
            reconnecting = undefined;
          });
      if (me === 0 && board.flag(MatrixControl.CLOSE_CHECK) !== 0 && closeCheck === undefined) {
        closeCheck = await checkCloseWhileBlocked(task, publisher);
        board.raise(MatrixControl.CLOSE_CHECKED);
      }
      await sleep(task.publishIntervalMs);
    }
    await board.waitFor(MatrixControl.STOP, 1, task.phaseBoundMs);
  } catch (failure) {
    error = redactText(describeError(failure));
    board.setInt(me, MatrixInt.FAILED, 1);
    board.raise(MatrixControl.CLOSE_CHECKED);
  } finally {
    if (connection) {
      const startedNs = nowNs();
      closeMs = await bounded(connection.close(), task.closeBoundMs, '').then(
        () => Number(nowNs() - startedNs) / 1e6,
        () => null,
      );
    }
    await trap.release(100);
    board.count(MatrixControl.FINISHED);
  }
  return {
    threadIndex: me,
    ...(error ? { error } : {}),
    state: Uint8Array.from(state, (value) => value ?? PublishState.PENDING),
    phase: Uint8Array.from(phase, (value) => value ?? PublishPhase.BEFORE),
    publishedAtNs: BigInt64Array.from(publishedAtNs, (value) => value ?? 0n),
    settledAtNs: BigInt64Array.from({ length: state.length }, (_, index) => settledAtNs[index] ?? 0n),
    deliveries: Uint16Array.from({ length: state.length }, (_, index) => Math.min(65_535, deliveries[index] ?? 0)),
    rejections: [...rejections.entries()].map(([message, { count, firstNs }]) => ({ message, count, firstNs: String(firstNs) })),
    events,
    unhandled: [...trap.trapped],
    closeMs: closeMs ?? null,
    ...(connection?.closeHitBound ? { closeHitBound: true } : {}),
    ...(closeCheck ? { closeCheck } : {}),
  };
}

/**
 * While the broker blocks publishers (an alarm), does close() still return? A second connection of
 * the same client publishes once (it is blocked from then on), then is closed, bounded.
 */
async function checkCloseWhileBlocked(task: MatrixTask, _publisher: Publisher): Promise<NonNullable<MatrixThreadReport['closeCheck']>> {
  let second: ClientConnection | undefined;
  try {
    second = await connectClient(task.client, {
      urls: [task.url],
      connectionName: `${task.connectionName}.close-check`,
      startBoundMs: 5000,
    });
    const publisher = await second.publisher({ confirms: false });
    void publisher.publish(task.exchange, task.queue, Buffer.alloc(1024)).catch(() => undefined);
    await sleep(300);
    const startedNs = nowNs();
    const closed = await bounded(second.close(), task.closeBoundMs, '').then(
      () => true,
      () => false,
    );
    return {
      closeMs: closed ? Number(nowNs() - startedNs) / 1e6 : null,
      boundMs: task.closeBoundMs,
      hitAdapterBound: second.closeHitBound,
    };
  } catch (failure) {
    return { closeMs: null, boundMs: task.closeBoundMs, hitAdapterBound: false, error: redactText(describeError(failure)) };
  }
}
