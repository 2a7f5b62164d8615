/**
 * Options of a realistic workload, resolved once (defaults filled, checked) before anything
 * connects. See `runWorkload` in ./workload.ts.
 */
import { DEFAULT_CLIENT, type ClientSpec } from '../client/api';

/** One round of publishing; the next round starts once this one is fully consumed. */
export interface RoundSpec {
  /** Messages published in the round, by all producer threads together. */
  readonly messages: number;
  /** Counted in the figures; false for a warm-up round. @default true */
  readonly measured?: boolean;
  /** Pace of all producers together, msg/s. @default undefined (as fast as flow control allows) */
  readonly ratePerSecond?: number;
  /** Idle time after the round is consumed, before the next round (none after the last round). @default 0 */
  readonly gapAfterMs?: number;
  /** Name in results and messages. @default `round <n>` */
  readonly label?: string;
}

/** Called around each round, e.g. to inject a fault for it; awaited. */
export interface WorkloadHooks {
  readonly beforeRound?: (round: number) => unknown;
  /** Called even when the round failed (remove what `beforeRound` injected here). */
  readonly afterRound?: (round: number) => unknown;
}

export interface WorkloadInput {
  /** Broker URL, direct: the queue is declared, inspected and deleted through it. */
  readonly directUrl: string;
  /** Where consumers connect. @default directUrl */
  readonly consumerUrl?: string;
  /** Where producers connect. @default directUrl */
  readonly producerUrl?: string;
  /** Logical consumers (one channel and consumer each). */
  readonly consumers: number;
  readonly rounds: readonly RoundSpec[];
  /** @default 1 */
  readonly producerThreads?: number;
  /** Consumer worker threads at most (consumers are spread over them). @default 4 */
  readonly maxConsumerThreads?: number;
  /** @default 128 */
  readonly maxChannelsPerConnection?: number;
  /** Unacked deliveries per consumer. @default 100 */
  readonly prefetch?: number;
  /** @default 256 */
  readonly messageBytes?: number;
  /** Publisher confirms; needed for `recover` (a producer republishes what was not confirmed). @default false */
  readonly confirms?: boolean;
  /** Persistent messages (delivery mode 2). @default false */
  readonly persistent?: boolean;
  /** Durable queue. @default false */
  readonly durableQueue?: boolean;
  /** Reconnect after a fault and carry on; off, a fault fails the thread. @default false */
  readonly recover?: boolean;
  /** Unconfirmed publishes per producer thread. @default 500 */
  readonly maxInFlight?: number;
  /** The client under test, for producers and consumers (its settings: heartbeat, retry delays). @default DEFAULT_CLIENT */
  readonly client?: ClientSpec;
  /** Until every consumer consumes. @default 30000 + 50 per consumer */
  readonly startupBoundMs?: number;
  /** Publishing one round, and consuming it. @default 60000 */
  readonly roundBoundMs?: number;
  /** One (re)connection with retries. @default 15000 */
  readonly connectBoundMs?: number;
  /** Wait after the last round for late deliveries (duplicates), before stopping. @default 250 */
  readonly graceMs?: number;
  /**
   * After the grace, how long connections still down are given to come back before they count as
   * not recovered: a library in its own reconnection delay (rabbitmq-client's first is 1–2 s, then
   * doubling; amqp-connection-manager's a fixed 5 s) is recovering, not failed. @default 10000
   */
  readonly recoveryGraceMs?: number;
  /**
   * Take the worker pools from the benchmark file's shelf, and give them back after a clean run
   * (src/workers/shelf.ts); false: threads of their own, started for this run. @default true
   */
  readonly reuseThreads?: boolean;
  readonly hooks?: WorkloadHooks;
}

export interface ResolvedRound {
  readonly index: number;
  readonly label: string;
  readonly messages: number;
  readonly measured: boolean;
  readonly ratePerSecond: number | null;
  readonly gapAfterMs: number;
  /** First sequence number of the round. */
  readonly firstSeq: number;
}

