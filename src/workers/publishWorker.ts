/**
 * One publish worker thread of a throughput session (piscina task; one long-lived task per
 * thread). It runs a block of logical publishers over one connection, one channel each (a
 * confirm channel in confirm mode).
 *
 * Phases: connect, open the channels, count ready -> for each round the main thread opens:
 * every logical publisher publishes its messages concurrently on its channel -> flush -> note
 * the round's first-publish and last-completion times -> count the round done -> on STOP, close
 * and return the report. Warm-up rounds are run the same way but not recorded in the histogram.
 *
 * Timing (monotonic clock, shared by every thread):
 * - latency, plain mode: the `publish()` call, including the wait for 'drain' when it returned
 *   false (backpressure);
 * - latency, confirm mode: from `publish()` to the broker's confirm; each logical publisher
 *   waits for its confirm before its next publish, as a thread on a blocking client would;
 * - round: from the first publish to the end of the flush. In plain mode the flush is one
 *   synchronous round trip per channel after its last publish (the broker handles a channel's
 *   frames in order, so the reply means it has taken every message); in confirm mode the last
 *   confirm is the flush.
 */
import { closeBounded, socketOf } from '../client/amqplibTopology';
import amqp, { type Channel, type ChannelModel, type ConfirmChannel } from 'amqplib';
import { describeError } from '../errors';
import { nowNs } from '../measure/clock';
import { createLatencyHistogram, encodeHistogram, recordLatencyNs, type LatencyHistogram } from '../measure/histogram';
import { redactText } from '../redact';
import type { EncodedHistogram } from '../results/rawResult';
import { PublishBoard, PublishControl } from '../throughput/publishBoard';
import type { PublishMode } from '../throughput/plan';

export interface PublishTask {
  readonly worker: number;
  readonly workers: number;
  readonly buffer: SharedArrayBuffer;
  /** Broker URL (direct: throughput is measured without the fault proxy). */
  readonly url: string;
  readonly queue: string;
  readonly publishers: number;
  readonly messagesPerThread: number;
  readonly messageSizeBytes: number;
  readonly mode: PublishMode;
  /** Rounds 1..warmupRounds are warm-up: run, timed, but kept out of the histogram. */
  readonly warmupRounds: number;
  readonly connectTimeoutMs: number;
  /** Bound on every wait: the barrier, one round, a drain, a confirm. */
  readonly phaseBoundMs: number;
}

/** What one worker did in one round. Times are `process.hrtime.bigint()` readings. */
export interface WorkerRound {
  readonly round: number;
  readonly startedNs: bigint;
  readonly completedNs: bigint;
  /** Publishes that went out without an error (plain) or were acked (confirm). */
  readonly published: number;
  readonly errors: number;
}

export interface PublishWorkerReport {
  readonly worker: number;
  readonly rounds: readonly WorkerRound[];
  /** Latencies of the measured (non-warm-up) rounds, in µs. */
  readonly histogram: EncodedHistogram;
  /** Up to five distinct error descriptions, for the result's details. */
  readonly errorSamples: readonly string[];
  /** Set when the worker gave up (could not connect, or lost its connection). */
  readonly fatal?: string;
}

type AnyChannel = Channel | ConfirmChannel;

export default async function publishWorker(task: PublishTask): Promise<PublishWorkerReport> {
  const board = new PublishBoard(task.workers, task.buffer);
  const histogram = createLatencyHistogram();
  const rounds: WorkerRound[] = [];
  const errorSamples = new Set<string>();
  const noteError = (error: unknown): void => {
    if (errorSamples.size < 5) errorSamples.add(redactText(describeError(error)));
  };
  let model: ChannelModel | undefined;
  let connectionLost: string | undefined;
  const report = (fatal?: string): PublishWorkerReport => ({
    worker: task.worker,
    rounds,
    histogram: encodeHistogram(histogram),
    errorSamples: [...errorSamples],
    ...(fatal === undefined ? {} : { fatal }),
  });

  let channels: AnyChannel[];
  try {
    try {
      model = await amqp.connect(task.url, { noDelay: true, timeout: task.connectTimeoutMs });
      model.on('error', (error: Error) => {
        connectionLost ??= `connection error: ${error.message}`;
      });
      model.on('close', () => {
        connectionLost ??= 'connection closed';
      });
      const opened = model;
      channels = await Promise.all(
        Array.from({ length: task.publishers }, async () => {
          const channel: AnyChannel = task.mode === 'confirm' ? await opened.createConfirmChannel() : await opened.createChannel();
          // A channel-level error would otherwise be an unhandled 'error' event.
          channel.on('error', (error: Error) => noteError(`channel error: ${error.message}`));
          return channel;
        }),
      );
    } catch (error) {
      board.count(PublishControl.FAILED);
      return report(`could not connect and open ${task.publishers} channels: ${redactText(describeError(error))}`);
    } finally {
      // Counted even on failure, so the main thread never waits for a worker that cannot come.
      board.count(PublishControl.READY);
    }

    const payload = Buffer.alloc(task.messageSizeBytes, 0x61);
    for (let round = 1; ; round += 1) {
      const opened = await board.waitFor(PublishControl.GO, round, task.phaseBoundMs, PublishControl.STOP);
      if (!opened) return report(board.flag(PublishControl.STOP) !== 0 ? undefined : `round ${round} was never opened`);
      const record = round > task.warmupRounds ? histogram : undefined;
      const startedNs = nowNs();
      const outcomes = await Promise.all(channels.map((channel) => publishMessages(channel, task, payload, record, noteError)));
      const flushErrors = task.mode === 'plain' ? await flush(channels, task.queue, task.phaseBoundMs, noteError) : 0;
      const completedNs = nowNs();
      const finished: WorkerRound = {
        round,
        startedNs,
        completedNs,
        published: outcomes.reduce((sum, outcome) => sum + outcome.published, 0),
        errors: outcomes.reduce((sum, outcome) => sum + outcome.errors, flushErrors),
      };
      rounds.push(finished);
      board.writeRound(task.worker, finished);
      if (connectionLost !== undefined) {
        board.count(PublishControl.FAILED);
        board.count(PublishControl.DONE);
        return report(connectionLost);
      }
      board.count(PublishControl.DONE);
    }
  } catch (error) {
    board.count(PublishControl.FAILED);
    return report(redactText(describeError(error)));
  } finally {
    await closeBounded(model, socketOf(model), 2000);
  }
}

