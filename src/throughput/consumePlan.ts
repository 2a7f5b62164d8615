/**
 * What a sustained consume session does, resolved once from its input (pure): how many consumers
 * of the client under test on how many worker threads, with which prefetch, fed by how many
 * harness producer threads with messages of what size, which queue depths the producers keep
 * (watermarks), and how long the warm-up and each measured window last.
 *
 * In the spirit of RabbitMQ PerfTest: producers keep the queue non-empty, consumers ack every
 * delivery manually within a prefetch window, and the rate is counted on the consumers' side
 * over windows of steady state, the warm-up excluded.
 */
import { ConfigError } from '../errors';
import { splitEvenly } from '../suite-kit/distribution';
import { nonNegativeInteger, positiveInteger, sizeLabel } from './plan';
import { startDepthFor, watermarksFor, type Watermarks } from './watermarks';

export interface ConsumeWorkloadInput {
  /** Consumers of the client under test (one channel each), competing on one queue. */
  readonly consumers: number;
  /** @default 256 */
  readonly messageSizeBytes?: number;
  /** Unacked deliveries per consumer (manual ack, as PerfTest users typically run). @default 100 */
  readonly prefetch?: number;
  /** Worker threads the consumers are spread over, one connection each (at most `consumers`). @default 1 */
  readonly consumerThreads?: number;
  /** Harness producer threads (plain amqplib, one connection each). @default 2 */
  readonly producerThreads?: number;
  /** Measured windows at most (each a sample; the median is the value). @default 3 */
  readonly rounds?: number;
  /**
   * Measured windows at least: the phase ends after this many once the last `minRounds` windows'
   * rates agree within `steadyWithinPercent` (the rate is steady), else after `rounds`. @default rounds (a fixed count)
   */
  readonly minRounds?: number;
  /** How close the last `minRounds` windows' rates must be, as (max - min) / median. @default 5 */
  readonly steadyWithinPercent?: number;
  /** Length of each measured window. @default 3000 */
  readonly windowMs?: number;
  /** Consuming before the first window, excluded (consumers' buffers filled, JIT warm). @default 1000 */
  readonly warmupMs?: number;
  /** @default watermarksFor(consumers, prefetch, messageSizeBytes) */
  readonly watermarks?: Watermarks;
  /** Ready messages the queue must hold before the first phase starts (at most the low mark). @default startDepthFor(watermarks, consumers, prefetch, warmupMs + rounds * windowMs) */
  readonly startMessages?: number;
  /** How often the harness reads the queue's depth from the broker. @default 10 */
  readonly depthSamplingMs?: number;
}

export interface ConsumeWorkload {
  readonly consumers: number;
  readonly messageSizeBytes: number;
  readonly prefetch: number;
  readonly consumerThreads: number;
  readonly producerThreads: number;
  readonly rounds: number;
  readonly minRounds: number;
  readonly steadyWithinPercent: number;
  readonly windowMs: number;
  readonly warmupMs: number;
  readonly watermarks: Watermarks;
  /** Ready messages the queue holds before the first phase starts (watermarks.ts startDepthFor). */
  readonly startMessages: number;
  readonly depthSamplingMs: number;
  /** Consumers on each consumer thread, in thread order. */
  readonly consumersPerThread: readonly number[];
  /** `x-max-length` of the queue: a safety bound, never reached while producers follow the watermarks. */
  readonly maxQueueLength: number;
}

export const CONSUME_WORKLOAD_DEFAULTS = {
  messageSizeBytes: 256,
  prefetch: 100,
  consumerThreads: 1,
  producerThreads: 2,
  rounds: 3,
  steadyWithinPercent: 5,
  windowMs: 3000,
  warmupMs: 1000,
  depthSamplingMs: 10,
} as const;