export interface WorkloadOptions {
  readonly directUrl: string;
  readonly consumerUrl: string;
  readonly producerUrl: string;
  readonly consumers: number;
  readonly rounds: readonly ResolvedRound[];
  /** Sequence numbers in the whole run. */
  readonly sequences: number;
  readonly producerThreads: number;
  readonly maxConsumerThreads: number;
  readonly maxChannelsPerConnection: number;
  readonly prefetch: number;
  readonly messageBytes: number;
  readonly confirms: boolean;
  readonly persistent: boolean;
  readonly durableQueue: boolean;
  readonly recover: boolean;
  readonly maxInFlight: number;
  readonly client: ClientSpec;
  readonly startupBoundMs: number;
  readonly roundBoundMs: number;
  readonly connectBoundMs: number;
  readonly graceMs: number;
  readonly recoveryGraceMs: number;
  readonly reuseThreads: boolean;
  readonly hooks: WorkloadHooks;
}

/** Sequence numbers are uint32 and the ledger spends 8 bytes on each: keep a run sane. */
export const MAX_SEQUENCES = 50_000_000;

function positiveInteger(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 1) throw new RangeError(`workload ${name} must be a positive integer; got ${value}`);
  return value;
}

function nonNegative(name: string, value: number): number {
  if (!Number.isFinite(value) || value < 0) throw new RangeError(`workload ${name} must be a number >= 0; got ${value}`);
  return value;
}

/**
 * Fills in the defaults and checks every value.
 * @throws RangeError naming the option and the value it got.
 */
export function resolveWorkloadOptions(input: WorkloadInput): WorkloadOptions {
  if (input.rounds.length === 0) throw new RangeError('workload rounds must list at least one round (e.g. [{ messages: 1000 }])');
  let firstSeq = 0;
  const rounds = input.rounds.map((spec, index): ResolvedRound => {
    const messages = positiveInteger(`rounds[${index}].messages`, spec.messages);
    if (spec.ratePerSecond !== undefined && !(spec.ratePerSecond > 0))
      throw new RangeError(`workload rounds[${index}].ratePerSecond must be > 0 (or left out for no pacing); got ${spec.ratePerSecond}`);
    const round: ResolvedRound = {
      index,
      label: spec.label ?? `round ${index}`,
      messages,
      measured: spec.measured ?? true,
      ratePerSecond: spec.ratePerSecond ?? null,
      gapAfterMs: nonNegative(`rounds[${index}].gapAfterMs`, spec.gapAfterMs ?? 0),
      firstSeq,
    };
    firstSeq += messages;
    return round;
  });
  if (firstSeq > MAX_SEQUENCES)
    throw new RangeError(`workload rounds publish ${firstSeq} messages in all; at most ${MAX_SEQUENCES} are supported`);
  const confirms = input.confirms ?? false;
  const recover = input.recover ?? false;
  if (recover && !confirms)
    throw new RangeError(
      'workload recover needs confirms: true (a producer knows what to publish again only from the confirms it did not get)',
    );
  const consumers = positiveInteger('consumers', input.consumers);
  return Object.freeze({
    directUrl: input.directUrl,
    consumerUrl: input.consumerUrl ?? input.directUrl,
    producerUrl: input.producerUrl ?? input.directUrl,
    consumers,
    rounds,
    sequences: firstSeq,
    producerThreads: positiveInteger('producerThreads', input.producerThreads ?? 1),
    maxConsumerThreads: positiveInteger('maxConsumerThreads', input.maxConsumerThreads ?? 4),
    maxChannelsPerConnection: positiveInteger('maxChannelsPerConnection', input.maxChannelsPerConnection ?? 128),
    prefetch: positiveInteger('prefetch', input.prefetch ?? 100),
    messageBytes: positiveInteger('messageBytes', input.messageBytes ?? 256),
    confirms,
    persistent: input.persistent ?? false,
    durableQueue: input.durableQueue ?? false,
    recover,
    maxInFlight: positiveInteger('maxInFlight', input.maxInFlight ?? 500),
    client: input.client ?? DEFAULT_CLIENT,
    startupBoundMs: positiveInteger('startupBoundMs', input.startupBoundMs ?? 30_000 + 50 * consumers),
    roundBoundMs: positiveInteger('roundBoundMs', input.roundBoundMs ?? 60_000),
    connectBoundMs: positiveInteger('connectBoundMs', input.connectBoundMs ?? 15_000),
    graceMs: nonNegative('graceMs', input.graceMs ?? 250),
    recoveryGraceMs: nonNegative('recoveryGraceMs', input.recoveryGraceMs ?? 10_000),
    reuseThreads: input.reuseThreads ?? true,
    hooks: input.hooks ?? {},
  });
}
