/**
 * What a publish-throughput session does, resolved once from its input (pure): how many
 * logical publishers, how many messages each per round, of what size, in which mode, over how
 * many rounds, and how the logical publishers are spread over a bounded number of worker
 * threads. Hundreds of logical publishers never mean hundreds of OS threads.
 */
import { ConfigError } from '../errors';

export const PUBLISH_MODES = ['plain', 'confirm'] as const;
/** `plain`: fire-and-forget publishes; `confirm`: publisher confirms, each awaited before the next. */
export type PublishMode = (typeof PUBLISH_MODES)[number];

export interface PublishWorkloadInput {
  /** Logical publisher threads (one channel each). */
  readonly threads: number;
  /** Messages each logical publisher sends per round. */
  readonly messagesPerThread: number;
  /** @default 256 */
  readonly messageSizeBytes?: number;
  /** @default 'plain' */
  readonly mode?: PublishMode;
  /** Measured rounds (each result gets this many rate samples). @default 5 */
  readonly rounds?: number;
  /** Rounds run first and discarded (connections, JIT and broker queues warmed up). @default 1 */
  readonly warmupRounds?: number;
  /**
   * Publishes per logical publisher in a session's last warm-up round (the one every session runs,
   * after any first-use rounds): enough for each publisher's channel, the client's lazy set-up and
   * the fresh queue to have carried traffic before the first measured round. @default messagesPerThread
   */
  readonly sessionWarmupMessagesPerThread?: number;
  /** Upper bound on worker threads; the pool has min(threads, maxWorkerThreads). @default 4 */
  readonly maxWorkerThreads?: number;
  /** Bound on one round (every publish, confirm and flush of every worker). @default 60000 */
  readonly roundBoundMs?: number;
  /**
   * Bound on one publish (its hand-over; in confirm mode, until its confirm): one not settled
   * within it never settled, a finding of the client, and its publisher stops there for the
   * round. Below the round bound, so the round still ends within its own.
   * @default min(10000, roundBoundMs / 2)
   */
  readonly publishBoundMs?: number;
}

export interface PublishWorkload {
  readonly threads: number;
  readonly messagesPerThread: number;
  readonly messageSizeBytes: number;
  readonly mode: PublishMode;
  readonly rounds: number;
  readonly warmupRounds: number;
  /** Publishes per logical publisher in the session's last warm-up round (at most `messagesPerThread`). */
  readonly sessionWarmupMessagesPerThread: number;
  readonly workerThreads: number;
  readonly roundBoundMs: number;
  /** Bound on one publish (in confirm mode, until its confirm), below `roundBoundMs`. */
  readonly publishBoundMs: number;
  /** Messages published by all publishers in one round. */
  readonly messagesPerRound: number;
  /** Which logical publishers each worker thread runs. */
  readonly assignments: readonly PublisherAssignment[];
}

export const PUBLISH_WORKLOAD_DEFAULTS = {
  messageSizeBytes: 256,
  mode: 'plain',
  rounds: 5,
  warmupRounds: 1,
  maxWorkerThreads: 4,
  roundBoundMs: 60_000,
  publishBoundMs: 10_000,
} as const;

/** A contiguous block of logical publishers run by one worker thread. */
export interface PublisherAssignment {
  readonly worker: number;
  /** Index of the block's first logical publisher (0-based). */
  readonly firstPublisher: number;
  readonly publishers: number;
}

/**
 * Spreads `publishers` over `workers` in contiguous blocks whose sizes differ by at most one
 * (the first `publishers % workers` blocks get the extra one). Never yields an empty block:
 * with fewer publishers than workers, only `publishers` blocks are returned.
 * @example distributePublishers(10, 4) // blocks of 3, 3, 2, 2 starting at 0, 3, 6, 8
 */
