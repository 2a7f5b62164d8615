/**
 * One publish worker thread of a throughput session (a worker entry: `startThreadPool` loads
 * this module; one long-lived task per thread). It runs a block of logical publishers over one
 * connection of the client under test, one publisher (channel) each, with confirms in confirm
 * mode.
 *
 * Phases: connect, open the publishers, count ready -> for each round the main thread opens:
 * every logical publisher publishes its messages concurrently -> flush -> note the round's
 * first-publish and last-completion times -> count the round done -> on STOP, close and return
 * the report. Warm-up rounds are run the same way but not recorded in the histogram.
 *
 * Timing (monotonic clock, shared by every thread):
 * - latency, plain mode: the publish call, including the wait for the library's backpressure;
 * - latency, confirm mode: from the publish to the broker's confirm; each logical publisher
 *   waits for its confirm before its next publish, as a thread on a blocking client would;
 * - round: from the first publish to the end of the flush. In plain mode the flush is one round
 *   trip per publisher after its last publish (the broker handles a channel's frames in order,
 *   so the reply means it has taken every message); in confirm mode the last confirm is the flush.
 *
 * A publish not settled within the publish bound (a confirm the client never settles) stops its
 * publisher for the round, as it would leave a thread awaiting it waiting; the worker names it in
 * its report (`unsettled`) and counts it on the board, and the round ends within its own bound.
 */
import type { ClientConnection, ClientSpec, Publisher } from '../client/api';
import { BoundPassedError, SequenceBound } from '../client/bounded';
import { connectClient } from '../client/registry';
import { describeError } from '../errors';
import { nowNs } from '../measure/clock';
import { createLatencyHistogram, encodeHistogram, recordLatenciesUs, recordLatencyNs, type LatencyHistogram } from '../measure/histogram';
import { redactText } from '../redact';
import type { EncodedHistogram } from '../results/rawResult';
import { PublishBoard, PublishControl } from './publishBoard';
import type { PublishMode } from './plan';

export interface PublishTask {
  readonly worker: number;
  readonly workers: number;
  readonly buffer: SharedArrayBuffer;
  /** Broker URL (direct: throughput is measured without the fault proxy). */
  readonly url: string;
  readonly client: ClientSpec;
  readonly queue: string;
  readonly publishers: number;
  /** Index (0-based) of this worker's first logical publisher among every worker's. */
  readonly firstPublisher: number;
  readonly messagesPerThread: number;
  readonly messageSizeBytes: number;
  readonly mode: PublishMode;
  /** Rounds 1..warmupRounds are warm-up: run, timed, but kept out of the histogram. */
  readonly warmupRounds: number;
  /** Publishes per logical publisher in round `warmupRounds` (the session's own warm-up); `messagesPerThread` in every other. */
  readonly sessionWarmupMessagesPerThread: number;
  /** Bound on every wait of a phase: the barrier, one round, a flush. */
  readonly phaseBoundMs: number;
  /** Bound on one publish (its hand-over; in confirm mode, until its confirm), below `phaseBoundMs`. */
  readonly publishBoundMs: number;
}

/** A publish not settled within the publish bound: where its publisher stopped. */
export interface UnsettledPublish {
  readonly round: number;
  readonly warmup: boolean;
  /** The logical publisher, 1-based among every worker's (1 to the workload's threads). */
  readonly publisher: number;
  /** Its publish of the round, 1-based. */
  readonly publish: number;
}

/** What one worker did in one round. Times are `process.hrtime.bigint()` readings. */
export interface WorkerRound {
  readonly round: number;
  readonly startedNs: bigint;
  readonly completedNs: bigint;
  /** Publishes that went out without an error (plain) or were acked (confirm). */
  readonly published: number;
  readonly errors: number;
  /** Publishes not settled within the publish bound (each stopped its publisher for the round). */
  readonly unsettled: number;
}

