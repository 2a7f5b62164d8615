/**
 * One consumer thread of a recovery scenario (a worker entry: `startThreadPool` loads this
 * module; one long-lived task per thread), on any client under test (src/client): it consumes
 * its own queue (declared and bound to the traffic's fanout by the harness) through
 * `DrainingConsumer` (drain events with a deadline, ensure the connection).
 *
 * Phases: connect and report ready -> wait at the barrier -> drain deliveries until a fault
 * (connection error/close, or after the main thread flagged the injection, its own drain
 * deadline) -> record the detection time -> wait until the main thread says the toxic is
 * gone -> ensureConnection + a real message round trip -> record the recovery time -> keep
 * consuming until told to stop -> close. Every wait is bounded; the thread never blocks its
 * event loop (Atomics.waitAsync), so the client keeps reading its socket throughout.
 */
import type { ClientSpec } from '../client/api';
import type { FaultKind } from '../client/faults';
import { connectClient } from '../client/registry';
import { ClientFaultError, DrainTimeoutError } from '../client/types';
import { HarnessBoundError } from '../errors';
import { nowNs } from '../measure/clock';
import { trapUnhandled } from '../client/unhandledTrap';
import { threadFailure, type ThreadFailure } from '../suite-kit/threadFailure';
import { RECEIVED_KIND_CODES } from '../client/faults';
import { Control, IntSlot, ThreadBoard, ThreadState, TimeSlot } from './board';
import { DrainingConsumer } from '../suite-kit/drainingConsumer';
import { ProgramConnection } from '../client/process/connection';

export interface RecoveryTask {
  readonly threadIndex: number;
  readonly threads: number;
  readonly buffer: SharedArrayBuffer;
  readonly client: ClientSpec;
  /** Broker URL through the fault proxy. */
  readonly url: string;
  /** The thread's own queue, bound to the traffic's fanout exchange by the harness. */
  readonly queue: string;
  /** The broker's `connection_name` of the thread's connection. */
  readonly connectionName?: string;
  /** The client's own deadline: no delivery for this long (after the injection) means the link is dead. */
  readonly drainTimeoutMs: number;
  /** Bound on every phase wait (barrier, toxic removal, reconnect, stop). */
  readonly phaseBoundMs: number;
  readonly roundTripTimeoutMs: number;
}

/** Why the thread did not complete its phases, if it did not: the client's error, or the harness's own. */
export interface RecoveryThreadReport extends ThreadFailure {
  readonly threadIndex: number;
  /** Drain deadlines that passed before any injection (false alarms a deadline would raise). */
  readonly falseAlarms: number;
  /** Errors nobody handled inside the client (unhandled rejections, uncaught exceptions): findings. */
  readonly unhandled?: readonly string[];
}

export default async function recoveryThread(task: RecoveryTask): Promise<RecoveryThreadReport> {
  const trap = trapUnhandled();
  try {
    const report = await runPhases(task);
    // Late socket events of the close surface first.
    await trap.release(50);
    return trap.trapped.length > 0 ? { ...report, unhandled: trap.trapped } : report;
  } finally {
    await trap.release();
  }
}

async function runPhases(task: RecoveryTask): Promise<RecoveryThreadReport> {
  const board = new ThreadBoard(task.buffer, task.threads);
  const me = task.threadIndex;
  let client: DrainingConsumer | undefined;
  const drained = { falseAlarms: 0 };
  const fail = (error: unknown): RecoveryThreadReport => {
    board.setInt(me, IntSlot.STATE, ThreadState.FAILED);
    return { threadIndex: me, ...threadFailure(error), falseAlarms: drained.falseAlarms };
  };

  try {
    try {
      client = await connectAndRehearse(task);
    } finally {
      // Counted even on failure, so the main thread never waits for a thread that cannot come.
      board.setInt(me, IntSlot.LOCAL_PORT, client?.localPort ?? 0);
      board.setTime(me, TimeSlot.READY, nowNs());
      board.setInt(me, IntSlot.STATE, ThreadState.READY);
      board.count(Control.READY);
    }
    const consumer = client;
    if (!(await board.waitFor(Control.GO, 1, task.phaseBoundMs))) return fail(new HarnessBoundError('barrier never opened'));
    board.setInt(me, IntSlot.STATE, ThreadState.DRAINING);

    const detection = await drainUntilFault(consumer, task, board, drained);
    if (!detection) return { threadIndex: me, falseAlarms: drained.falseAlarms };
    board.setTime(me, TimeSlot.DETECTED, detection.ns);
    board.setInt(me, IntSlot.CAUSE, RECEIVED_KIND_CODES[detection.cause]);
    board.setInt(me, IntSlot.STATE, ThreadState.DETECTED);
    board.count(Control.DETECTED);

    if (!(await board.waitFor(Control.TOXIC_REMOVED, 1, task.phaseBoundMs))) return fail(new HarnessBoundError('toxic was never removed'));
    await recover(consumer, task, board);
    await consumeUntilStopped(consumer, board);
    return { threadIndex: me, falseAlarms: drained.falseAlarms };
  } catch (error) {
    return fail(error);
  } finally {
    client?.stopWaiting();
    await client?.connection.close().catch(() => undefined);
    board.count(Control.FINISHED);
  }
}