export function distributePublishers(publishers: number, workers: number): PublisherAssignment[] {
  positiveInteger('publishers', publishers);
  positiveInteger('workers', workers);
  const blocks = Math.min(publishers, workers);
  const base = Math.floor(publishers / blocks);
  const extra = publishers % blocks;
  const assignments: PublisherAssignment[] = [];
  let next = 0;
  for (let worker = 0; worker < blocks; worker += 1) {
    const size = base + (worker < extra ? 1 : 0);
    assignments.push({ worker, firstPublisher: next, publishers: size });
    next += size;
  }
  return assignments;
}

/** Validates the input and fills in the defaults. @throws ConfigError naming the bad field. */
export function resolvePublishWorkload(input: PublishWorkloadInput): PublishWorkload {
  const threads = positiveInteger('threads', input.threads);
  const messagesPerThread = positiveInteger('messagesPerThread', input.messagesPerThread);
  const messageSizeBytes = nonNegativeInteger('messageSizeBytes', input.messageSizeBytes ?? PUBLISH_WORKLOAD_DEFAULTS.messageSizeBytes);
  const mode = input.mode ?? PUBLISH_WORKLOAD_DEFAULTS.mode;
  if (!PUBLISH_MODES.includes(mode)) throw new ConfigError('mode', `one of ${PUBLISH_MODES.join(', ')}`, String(mode));
  const rounds = positiveInteger('rounds', input.rounds ?? PUBLISH_WORKLOAD_DEFAULTS.rounds);
  const warmupRounds = nonNegativeInteger('warmupRounds', input.warmupRounds ?? PUBLISH_WORKLOAD_DEFAULTS.warmupRounds);
  const sessionWarmupMessagesPerThread = Math.min(
    messagesPerThread,
    positiveInteger('sessionWarmupMessagesPerThread', input.sessionWarmupMessagesPerThread ?? messagesPerThread),
  );
  const maxWorkerThreads = positiveInteger('maxWorkerThreads', input.maxWorkerThreads ?? PUBLISH_WORKLOAD_DEFAULTS.maxWorkerThreads);
  const roundBoundMs = positiveInteger('roundBoundMs', input.roundBoundMs ?? PUBLISH_WORKLOAD_DEFAULTS.roundBoundMs);
  const publishBoundMs = positiveInteger(
    'publishBoundMs',
    input.publishBoundMs ?? Math.min(PUBLISH_WORKLOAD_DEFAULTS.publishBoundMs, Math.floor(roundBoundMs / 2)),
  );
  if (publishBoundMs >= roundBoundMs)
    throw new ConfigError('publishBoundMs', `less than the round bound (${roundBoundMs} ms)`, String(publishBoundMs));
  const assignments = distributePublishers(threads, maxWorkerThreads);
  return Object.freeze({
    threads,
    messagesPerThread,
    messageSizeBytes,
    mode,
    rounds,
    warmupRounds,
    sessionWarmupMessagesPerThread,
    workerThreads: assignments.length,
    roundBoundMs,
    publishBoundMs,
    messagesPerRound: threads * messagesPerThread,
    assignments,
  });
}

/** A message size in a test id: `256B`, `4KiB` (whole KiB only). */
export function sizeLabel(bytes: number): string {
  return bytes >= 1024 && bytes % 1024 === 0 ? `${bytes / 1024}KiB` : `${bytes}B`;
}

/** `10x100-256B-plain`: the label in a test id. */
export function workloadLabel(workload: Pick<PublishWorkload, 'threads' | 'messagesPerThread' | 'messageSizeBytes' | 'mode'>): string {
  const size = sizeLabel(workload.messageSizeBytes);
  return `${workload.threads}x${workload.messagesPerThread}-${size}-${workload.mode}`;
}

/** @throws ConfigError naming `field` unless `value` is a whole number of at least 1 */
export function positiveInteger(field: string, value: number): number {
  if (!Number.isInteger(value) || value < 1) throw new ConfigError(field, 'a whole number of at least 1', String(value));
  return value;
}

/** @throws ConfigError naming `field` unless `value` is a whole number of at least 0 */
export function nonNegativeInteger(field: string, value: number): number {
  if (!Number.isInteger(value) || value < 0) throw new ConfigError(field, 'a whole number of at least 0', String(value));
  return value;
}