export interface PublishWorkerReport {
  readonly worker: number;
  readonly rounds: readonly WorkerRound[];
  /** Latencies of the measured (non-warm-up) rounds, in µs. */
  readonly histogram: EncodedHistogram;
  /** Up to five distinct error descriptions, for the result's details. */
  readonly errorSamples: readonly string[];
  /** Every publish that did not settle within the publish bound. */
  readonly unsettled: readonly UnsettledPublish[];
  /** Set when the worker gave up (could not connect, or lost its connection). */
  readonly fatal?: string;
}

export default async function publishThread(task: PublishTask): Promise<PublishWorkerReport> {
  const board = new PublishBoard(task.workers, task.buffer);
  const histogram = createLatencyHistogram();
  const rounds: WorkerRound[] = [];
  const errorSamples = new Set<string>();
  const unsettled: UnsettledPublish[] = [];
  const noteError = (error: unknown): void => {
    if (errorSamples.size < 5) errorSamples.add(redactText(describeError(error)));
  };
  let connection: ClientConnection | undefined;
  let connectionLost: string | undefined;
  const report = (fatal?: string): PublishWorkerReport => ({
    worker: task.worker,
    rounds,
    histogram: encodeHistogram(histogram),
    errorSamples: [...errorSamples],
    unsettled,
    ...(fatal === undefined ? {} : { fatal }),
  });

  let publishers: Publisher[];
  try {
    try {
      const connected = await connectClient(task.client, { urls: [task.url], startBoundMs: task.phaseBoundMs });
      connection = connected;
      connected.onFault((fault) => {
        connectionLost ??= `connection lost (${fault.kind}): ${fault.message}`;
      });
      publishers = await Promise.all(
        Array.from({ length: task.publishers }, () => connected.publisher({ confirms: task.mode === 'confirm' })),
      );
    } catch (error) {
      board.count(PublishControl.FAILED);
      return report(`could not connect and open ${task.publishers} publishers: ${redactText(describeError(error))}`);
    } finally {
      // Counted even on failure, so the main thread never waits for a worker that cannot come.
      board.count(PublishControl.READY);
    }

    const payload = Buffer.alloc(task.messageSizeBytes, 0x61);
    for (let round = 1; ; round += 1) {
      const opened = await board.waitFor(PublishControl.GO, round, task.phaseBoundMs, PublishControl.STOP);
      if (!opened) return report(board.flag(PublishControl.STOP) !== 0 ? undefined : `round ${round} was never opened`);
      const record = round > task.warmupRounds ? histogram : undefined;
      const messages = round === task.warmupRounds ? task.sessionWarmupMessagesPerThread : task.messagesPerThread;
      const startedNs = nowNs();
      const live = connection;
      // Cut by the main thread at the round's bound: publishers stop before their next publish.
      const cut = (): boolean => board.flag(PublishControl.CUT) >= round;
      const outcomes = await Promise.all(
        publishers.map((publisher) => publishMessages(publisher, live, task, payload, { messages, record, noteError, cut })),
      );
      const flushErrors = task.mode === 'plain' ? await flush(publishers, task.phaseBoundMs, noteError) : 0;
      const completedNs = nowNs();
      unsettled.push(...unsettledOf(outcomes, task.firstPublisher, round, record === undefined));
      const finished: WorkerRound = {
        round,
        startedNs,
        completedNs,
        published: outcomes.reduce((sum, outcome) => sum + outcome.published, 0),
        errors: outcomes.reduce((sum, outcome) => sum + outcome.errors, flushErrors),
        unsettled: outcomes.filter((outcome) => outcome.unsettledPublish !== undefined).length,
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
    await connection?.close();
  }
}

interface PublisherOutcome {
  published: number;
  errors: number;
  /** The publish (1-based) not settled within the publish bound, where the publisher stopped. */
  unsettledPublish?: number;
}

/** The publishes of a round's publishers (this worker's, from `firstPublisher`) that never settled. */
function unsettledOf(outcomes: readonly PublisherOutcome[], firstPublisher: number, round: number, warmup: boolean): UnsettledPublish[] {
  return outcomes.flatMap((outcome, index) =>
    outcome.unsettledPublish === undefined
      ? []
      : [{ round, warmup, publisher: firstPublisher + index + 1, publish: outcome.unsettledPublish }],
  );
}

interface RoundHooks {
  /** Publishes of this publisher in the round. */
  readonly messages: number;
  /** Where the round's latencies go; undefined in a warm-up round. */
  readonly record: LatencyHistogram | undefined;
  readonly noteError: (error: unknown) => void;
  /** True once the main thread has cut the round at its bound. */
  readonly cut: () => boolean;
}

/**
 * One logical publisher's round: `messages` publishes on its own channel, or fewer when
 * the round is cut at its bound (the publish in flight still settles and counts).
 */
async function publishMessages(
  publisher: Publisher,
  connection: ClientConnection,
  task: PublishTask,
  payload: Buffer,
  { messages, record: histogram, noteError, cut }: RoundHooks,
): Promise<PublisherOutcome> {
  // A client in another process publishes the round in its own process and times each publish there
  // (never one message per pipe line); its run ends at its own bound, the round's, so it is not cut here.
  if (publisher.publishRun) return publishRunOf(publisher.publishRun.bind(publisher), task, messages, histogram, noteError);
  const outcome: PublisherOutcome = { published: 0, errors: 0 };
  // Bounded: a confirm may never come, and a client may hold a publish while it is down.
  const bound = new SequenceBound(
    task.publishBoundMs,
    `no ${task.mode === 'confirm' ? 'confirm' : 'hand-over'} within ${task.publishBoundMs} ms`,
  );
  try {
    for (let i = 0; i < messages && !cut(); i += 1) {
      const startedNs = nowNs();
      try {
        await bound.wait(publisher.publish('', task.queue, payload));
      } catch (error) {
        // Never settled: a thread awaiting it would still be waiting, so this publisher makes no more.
        if (error instanceof BoundPassedError) {
          outcome.unsettledPublish = i + 1;
          break;
        }
        outcome.errors += 1;
        noteError(error);
        // A lost connection fails every later publish the same way: stop this publisher.
        if (connection.state !== 'up') {
          outcome.errors += messages - i - 1;
          break;
        }
        continue;
      }
      if (histogram) recordLatencyNs(histogram, nowNs() - startedNs);
      outcome.published += 1;
    }
  } finally {
    bound.stop();
  }
  return outcome;
}

/** One logical publisher's round, published and timed inside the client's own process. */
async function publishRunOf(
  publishRun: NonNullable<Publisher['publishRun']>,
  task: PublishTask,
  messages: number,
  histogram: LatencyHistogram | undefined,
  noteError: (error: unknown) => void,
): Promise<PublisherOutcome> {
  try {
    const run = await publishRun('', task.queue, messages, task.messageSizeBytes, task.phaseBoundMs, task.publishBoundMs);
    if (histogram) recordLatenciesUs(histogram, run.latencyUs.valuesUs, run.latencyUs.counts);
    run.errorSamples.forEach(noteError);
    return {
      published: run.published,
      errors: run.errors,
      ...(run.unsettledPublish === undefined ? {} : { unsettledPublish: run.unsettledPublish }),
    };
  } catch (error) {
    noteError(error);
    return { published: 0, errors: messages };
  }
}

/**
 * One round trip per publisher: the broker has handled every message sent before it. Returns
 * the number of publishers whose round trip failed or did not return within the bound.
 */
async function flush(publishers: readonly Publisher[], boundMs: number, noteError: (error: unknown) => void): Promise<number> {
  const settled = await Promise.allSettled(publishers.map((publisher) => publisher.flush(boundMs)));
  const failed = settled.filter((result): result is PromiseRejectedResult => result.status === 'rejected');
  for (const failure of failed) noteError(`flush: ${describeError(failure.reason)}`);
  return failed.length;
}
