/**
 * How logical consumers are spread over a bounded worker pool (pure). Hundreds of consumers
 * must not mean hundreds of OS threads: consumers go to at most `maxThreads` threads, each
 * thread holds one or a few connections, and each connection one channel per consumer.
 */

/** One worker thread's share: consumers per connection, in order. */
export interface ThreadPlan {
  readonly thread: number;
  /** Consumers (= channels) on each of the thread's connections. */
  readonly connections: readonly number[];
  /** Index of the thread's first logical consumer (consumers are numbered across threads). */
  readonly firstConsumer: number;
  readonly consumers: number;
}

export interface ConsumerPlanOptions {
  /** Upper bound on worker threads. */
  readonly maxThreads: number;
  /** Upper bound on channels (consumers) per connection. */
  readonly maxChannelsPerConnection: number;
}

/**
 * `total` split into `parts` integer sizes that differ by at most one, larger ones first.
 * @example splitEvenly(10, 4) // => [3, 3, 2, 2]
 */
export function splitEvenly(total: number, parts: number): number[] {
  if (!Number.isInteger(total) || total < 0) throw new RangeError(`total must be a non-negative integer; got ${total}`);
  if (!Number.isInteger(parts) || parts < 1) throw new RangeError(`parts must be a positive integer; got ${parts}`);
  const base = Math.floor(total / parts);
  const extra = total % parts;
  return Array.from({ length: parts }, (_, index) => base + (index < extra ? 1 : 0));
}

/** Consecutive ranges `[start, start + count)` covering `count` items from `start`, split evenly. */
export function partitionRange(start: number, count: number, parts: number): { start: number; count: number }[] {
  let next = start;
  return splitEvenly(count, parts).map((size) => {
    const range = { start: next, count: size };
    next += size;
    return range;
  });
}

/**
 * Spreads `consumers` over `min(consumers, maxThreads)` threads as evenly as possible, then
 * each thread's share over as few connections as `maxChannelsPerConnection` allows (also even).
 * @throws RangeError for a non-positive consumer count or bound.
 * @example
 * planConsumers(900, { maxThreads: 4, maxChannelsPerConnection: 128 })
 * // => 4 threads of 225 consumers, each on 2 connections of 113 + 112 channels
 */
export function planConsumers(consumers: number, options: ConsumerPlanOptions): ThreadPlan[] {
  if (!Number.isInteger(consumers) || consumers < 1) throw new RangeError(`consumers must be a positive integer; got ${consumers}`);
  if (!Number.isInteger(options.maxThreads) || options.maxThreads < 1)
    throw new RangeError(`maxThreads must be a positive integer; got ${options.maxThreads}`);
  if (!Number.isInteger(options.maxChannelsPerConnection) || options.maxChannelsPerConnection < 1) {
    throw new RangeError(`maxChannelsPerConnection must be a positive integer; got ${options.maxChannelsPerConnection}`);
  }
  const threads = Math.min(consumers, options.maxThreads);
  let firstConsumer = 0;
  return splitEvenly(consumers, threads).map((share, thread) => {
    const connections = splitEvenly(share, Math.ceil(share / options.maxChannelsPerConnection));
    const plan = { thread, connections, firstConsumer, consumers: share };
    firstConsumer += share;
    return plan;
  });
}
