/**
 * The start fill of a sustained consume session: exactly `messages` fixed-size messages put in the
 * session's queue before any producer thread publishes or any consumer consumes, then the broker's
 * count of ready messages checked to be exactly that. Harness traffic, not the client under test:
 * plain amqplib, `connections` connections of the main thread (one channel each), plain publishes
 * through the default exchange in large batches, honouring backpressure ('drain'), and one closing
 * round trip per channel (the broker handles a channel's frames in order: the reply means it has
 * taken every message before it). No confirms: the count check is what proves the fill: the
 * broker's ready count must reach the number published and still be exactly that a moment later.
 *
 * Why not the paced producer threads (./loadProducerThread.ts), which filled it before: they look
 * at the depth estimate every 100 messages and keep one marker in flight, which a queue that only
 * grows does not need; filling 118,125 messages of 256 B took them 3.2-3.6 s (5.9 s once), against
 * 2.5-2.9 s (3.5 s once) for two connections of the main thread, in turns on a busy 2-core machine.
 * What the phase measures is unchanged: it starts once the queue holds the start depth, as before,
 * and the producer threads keep it between the watermarks from then on.
 */
import amqp, { type Channel, type ChannelModel } from 'amqplib';
import { closeBounded, socketOf } from '../client/amqplib/common';
import { WorkerError } from '../errors';
import { sleep } from '../measure/clock';

export interface QueueFillOptions {
  /** Broker URL (direct). */
  readonly url: string;
  readonly queue: string;
  /** Messages the queue must hold once filled (it must be empty before, with nothing else publishing or consuming). */
  readonly messages: number;
  readonly messageSizeBytes: number;
  /** Shown by the broker as `connection_name`, with `-<n>` appended (a session's leak check finds them). */
  readonly connectionName: string;
  /** @default 2 */
  readonly connections?: number;
  /** Bound on connecting, and on each wait for the broker (a 'drain', the closing round trip). @default 10000 */
  readonly boundMs?: number;
  /** Called with each batch handed to a connection (the session counts it on its board). */
  readonly onPublished?: (messages: number) => void;
  /** The broker's ready count of `queue` (the check). */
  readonly readyCount: () => Promise<number>;
  /** True once whoever asked for the fill gave up on it (a session closed meanwhile): the fill stops at the next batch and throws. */
  readonly abandoned?: () => boolean;
}

export interface QueueFillOutcome {
  /** Messages published, all taken by the broker, and the queue's ready count after (equal, or the fill throws). */
  readonly messages: number;
  readonly connections: number;
  /** From the first connect to the count checked. */
  readonly fillMs: number;
}

/** Messages handed to a connection between two turns of the event loop (the socket writes, events run). */
const FILL_BATCH_MESSAGES = 1000;
/** How often the count is read while it catches up with the fill. */
const COUNT_POLL_MS = 5;
/** The second look at a count that reached the fill's: far longer than the queue takes to handle what is left in its mailbox. */
const SETTLE_MS = 50;

/**
 * Fills the queue as described above.
 * @throws WorkerError when a connection fails, the broker does not take the messages within the bounds, or the queue then holds another count.
 * @example await fillQueue({ url, queue, messages: 118_125, messageSizeBytes: 256, connectionName: 'x-fill', readyCount: () => admin.messagesLeft(queue) })
 */
export async function fillQueue(options: QueueFillOptions): Promise<QueueFillOutcome> {
  const connections = options.connections ?? 2;
  const boundMs = options.boundMs ?? 10_000;
  if (!Number.isInteger(options.messages) || options.messages < 0)
    throw new RangeError(`messages must be a whole number; got ${options.messages}`);
  const startedMs = Date.now();
  const models: ChannelModel[] = [];
  try {
    const channels = await Promise.all(
      Array.from({ length: connections }, async (_, index) => {
        const model = await amqp.connect(options.url, {
          noDelay: true,
          timeout: boundMs,
          clientProperties: { connection_name: `${options.connectionName}-${index}` },
        });
        models.push(model);
        model.on('error', () => undefined);
        const channel = await model.createChannel();
        channel.on('error', () => undefined);
        return channel;
      }),
    );
    const payload = Buffer.alloc(options.messageSizeBytes, 0x61);
    const shares = channels.map(
      (_, index) => Math.floor(options.messages / connections) + (index < options.messages % connections ? 1 : 0),
    );
    await Promise.all(channels.map((channel, index) => publishShare(channel, options, payload, shares[index]!, boundMs)));
    const ready = await settledCount(options, boundMs);
    if (ready !== options.messages)
      throw new WorkerError(
        `the start fill published ${options.messages} messages to ${options.queue}, but the broker counts ${ready} ready there`,
      );
    return { messages: options.messages, connections, fillMs: Date.now() - startedMs };
  } catch (error) {
    if (error instanceof WorkerError) throw error;
    throw new WorkerError(`the start fill of ${options.queue} failed: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    });
  } finally {
    await Promise.all(models.map((model) => closeBounded(model, socketOf(model), 2000)));
  }
}

/** Publishes `share` messages on `channel`, then waits for the broker to have taken them all. */
async function publishShare(channel: Channel, options: QueueFillOptions, payload: Buffer, share: number, boundMs: number): Promise<void> {
  for (let sent = 0; sent < share;) {
    if (options.abandoned?.()) throw new Error(`abandoned after ${sent} of this connection's ${share} messages`);
    const batch = Math.min(FILL_BATCH_MESSAGES, share - sent);
    for (let index = 0; index < batch; index += 1) {
      if (!channel.sendToQueue(options.queue, payload))
        await bounded(new Promise((resolve) => channel.once('drain', resolve)), boundMs, "no 'drain'");
    }
    sent += batch;
    options.onPublished?.(batch);
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  // Always there: a passive check of it is a cheap round trip behind the channel's publishes.
  await bounded(channel.checkExchange('amq.direct'), boundMs, 'no reply to the closing round trip');
}

/**
 * The queue's ready count once it has every message of the fill: polled until it reaches the fill's
 * count (the queue answers a count ahead of deliveries still in its mailbox, so the first reads can
 * be short even after the closing round trips), then read again `SETTLE_MS` later, so that a message
 * too many still on its way shows.
 */
async function settledCount(options: QueueFillOptions, boundMs: number): Promise<number> {
  const deadline = Date.now() + boundMs;
  let ready = await options.readyCount();
  while (ready < options.messages && Date.now() < deadline) {
    await sleep(COUNT_POLL_MS);
    ready = await options.readyCount();
  }
  if (ready !== options.messages) return ready;
  await sleep(SETTLE_MS);
  return options.readyCount();
}

async function bounded<T>(promise: Promise<T>, boundMs: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} within ${boundMs} ms`)), boundMs))),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