/** Validates the input and fills in the defaults. @throws ConfigError naming the bad field. */
export function resolveConsumeWorkload(input: ConsumeWorkloadInput): ConsumeWorkload {
  const consumers = positiveInteger('consumers', input.consumers);
  const messageSizeBytes = nonNegativeInteger('messageSizeBytes', input.messageSizeBytes ?? CONSUME_WORKLOAD_DEFAULTS.messageSizeBytes);
  const prefetch = positiveInteger('prefetch', input.prefetch ?? CONSUME_WORKLOAD_DEFAULTS.prefetch);
  const consumerThreads = positiveInteger('consumerThreads', input.consumerThreads ?? CONSUME_WORKLOAD_DEFAULTS.consumerThreads);
  if (consumerThreads > consumers)
    throw new ConfigError('consumerThreads', `at most the number of consumers (${consumers})`, String(consumerThreads));
  const watermarks = input.watermarks ?? watermarksFor(consumers, prefetch, messageSizeBytes);
  positiveInteger('watermarks.lowMessages', watermarks.lowMessages);
  if (!Number.isInteger(watermarks.highMessages) || watermarks.highMessages <= watermarks.lowMessages)
    throw new ConfigError(
      'watermarks.highMessages',
      `a whole number above lowMessages (${watermarks.lowMessages})`,
      String(watermarks.highMessages),
    );
  const rounds = positiveInteger('rounds', input.rounds ?? CONSUME_WORKLOAD_DEFAULTS.rounds);
  const minRounds = positiveInteger('minRounds', input.minRounds ?? rounds);
  if (minRounds > rounds) throw new ConfigError('minRounds', `at most rounds (${rounds})`, String(minRounds));
  const steadyWithinPercent = input.steadyWithinPercent ?? CONSUME_WORKLOAD_DEFAULTS.steadyWithinPercent;
  if (!(steadyWithinPercent >= 0)) throw new ConfigError('steadyWithinPercent', 'a percentage of at least 0', String(steadyWithinPercent));
  const windowMs = positiveInteger('windowMs', input.windowMs ?? CONSUME_WORKLOAD_DEFAULTS.windowMs);
  const warmupMs = nonNegativeInteger('warmupMs', input.warmupMs ?? CONSUME_WORKLOAD_DEFAULTS.warmupMs);
  const startMessages = positiveInteger(
    'startMessages',
    input.startMessages ?? startDepthFor(watermarks, consumers, prefetch, warmupMs + rounds * windowMs),
  );
  if (startMessages > watermarks.lowMessages)
    throw new ConfigError('startMessages', `at most watermarks.lowMessages (${watermarks.lowMessages})`, String(startMessages));
  return Object.freeze({
    consumers,
    messageSizeBytes,
    prefetch,
    consumerThreads,
    producerThreads: positiveInteger('producerThreads', input.producerThreads ?? CONSUME_WORKLOAD_DEFAULTS.producerThreads),
    rounds,
    minRounds,
    steadyWithinPercent,
    windowMs,
    warmupMs,
    watermarks: Object.freeze({ ...watermarks }),
    startMessages,
    depthSamplingMs: positiveInteger('depthSamplingMs', input.depthSamplingMs ?? CONSUME_WORKLOAD_DEFAULTS.depthSamplingMs),
    consumersPerThread: Object.freeze(splitEvenly(consumers, consumerThreads)),
    // Producers overshoot the high mark by what is in flight towards the queue when they pause (socket
    // buffers, the broker's own pipeline): 4x (at least 10000) leaves room for that and only stops a runaway.
    maxQueueLength: Math.max(4 * watermarks.highMessages, 10_000),
  });
}

/** `10-256B`, `100-4KiB`: the label in a test id. */
export function consumeLabel(workload: Pick<ConsumeWorkload, 'consumers' | 'messageSizeBytes'>): string {
  const size = sizeLabel(workload.messageSizeBytes);
  return `${workload.consumers}-${size}`;
}

/**
 * The worker threads (one connection each) a consume workload runs on for a library that keeps
 * one subscription per queue per connection (its adapter's `consumersPerQueue: 'one'`): one
 * consumer a thread, so each has the connection it needs. The consumers, their prefetch and the
 * queue stay the same; the connections do not, and the result's notes say so (`spreadNote`).
 * @example consumerThreadsFor(10, 1, 'one') // 10
 */
export function consumerThreadsFor(consumers: number, consumerThreads: number, consumersPerQueue: 'one' | 'many' = 'many'): number {
  return consumersPerQueue === 'one' ? consumers : consumerThreads;
}

/** Why a workload ran on more threads than its row names (see consumerThreadsFor), for the result's notes. */
export function spreadNote(library: string, consumers: number, rowThreads: number): string {
  return `${library} keeps one subscription per queue per connection (its adapter's consumersPerQueue): the row's ${consumers} consumers on ${rowThreads} connection(s) cannot run as named, so each consumer has its own connection here (${consumers} worker threads): compare its figure with other clients' knowing that`;
}