/** Connects the client under test, consumes the thread's queue, and runs the fault and recovery path once (see rehearse). */
async function connectAndRehearse(task: RecoveryTask): Promise<DrainingConsumer> {
  const connection = await connectClient(task.client, {
    urls: [task.url],
    startBoundMs: task.phaseBoundMs,
    connectionName: task.connectionName,
  });
  // A program that makes the round trip itself (`recover`) recognises the probe in its own process, so
  // its consumer hands over counts, not messages: it counts what it consumes, as its bare recovery
  // program does. With bodies, the deliveries of the connections already back reached their threads as
  // lines to read, check and decode while the rest reconnected: 39-280 ms of the harness's CPU in
  // that window on two cores, against 4-16 ms on the bare side.
  const program = programRecovering(connection);
  const client = await DrainingConsumer.start(connection, task.queue, { bodies: program === undefined }).catch(async (error: unknown) => {
    await connection.close();
    throw error;
  });
  // The fault and recovery path compiled now, not at the fault (see rehearse); a program's own recovery path once
  // while up, as its bare recovery program makes a round trip before the fault.
  await client.rehearse(
    task.roundTripTimeoutMs,
    program ? () => program.recoverWithProbe(task.queue, task.phaseBoundMs, task.roundTripTimeoutMs) : undefined,
  );
  return client;
}

/** The connection when it is a client program that makes and times the recovery round trip itself (`recover`). */
function programRecovering(connection: unknown): ProgramConnection | undefined {
  return connection instanceof ProgramConnection && connection.recoversInProgram ? connection : undefined;
}

/**
 * Drains deliveries until the connection fails (the client told us) or, once the main thread
 * flagged the injection, until the thread's own drain deadline passes; undefined when told to stop
 * first. A deadline before the injection is a false alarm, counted in `drained`.
 */
async function drainUntilFault(
  consumer: DrainingConsumer,
  task: RecoveryTask,
  board: ThreadBoard,
  drained: { falseAlarms: number },
): Promise<{ ns: bigint; cause: FaultKind } | undefined> {
  const me = task.threadIndex;
  while (board.flag(Control.STOP) === 0) {
    try {
      const { deliveries } = await consumer.drainEvents(task.drainTimeoutMs);
      board.addInt(me, IntSlot.DELIVERIES, deliveries);
    } catch (error) {
      if (error instanceof ClientFaultError) return { ns: error.detectedNs, cause: error.kind };
      if (!(error instanceof DrainTimeoutError)) throw error;
      if (board.flag(Control.INJECTED) === 0) {
        drained.falseAlarms += 1;
        board.addInt(me, IntSlot.STALLS);
        continue;
      }
      // Silence after the injection: this client gives up on the link, as a real one would.
      consumer.destroyConnection('drain deadline passed');
      return { ns: error.detectedNs, cause: 'deadline' };
    }
  }
  return undefined;
}

/**
 * ensureConnection + a real message round trip, timed from the moment this thread heard the fault
 * was removed. A client program that makes the round trip itself (`recover`) times it in its own
 * process, from the moment it took the command up to its library handing the probe over: what its
 * bare recovery program times, with none of the pipe's hops in it (they are in the removal signal).
 */
async function recover(consumer: DrainingConsumer, task: RecoveryTask, board: ThreadBoard): Promise<void> {
  const me = task.threadIndex;
  board.setTime(me, TimeSlot.RECOVERY_STARTED, nowNs());
  board.setInt(me, IntSlot.STATE, ThreadState.RECOVERING);
  const program = programRecovering(consumer.connection);
  if (program) {
    const recovered = await program.recoverWithProbe(task.queue, task.phaseBoundMs, task.roundTripTimeoutMs);
    board.setInt(me, IntSlot.ATTEMPTS, recovered.attempts);
    board.setTime(me, TimeSlot.RECOVERY_STARTED, recovered.recoveryStartedNs);
    board.setTime(me, TimeSlot.RECOVERED, recovered.recoveredNs);
    // Up already: the program answers at once; this forgets the fault the drain kept.
    await consumer.ensureConnection(task.phaseBoundMs);
  } else {
    const ensured = await consumer.ensureConnection(task.phaseBoundMs);
    board.setInt(me, IntSlot.ATTEMPTS, ensured.attempts);
    await consumer.roundTrip(task.roundTripTimeoutMs);
    board.setTime(me, TimeSlot.RECOVERED, nowNs());
  }
  board.setInt(me, IntSlot.STATE, ThreadState.RECOVERED);
  board.count(Control.RECOVERED);
}

/**
 * Stays a live consumer until the scenario ends (traffic keeps flowing; nothing piles up). A fault
 * after recovery is not this scenario's fault: it stops consuming quietly.
 */
async function consumeUntilStopped(consumer: DrainingConsumer, board: ThreadBoard): Promise<void> {
  let live = true;
  while (live && board.flag(Control.STOP) === 0) {
    await consumer.drainEvents(100).catch((error: unknown) => {
      live = error instanceof DrainTimeoutError;
    });
  }
}
