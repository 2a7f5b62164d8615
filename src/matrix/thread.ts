/**
 * One thread of a fault-matrix cell (a worker entry: one long-lived task per thread): the client
 * under test publishing with confirms, in a bounded window, into its own queue and consuming it
 * (manual ack, prefetch), while the main thread injects a fault. It records every publish's fate
 * (confirmed, nacked, rejected with the library's error, or still pending at the end of the
 * settle bound: hung, classed before anything is closed), every delivery, every fault and typed
 * signal the library gave, and the moments that matter: its connection opening (its heartbeat's
 * phase), its first notice of the fault, the first confirm and delivery after the fault's removal,
 * and the first of its own post-removal messages delivered (recovered). The harness's own loop (a
 * client whose recovery is the harness's) reconnects here; a library that recovers by itself is
 * left to it.
 */
import type { ClientConnection, ClientSpec, Publisher } from '../client/api';
import { bounded } from '../client/bounded';
import { connectClient } from '../client/registry';
import { trapUnhandled } from '../client/unhandledTrap';
import { describeError } from '../errors';
import { nowNs, pollUntil, sleep } from '../measure/clock';
import { redactText } from '../redact';
import { decodeHeader, encodeMessage } from '../suite-kit/message';
import { MatrixBoard, MatrixControl, MatrixInt, MatrixTime } from './board';
import { checkCloseWhileBlocked } from './closeCheck';
import { FaultMomentAck } from './faultMomentAck';
import { PublishLedger } from './ledger';
import { isBack } from './recoveryWait';
import { PROBE_ROUND, PublishPhase, type MatrixThreadReport } from './report';
import { StallWatch } from './stallWatch';
import { StuckHandler } from './stuckHandler';
import { ThreadEvents } from './threadEvents';

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
  /** After publishing stops, what is in flight gets this long; then every publish is classed. */
  readonly settleMs: number;
  /** Bound on every wait for the main thread, and on the harness loop's reconnection. */
  readonly phaseBoundMs: number;
  /** Bound on close() (a library may hang in it, e.g. while blocked). */
  readonly closeBoundMs: number;
  /** The fault stalls its writes: the library's back-pressure signal and memory are watched (./stallWatch.ts). */
  readonly stall: boolean;
  /** Its consumer gets stuck at the injection: every delivery from then on unacked until it noticed the fault (a consumer acknowledgement timeout; ./stuckHandler.ts). */
  readonly holdDelivery: boolean;
}

/** What one thread works with once its client is connected. */
interface ThreadContext {
  readonly task: MatrixTask;
  readonly board: MatrixBoard;
  readonly me: number;
  readonly ledger: PublishLedger;
  readonly events: ThreadEvents;
  /** The delivery its consumer has in its handler at the fault's moment, acked once the fault is in place. */
  readonly faultMomentAck: FaultMomentAck;
  /** Its consumer's handler when the fault is the acknowledgement timeout: stuck from the injection on. */
  readonly stuckHandler: StuckHandler;
}

export default async function matrixThread(task: MatrixTask): Promise<MatrixThreadReport> {
  const board = new MatrixBoard(task.buffer, task.threads);
  const context: ThreadContext = {
    task,
    board,
    me: task.threadIndex,
    ledger: new PublishLedger(),
    events: new ThreadEvents(board, task.threadIndex),
    faultMomentAck: new FaultMomentAck(board, task.threadIndex, task.holdDelivery),
    stuckHandler: new StuckHandler(board, task.threadIndex, task.holdDelivery),
  };
  const trap = trapUnhandled();
  let connection: ClientConnection | undefined;
  let closeMs: number | null = null;
  let closeCheck: MatrixThreadReport['closeCheck'];
  let stall: StallWatch | undefined;
  let error: string | undefined;
  try {
    await openingMoment(context);
    connection = await connectClient(task.client, {
      urls: [task.url],
      connectionName: task.connectionName,
      startBoundMs: task.phaseBoundMs,
    });
    board.setTimeOnce(context.me, MatrixTime.OPENED, nowNs());
    const publisher = await start(context, connection);
    if (task.stall) stall = new StallWatch(board, context.me, context.events, publisher);
    closeCheck = await publishUntilSettle(context, connection, publisher, stall);
    await classAtSettleBound(context);
    await board.waitFor(MatrixControl.STOP, 1, task.phaseBoundMs);
  } catch (failure) {
    error = redactText(describeError(failure));
    board.setInt(context.me, MatrixInt.FAILED, 1);
    board.raise(MatrixControl.CLOSE_CHECKED);
    if (!context.ledger.isClassed) {
      context.ledger.classAll();
      board.count(MatrixControl.CLASSED);
    }
  } finally {
    if (connection) closeMs = await closeWithin(connection, task.closeBoundMs);
    await trap.release(100);
    board.count(MatrixControl.FINISHED);
  }
  const held = context.stuckHandler.report();
  return {
    threadIndex: context.me,
    ...(error ? { error } : {}),
    ...context.ledger.report(),
    ports: context.events.portsSeen(),
    events: context.events.events,
    unhandled: [...trap.trapped],
    closeMs,
    ...(connection?.closeHitBound ? { closeHitBound: true } : {}),
    ...(closeCheck ? { closeCheck } : {}),
    ...(stall ? { stall: stall.report() } : {}),
    ...(held ? { held } : {}),
  };
}

