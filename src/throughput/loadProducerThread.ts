/**
 * One harness producer thread of a sustained consume session (a worker entry: `startThreadPool`
 * loads this module). Harness traffic, not the client under test: plain amqplib, one
 * connection, one channel, plain publishes of fixed-size messages to the session's queue through
 * the default exchange, honouring backpressure ('drain') and never far ahead of the broker
 * (`InFlightBound`).
 *
 * It keeps the queue between the watermarks (./watermarks.ts): publishes in small batches while
 * filling, checks the depth estimate after each batch, and polls every millisecond or two while
 * paused. Every message is counted on the board as it is handed to the connection.
 *
 * Phases: connect, count ready -> wait for the session's start fill (FILLED) -> pace until PRODUCE_STOP or STOP -> on PRODUCE_STOP alone (a
 * drain), the last marker and one more round trip (the broker handles a channel's frames in order:
 * the reply means it has taken every message) -> count done -> close. Never throws: a failure is
 * in the report's `error` and counted FAILED.
 */
import amqp, { type Channel, type ChannelModel } from 'amqplib';
import { closeBounded, socketOf } from '../client/amqplib/common';
import { describeError } from '../errors';
import { sleep } from '../measure/clock';
import { redactText } from '../redact';
import { ConsumeBoard, ConsumeControl, type ConsumeBoardLayout } from './consumeBoard';
import { nextProducerState, type ProducerState, type Watermarks } from './watermarks';

export interface LoadProducerTask {
  readonly producer: number;
  readonly buffer: SharedArrayBuffer;
  readonly layout: ConsumeBoardLayout;
  /** Broker URL (direct). */
  readonly url: string;
  readonly queue: string;
  readonly messageSizeBytes: number;
  readonly watermarks: Watermarks;
  /** Shown by the broker as `connection_name` (the session's leak check finds it). */
  readonly connectionName: string;
  readonly connectTimeoutMs: number;
  /** Bound on the whole task, start to the stop signal. */
  readonly lifetimeBoundMs: number;
}

export interface LoadProducerReport {
  readonly producer: number;
  /** Messages handed to the connection (all taken by the broker when `flushed`). */
  readonly published: number;
  /** The closing round trip came back: the broker has every message published. */
  readonly flushed: boolean;
  /** Times it paused at the high watermark. */
  readonly pauses: number;
  readonly error?: string;
}

/** Messages per batch between two looks at the depth estimate: small against the watermarks' gap. */
const BATCH_MESSAGES = 100;
/** Poll interval while paused: a small fraction of the time consumers take to drain the low mark. */
const PAUSED_POLL_MS = 1;
/** Bound on one round trip (a marker, or the closing one): the broker takes what is in flight in far less. */
const ROUND_TRIP_BOUND_MS = 30_000;
/** Bytes published between two markers (see `InFlightBound`), at most 1000 messages: far more than a round trip's worth at full speed. */
const MARK_EVERY_BYTES = 4 * 1024 * 1024;
/** Always-present exchange: a passive check of it is a cheap round trip through the channel, behind its publishes. */
const ALWAYS_THERE = 'amq.direct';

/** The producer's connection; `lost` says why it went, once it has. */
interface ProducerLink {
  model?: ChannelModel;
  channel?: Channel;
  lost?: string;
}

/** What the report counts, updated as the producer goes. */
interface ProducerCounts {
  published: number;
  pauses: number;
  flushed: boolean;
}

export default async function runLoadProducer(task: LoadProducerTask): Promise<LoadProducerReport> {
  const board = new ConsumeBoard(task.layout, task.buffer);
  const deadline = Date.now() + task.lifetimeBoundMs;
  const counts: ProducerCounts = { published: 0, pauses: 0, flushed: false };
  const report = (error?: string): LoadProducerReport => ({
    producer: task.producer,
    published: counts.published,
    flushed: counts.flushed,
    pauses: counts.pauses,
    ...(error === undefined ? {} : { error }),
  });
  const link: ProducerLink = {};
  try {
    await connectProducer(task, link);
  } catch (error) {
    board.count(ConsumeControl.PRODUCERS_FAILED);
    await closeBounded(link.model, socketOf(link.model));
    return report(`could not connect: ${redactText(describeError(error))}`);
  } finally {
    // Counted even on failure, so the main thread never waits for a producer that cannot come.
    board.count(ConsumeControl.PRODUCERS_READY);
  }
  try {
    // The session's start fill goes first (./queueFill.ts): the queue must hold exactly its count before anyone else publishes.
    if (
      !(await board.waitFor(ConsumeControl.FILLED, 1, Math.max(1, deadline - Date.now()), ConsumeControl.STOP)) &&
      board.flag(ConsumeControl.STOP) === 0
    )
      throw new Error(`the start fill was not done within the producer's lifetime bound (${task.lifetimeBoundMs} ms)`);
    await produceUntilStopped(task, board, link, counts, deadline);
    board.count(ConsumeControl.PRODUCERS_DONE);
    return report();
  } catch (error) {
    board.count(ConsumeControl.PRODUCERS_FAILED);
    return report(redactText(describeError(error)));
  } finally {
    await closeBounded(link.model, socketOf(link.model), 2000);
  }
}