interface PublisherOutcome {
  published: number;
  errors: number;
}

/** One logical publisher's round: `messagesPerThread` publishes on its own channel. */
async function publishMessages(
  channel: AnyChannel,
  task: PublishTask,
  payload: Buffer,
  histogram: LatencyHistogram | undefined,
  noteError: (error: unknown) => void,
): Promise<PublisherOutcome> {
  const outcome: PublisherOutcome = { published: 0, errors: 0 };
  for (let i = 0; i < task.messagesPerThread; i += 1) {
    const startedNs = nowNs();
    try {
      if (task.mode === 'confirm') await publishConfirmed(channel as ConfirmChannel, task.queue, payload, task.phaseBoundMs);
      else if (!channel.sendToQueue(task.queue, payload)) await waitForDrain(channel, task.phaseBoundMs);
    } catch (error) {
      outcome.errors += 1;
      noteError(error);
      // A closed channel fails every later publish the same way: stop this publisher.
      if (isChannelGone(error)) {
        outcome.errors += task.messagesPerThread - i - 1;
        break;
      }
      continue;
    }
    if (histogram) recordLatencyNs(histogram, nowNs() - startedNs);
    outcome.published += 1;
  }
  return outcome;
}

function publishConfirmed(channel: ConfirmChannel, queue: string, payload: Buffer, boundMs: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no confirm within ${boundMs} ms`)), boundMs);
    try {
      channel.sendToQueue(queue, payload, {}, (error) => {
        clearTimeout(timer);
        if (error) reject(error instanceof Error ? error : new Error(`publish nacked by the broker: ${String(error)}`));
        else resolve();
      });
    } catch (error) {
      clearTimeout(timer);
      reject(error);
    }
  });
}

/** Waits for the channel's 'drain' (its write buffer emptied); rejects if it closes or the bound passes. */
function waitForDrain(channel: AnyChannel, boundMs: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const done = (error?: Error): void => {
      clearTimeout(timer);
      channel.off('drain', onDrain);
      channel.off('close', onClose);
      if (error) reject(error);
      else resolve();
    };
    const onDrain = (): void => done();
    const onClose = (): void => done(new ChannelGoneError('channel closed while waiting for drain'));
    const timer = setTimeout(() => done(new Error(`no 'drain' within ${boundMs} ms`)), boundMs);
    channel.on('drain', onDrain);
    channel.on('close', onClose);
  });
}

/**
 * One synchronous round trip per channel: the broker has handled every frame sent before it.
 * Returns the number of channels whose round trip failed or did not return within the bound.
 */
async function flush(
  channels: readonly AnyChannel[],
  queue: string,
  boundMs: number,
  noteError: (error: unknown) => void,
): Promise<number> {
  let pending = channels.length;
  let failed = 0;
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, boundMs);
  });
  const trips = channels.map((channel) =>
    channel.checkQueue(queue).then(
      () => {
        pending -= 1;
      },
      (error: unknown) => {
        pending -= 1;
        failed += 1;
        noteError(error);
      },
    ),
  );
  await Promise.race([Promise.all(trips), bound]);
  clearTimeout(timer);
  if (pending > 0) noteError(`flush: ${pending} channel round trips did not return within ${boundMs} ms`);
  return failed + pending;
}

class ChannelGoneError extends Error {}

function isChannelGone(error: unknown): boolean {
  return (
    error instanceof ChannelGoneError ||
    (error instanceof Error && (error.name === 'IllegalOperationError' || /closed/i.test(error.message)))
  );
}