/** Says it is loaded, and waits for its moment to open (staggered over a heartbeat interval by the main thread, or now). */
async function openingMoment(context: ThreadContext): Promise<void> {
  const { board, me, task } = context;
  board.count(MatrixControl.LOADED);
  if (!(await board.waitFor(MatrixControl.OPEN, 1, task.phaseBoundMs))) throw new Error('the signal to open never came');
  if (board.flag(MatrixControl.STOP) !== 0) throw new Error('the cell stopped before this thread opened');
  const waitMs = Number(board.time(me, MatrixTime.OPEN_AT) - nowNs()) / 1e6;
  if (waitMs > 0) await sleep(waitMs);
}

/** Listens to the library, opens its publisher and consumer, says it is ready and waits for the start. */
async function start(context: ThreadContext, client: ClientConnection): Promise<Publisher> {
  const { task, board, me, ledger, events, faultMomentAck, stuckHandler } = context;
  client.onFault((fault) =>
    events.note({ source: 'fault', kind: fault.kind, message: redactText(fault.message), atNs: String(fault.detectedNs) }),
  );
  client.onSignal((signal) =>
    events.note({ source: 'signal', kind: signal.kind, message: redactText(signal.message), atNs: String(signal.detectedNs) }),
  );
  const publisher = await client.publisher({ confirms: true });
  await client.consume(task.queue, { ack: 'manual', prefetch: task.prefetch }, (delivery) => {
    const header = decodeHeader(delivery.body);
    const receivedNs = delivery.receivedNs ?? nowNs();
    if (header && stuckHandler.holds(header.round, header.seq, receivedNs)) {
      ledger.delivered(header.seq, receivedNs);
      board.addInt(me, MatrixInt.DELIVERED);
      return;
    }
    if (!header || header.round === PROBE_ROUND || !faultMomentAck.keep(() => delivery.ack())) delivery.ack();
    if (!header) return;
    const afterRemoval = board.flag(MatrixControl.REMOVED) !== 0;
    if (afterRemoval) board.setTimeOnce(me, MatrixTime.CONSUMER_BACK, receivedNs);
    if (header.round === PROBE_ROUND) {
      board.addInt(me, MatrixInt.PROBES);
      return;
    }
    ledger.delivered(header.seq, receivedNs);
    board.addInt(me, MatrixInt.DELIVERED);
    if (ledger.phaseOf(header.seq) === PublishPhase.AFTER_REMOVAL && board.setTimeOnce(me, MatrixTime.RECOVERED, receivedNs))
      countBack(context);
  });
  events.samplePort(client.localPort);
  board.setInt(me, MatrixInt.LOCAL_PORT, client.localPort ?? 0);
  board.setTimeOnce(me, MatrixTime.READY, nowNs());
  board.count(MatrixControl.READY);
  if (!(await board.waitFor(MatrixControl.GO, 1, task.phaseBoundMs))) throw new Error('the start signal never came');
  return publisher;
}

