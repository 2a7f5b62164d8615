/**
 * How the harness producers of a sustained consume session keep the queue between two depths
 * (pure): publish until the queue holds the high mark, pause until it is down to the low mark,
 * and so on. The queue never runs dry while producers keep up, and never grows without bound;
 * while they cannot keep up, the backlog between the marks feeds the consumers.
 *
 * The depth a producer acts on is an estimate: the broker's ready count from the last sample
 * (read by the main thread every few ms), plus every message all producers published since that
 * sample was asked for. Consumption since the sample is left out, so the estimate is never below
 * the truth by more than what is in flight: producers stop early rather than overshoot.
 */

/** Queue depths (ready messages) the producers keep the queue between. */
export interface Watermarks {
  /** Producers resume publishing when the queue is down to this many ready messages. */
  readonly lowMessages: number;
  /** Producers pause once the queue holds (by their estimate) this many. */
  readonly highMessages: number;
}

/**
 * Bytes of ready messages at the high mark, before the bounds below. Generous on purpose: one
 * classic queue is one Erlang process that takes messages in and hands them out; while it has a
 * backlog it favours handing out and holds the producers back (credit flow), so with consumers
 * faster than that intake the backlog shrinks by the difference (measured here: 19k msg/s out,
 * 10k in). A phase starts before the queue holds this much (`startDepthFor`): the producers go on
 * filling towards it meanwhile.
 */
export const QUEUE_BUDGET_BYTES = 128 * 1024 * 1024;
const MIN_HIGH_MESSAGES = 2_000;
const MAX_HIGH_MESSAGES = 200_000;

/** The low mark as a share of the high one: a narrow band, so the queue stays nearly full all the time. */
export const LOW_MARK_SHARE = 0.9;

/**
 * Default watermarks: about 128 MiB of ready messages at the high mark (at least 2000, at most
 * 200000 messages, and never less than two prefetch windows per consumer: at a phase start every
 * consumer takes its window at once), the low mark at 90% of it. A narrow band keeps producers
 * topping the queue up steadily, at the consumers' pace, rather than in bursts that would fight
 * the consumers for the CPU, and keeps the queue as full before every turn as before the first.
 * @example watermarksFor(10, 100, 256) // { lowMessages: 180000, highMessages: 200000 }
 */
export function watermarksFor(consumers: number, prefetch: number, messageSizeBytes: number): Watermarks {
  const budget = Math.floor(QUEUE_BUDGET_BYTES / Math.max(1, messageSizeBytes));
  const highMessages = Math.max(Math.min(MAX_HIGH_MESSAGES, Math.max(MIN_HIGH_MESSAGES, budget)), 2 * consumers * prefetch);
  return { lowMessages: Math.floor(LOW_MARK_SHARE * highMessages), highMessages };
}

/**
 * The fastest the queue has been seen to shrink during a phase, net of the producers' top-up: a
 * classic queue with a backlog favours delivering and holds its publishers back by credit flow
 * (19k msg/s out, 10k in, the fastest consumers measured on two cores; amqplib's ten consumers
 * shrink it by about 5k msg/s).
 */
export const PHASE_NET_DRAIN_MSGS_PER_SEC = 9_000;
/** The backlog at a phase start is this many times what the phase can drain at that pace. */
export const START_MARGIN = 1.25;
/** From the phase's start to every consumer consuming (about 0.2 s measured for 10 consumers), counted into the phase. */
const PHASE_STARTUP_ALLOWANCE_MS = 500;

/**
 * How many ready messages the queue must hold before a session's first phase starts: what the
 * phase (start-up, warm-up and every window) can drain at `PHASE_NET_DRAIN_MSGS_PER_SEC` while the
 * producers keep topping up, times `START_MARGIN`; at least two prefetch windows per consumer, at
 * most the low mark. Filling further only makes a test longer: the producers go on filling
 * towards the high mark during the phase, and a window in which the queue ran dry all the same is
 * flagged (producer-bound), never passed for a consume rate.
 * @example startDepthFor({ lowMessages: 180_000, highMessages: 200_000 }, 10, 100, 10_000) // 118125
 */
export function startDepthFor(watermarks: Watermarks, consumers: number, prefetch: number, phaseMs: number): number {
  const drained = (PHASE_NET_DRAIN_MSGS_PER_SEC * (phaseMs + PHASE_STARTUP_ALLOWANCE_MS)) / 1000;
  return Math.min(watermarks.lowMessages, Math.max(2 * consumers * prefetch, Math.ceil(START_MARGIN * drained)));
}

/** `filling`: publishing towards the high mark; `paused`: waiting for the low mark. */
export type ProducerState = 'filling' | 'paused';

/** The producers' estimate of the queue's depth (see the module comment). */
export function estimateDepth(sampledReady: number, publishedAtSample: number, publishedNow: number): number {
  return sampledReady + Math.max(0, publishedNow - publishedAtSample);
}

/**
 * The hysteresis: a filling producer pauses at the high mark; a paused one resumes at the low mark.
 * @example nextProducerState('paused', 190_000, { lowMessages: 180_000, highMessages: 200_000 }) // 'paused'
 */
export function nextProducerState(state: ProducerState, estimatedDepth: number, watermarks: Watermarks): ProducerState {
  if (state === 'filling') return estimatedDepth >= watermarks.highMessages ? 'paused' : 'filling';
  return estimatedDepth <= watermarks.lowMessages ? 'filling' : 'paused';
}
