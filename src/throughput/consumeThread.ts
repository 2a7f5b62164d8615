/**
 * One consumer thread of a sustained consume session (a worker entry: `startThreadPool` loads
 * this module): one connection of the client under test — through the client interface only —
 * with a block of consumers (one channel each, manual ack, the session's prefetch). Each delivery
 * is counted on the board, then acked; nothing else happens on the hot path.
 *
 * Phases: connect, count ready -> for each phase the main thread opens: start every consumer,
 * count consuming -> when the main thread ends the phase: cancel them, count cancelled -> on
 * STOP, close and report. Between phases the connection stays open (warm), so the harness's
 * consumers and the bare script's can take turns on the same queue. A fault is not recovered
 * (it would void the measurement): the thread counts itself failed and says why. Every wait is
 * bounded; the function never throws.
 */
import type { ClientConnection, ClientSpec, Consumer, Delivery } from '../client/api';
import { connectClient } from '../client/registry';
import { describeError } from '../errors';
import { currentThreadId } from '../measure/threadCpu';
import { redactText } from '../redact';
import { ConsumeBoard, ConsumeControl, type ConsumeBoardLayout } from './consumeBoard';

export interface ConsumeTask {
  readonly thread: number;
  readonly buffer: SharedArrayBuffer;
  readonly layout: ConsumeBoardLayout;
  /** Broker URL (direct: throughput is measured without the fault proxy). */
  readonly url: string;
  readonly queue: string;
  readonly client: ClientSpec;
  /** Consumers (channels) on this thread's connection. */
  readonly consumers: number;
  readonly prefetch: number;
  /** Shown by the broker as `connection_name` (the session's leak check finds it). */
  readonly connectionName: string;
  readonly connectBoundMs: number;
  /** Bound on the whole task, start-up to the stop signal. */
  readonly lifetimeBoundMs: number;
}

export interface ConsumeThreadReport {
  readonly thread: number;
  readonly consumers: number;
  /** Phases this thread consumed in. */
  readonly phases: number;
  /** Deliveries it counted (and acked). */
  readonly delivered: number;
  readonly error?: string;
}

export default async function runConsumeThread(task: ConsumeTask): Promise<ConsumeThreadReport> {
  const board = new ConsumeBoard(task.layout, task.buffer);
  const deadline = Date.now() + task.lifetimeBoundMs;
  const remainingMs = () => Math.max(1, deadline - Date.now());
  const onDelivery = (delivery: Delivery): void => {
    board.countDelivered(task.thread);
    delivery.ack();
  };
  let connection: ClientConnection | undefined;
  let phases = 0;
  let failure: string | undefined;
  const fail = (why: string): void => {
    if (failure !== undefined) return;
    failure = why;
    board.count(ConsumeControl.CONSUMERS_FAILED);
  };
  const report = (): ConsumeThreadReport => ({
    thread: task.thread,
    consumers: task.consumers,
    phases,
    delivered: board.deliveredBy(task.thread),
    ...(failure === undefined ? {} : { error: failure }),
  });

  // Off the hot path: the main thread reads this thread's CPU time at the window edges by its id.
  board.setThreadId(task.thread, currentThreadId() ?? 0);
  try {
    connection = await connectClient(task.client, {
      urls: [task.url],
      connectionName: task.connectionName,
      startBoundMs: task.connectBoundMs,
    });
    connection.onFault((fault) => fail(`connection lost (${fault.kind}): ${redactText(fault.message)}`));
  } catch (error) {
    fail(`could not connect: ${redactText(describeError(error))}`);
  } finally {
    // Counted even on failure, so the main thread never waits for a thread that cannot come.
    board.count(ConsumeControl.CONSUMERS_READY);
  }

  try {
    for (let phase = 1; connection && failure === undefined; phase += 1) {
      if (!(await board.waitFor(ConsumeControl.PHASE, phase, remainingMs(), ConsumeControl.STOP))) break;
      const consumers: Consumer[] = [];
      try {
        // All at once: one after the other, each start waits behind the deliveries of those already consuming.
        const started = await Promise.allSettled(
          Array.from({ length: task.consumers }, () =>
            // Only counts are read, each delivery acked as it comes: a client in another process acks and counts there.
            connection.consume(task.queue, { ack: 'manual', prefetch: task.prefetch, bodies: false }, onDelivery),
          ),
        );
        for (const result of started) if (result.status === 'fulfilled') consumers.push(result.value);
        const notStarted = started.find((result): result is PromiseRejectedResult => result.status === 'rejected');
        if (notStarted) throw notStarted.reason;
        phases += 1;
        board.count(ConsumeControl.CONSUMING);
        await board.waitFor(ConsumeControl.PHASE_END, phase, remainingMs(), ConsumeControl.STOP);
      } catch (error) {
        fail(`phase ${phase}: ${redactText(describeError(error))}`);
      } finally {
        await Promise.allSettled(consumers.map((consumer) => consumer.cancel()));
        board.count(ConsumeControl.CANCELLED);
      }
    }
    if (board.flag(ConsumeControl.STOP) === 0 && failure === undefined)
      fail(`no stop signal within the thread's lifetime bound (${task.lifetimeBoundMs} ms)`);
  } catch (error) {
    fail(redactText(describeError(error)));
  } finally {
    await connection?.close().catch(() => undefined);
  }
  return report();
}