/** Counted back once both its own message after the removal was delivered and a publish after it confirmed (./recoveryWait.ts). */
function countBack({ board, me }: ThreadContext): void {
  if (isBack(board, me)) board.count(MatrixControl.RECOVERED);
}

/** One publish with confirms, its fate booked when it settles. */
function publishOne(context: ThreadContext, publisher: Publisher, seq: number): void {
  const { task, board, me, ledger } = context;
  const phase =
    board.flag(MatrixControl.REMOVED) !== 0
      ? PublishPhase.AFTER_REMOVAL
      : board.flag(MatrixControl.INJECTED) !== 0
        ? PublishPhase.DURING_FAULT
        : PublishPhase.BEFORE;
  const sentNs = nowNs();
  ledger.published(seq, phase, sentNs);
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
      const atNs = ledger.confirmed(seq);
      board.addInt(me, MatrixInt.CONFIRMED);
      board.addInt(me, MatrixInt.OUTSTANDING, -1);
      if (phase === PublishPhase.AFTER_REMOVAL && board.setTimeOnce(me, MatrixTime.PUBLISHER_BACK, atNs)) countBack(context);
    },
    (reason: unknown) => {
      board.addInt(me, ledger.failed(seq, reason) ? MatrixInt.NACKED : MatrixInt.REJECTED);
      board.addInt(me, MatrixInt.OUTSTANDING, -1);
    },
  );
}

/**
 * Publishes at the pace, never more than the window awaiting confirms (a closed loop, as
 * applications do), until the main thread says settle; reconnects through the harness's loop
 * once the fault is removed (a library-recovered client is left to itself); thread 0 runs the
 * close check when asked.
 */
async function publishUntilSettle(
  context: ThreadContext,
  client: ClientConnection,
  publisher: Publisher,
  stall: StallWatch | undefined,
): Promise<MatrixThreadReport['closeCheck']> {
  const { task, board, me, events } = context;
  let closeCheck: MatrixThreadReport['closeCheck'];
  let seq = 0;
  let reconnecting: Promise<unknown> | undefined;
  while (board.flag(MatrixControl.SETTLE) === 0) {
    if (board.int(me, MatrixInt.OUTSTANDING) < windowNow(task, board)) publishOne(context, publisher, seq++);
    stall?.tick();
    context.faultMomentAck.tick();
    events.samplePort(client.localPort);
    if (client.info.recovery === 'harness' && client.state === 'down' && board.flag(MatrixControl.REMOVED) !== 0 && !reconnecting)
      reconnecting = client
        .ensureConnected(task.phaseBoundMs)
        .catch((reason: unknown) =>
          events.note({
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
      closeCheck = await checkCloseWhileBlocked(task);
      board.raise(MatrixControl.CLOSE_CHECKED);
    }
    await sleep(task.publishIntervalMs);
  }
  return closeCheck;
}

/**
 * The confirm window in force now. A stall's threads publish open loop only while the stall
 * holds: before it, a window keeps the library's buffers empty, so a back-pressure signal that
 * shows is the stall's (on a loaded machine an open loop from the start could fill them under
 * the ordinary load, and a signal already on at the injection is not the library noticing);
 * after it, the pile drains before more is offered.
 */
function windowNow(task: MatrixTask, board: MatrixBoard): number {
  const stallHolds = task.stall && board.flag(MatrixControl.INJECTED) !== 0 && board.flag(MatrixControl.REMOVED) === 0;
  return stallHolds ? Number.POSITIVE_INFINITY : task.confirmWindow;
}

/** What is in flight gets the settle bound; then every publish is classed, before anything is closed. */
async function classAtSettleBound(context: ThreadContext): Promise<void> {
  const { task, board, me, ledger } = context;
  await pollUntil(() => board.int(me, MatrixInt.OUTSTANDING) <= 0, task.settleMs, 10);
  ledger.classAll();
  board.count(MatrixControl.CLASSED);
}

/** close(), bounded: how long it took, or null when it did not return within the bound. */
async function closeWithin(connection: ClientConnection, boundMs: number): Promise<number | null> {
  const startedNs = nowNs();
  return bounded(connection.close(), boundMs, '').then(
    () => Number(nowNs() - startedNs) / 1e6,
    () => null,
  );
}