async function connectProducer(task: LoadProducerTask, link: ProducerLink): Promise<void> {
  const model = await amqp.connect(task.url, {
    noDelay: true,
    timeout: task.connectTimeoutMs,
    clientProperties: { connection_name: task.connectionName },
  });
  link.model = model;
  model.on('error', (error: Error) => {
    link.lost ??= `connection error: ${error.message}`;
  });
  model.on('close', () => {
    link.lost ??= 'connection closed';
  });
  const channel = await model.createChannel();
  link.channel = channel;
  channel.on('error', (error: Error) => {
    link.lost ??= `channel error: ${error.message}`;
  });
}

/** Keeps the queue between the watermarks until PRODUCE_STOP or STOP; on PRODUCE_STOP alone, flushes. */
async function produceUntilStopped(
  task: LoadProducerTask,
  board: ConsumeBoard,
  link: ProducerLink,
  counts: ProducerCounts,
  deadline: number,
): Promise<void> {
  const channel = link.channel;
  if (!channel) throw new Error('the producer has no channel');
  const payload = Buffer.alloc(task.messageSizeBytes, 0x61);
  const stopping = () => board.flag(ConsumeControl.PRODUCE_STOP) !== 0 || board.flag(ConsumeControl.STOP) !== 0;
  const inFlight = new InFlightBound(
    channel,
    Math.max(50, Math.min(1000, Math.floor(MARK_EVERY_BYTES / Math.max(1, task.messageSizeBytes)))),
  );
  let state: ProducerState = 'filling';
  while (!stopping()) {
    if (link.lost !== undefined) throw new Error(link.lost);
    if (Date.now() > deadline) throw new Error(`no stop signal within the producer's lifetime bound (${task.lifetimeBoundMs} ms)`);
    const next = nextProducerState(state, board.estimatedDepth(), task.watermarks);
    if (next === 'paused' && state === 'filling') counts.pauses += 1;
    state = next;
    if (state === 'paused') {
      await sleep(PAUSED_POLL_MS);
      continue;
    }
    // Never more than the high mark allows: with small watermarks a whole batch would overshoot them.
    const batch = Math.min(BATCH_MESSAGES, Math.max(1, task.watermarks.highMessages - board.estimatedDepth()));
    for (let sent = 0; sent < batch; sent += 1) {
      const accepted = channel.sendToQueue(task.queue, payload);
      counts.published += 1;
      board.countPublished(task.producer);
      if (!accepted) await whenDrained(channel, Math.max(1, deadline - Date.now()));
      const behind = inFlight.published();
      if (behind) await behind;
    }
    // Let the socket write and the connection's events run between batches.
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  // The account (PRODUCE_STOP alone) needs the broker to have everything; a session closing (STOP) does not wait for it.
  if (board.flag(ConsumeControl.STOP) === 0) {
    await inFlight.flush();
    counts.flushed = true;
  }
}

/**
 * Keeps what this producer has published but the broker has not yet taken to about two markers'
 * worth of messages. Without it, socket buffers on both sides hold tens of thousands of messages
 * the depth estimate cannot see: producers overshoot the high mark by that much, and a closing
 * round trip waits behind all of them. Every `markEvery` messages a round trip is sent behind
 * them (its reply means the broker's channel has handled everything before it), and the previous
 * one is awaited: the producer runs at most one marker ahead of the broker.
 */
class InFlightBound {
  private sinceMarker = 0;
  private pending: Promise<unknown> | undefined;

  constructor(
    private readonly channel: Channel,
    private readonly markEvery: number,
  ) {}

  /** Call after each publish; every `markEvery`-th call gives a wait (bounded) for the previous marker, else nothing (the hot path stays synchronous). */
  published(): Promise<unknown> | undefined {
    this.sinceMarker += 1;
    if (this.sinceMarker < this.markEvery) return undefined;
    this.sinceMarker = 0;
    const previous = this.pending;
    this.pending = this.channel.checkExchange(ALWAYS_THERE);
    this.pending.catch(() => undefined);
    return previous && withinBound(previous, ROUND_TRIP_BOUND_MS, `the broker took no message for ${ROUND_TRIP_BOUND_MS} ms`);
  }

  /** Resolves once the broker has handled every message published so far. */
  async flush(): Promise<void> {
    if (this.pending) await withinBound(this.pending, ROUND_TRIP_BOUND_MS, `a marker did not return within ${ROUND_TRIP_BOUND_MS} ms`);
    await withinBound(
      this.channel.checkExchange(ALWAYS_THERE),
      ROUND_TRIP_BOUND_MS,
      `the closing round trip did not return within ${ROUND_TRIP_BOUND_MS} ms`,
    );
  }
}

/** `promise`, or a rejection with `message` after `boundMs` (a dead peer never answers). */
async function withinBound<T>(promise: Promise<T>, boundMs: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  promise.catch(() => undefined);
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(message)), boundMs))),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Resolves on the channel's 'drain'; rejects when it closes first or the bound passes. */
function whenDrained(channel: Channel, boundMs: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const done = (error?: Error): void => {
      clearTimeout(timer);
      channel.off('drain', onDrain);
      channel.off('close', onClose);
      if (error) reject(error);
      else resolve();
    };
    const onDrain = (): void => done();
    const onClose = (): void => done(new Error('channel closed while waiting for drain'));
    const timer = setTimeout(() => done(new Error(`no 'drain' within ${boundMs} ms`)), boundMs);
    channel.on('drain', onDrain);
    channel.on('close', onClose);
  });
}
