/**
 * Shared memory of one failover scenario: control words, and per thread (every consumer, then
 * the producer last) its outages ("episodes"): when the client reported the fault, when it was
 * connected again, and when the first message came after it (a consumer: the first delivery; the
 * producer: the first confirm). A thread may live through several episodes (a rolling restart
 * moves it from node to node). Times are `process.hrtime.bigint()`, one clock for every thread.
 *
 * The message ledger (published, confirmed, delivered per sequence number) is a separate
 * WorkloadBoard (src/suite-kit/workloadBoard.ts), shared with the same accounting.
 */
import { ThreadSlots } from '../workers/controlWords';
import { RECEIVED_KIND_CODES as CauseCode } from '../client/faults';

export const FailoverWord = {
  /** Threads connected (consumers consuming, the producer with its publisher). */
  READY: 0,
  /** Traffic may start. */
  GO: 1,
  /** The fault is being injected (a consumer's silence deadline counts from here). */
  INJECTED: 2,
  /** The producer stops taking new sequence numbers and settles what is in flight. */
  STOP_PRODUCING: 3,
  /** Every thread closes and reports. */
  STOP: 4,
  /** Threads that gave up (could not connect, or could not get back within their bound). */
  FAILED: 5,
  /** Sequence numbers taken by the producer so far. */
  SEQUENCES: 6,
  /** The producer settled after STOP_PRODUCING (nothing in flight, nothing left to republish). */
  PRODUCER_SETTLED: 7,
} as const;
const CONTROL_WORDS = 8;

/** Outages recorded per thread; a later one overwrites nothing, it is counted as dropped. */
export const MAX_EPISODES = 6;

const EpisodeTime = { DETECTED: 0, RECONNECTED: 1, FIRST_MESSAGE: 2 } as const;
const TIMES_PER_EPISODE = 3;
/** Per-thread times besides the episodes. */
const ThreadTime = { READY: 0, LAST_MESSAGE: 1 } as const;
const THREAD_TIMES = 2;
const TIME_SLOTS = THREAD_TIMES + MAX_EPISODES * TIMES_PER_EPISODE;

const ThreadInt = { EPISODES: 0, MESSAGES: 1, MESSAGES_AFTER_INJECTION: 2, FIRST_PORT: 3, DROPPED_EPISODES: 4 } as const;
const THREAD_INTS = 5;
/** Per episode: the fault kind (CauseCode) and the local port of the connection after it. */
const INTS_PER_EPISODE = 2;
const INT_SLOTS = THREAD_INTS + MAX_EPISODES * INTS_PER_EPISODE;

export interface EpisodeRecord {
  readonly detectedNs: bigint;
  readonly cause: number;
  readonly reconnectedNs: bigint | null;
  readonly firstMessageNs: bigint | null;
  /** Local TCP port of the connection after the outage; 0 when unknown. */
  readonly portAfter: number;
}

export interface ThreadEpisodes {
  readonly readyNs: bigint | null;
  readonly lastMessageNs: bigint | null;
  readonly messages: number;
  readonly messagesAfterInjection: number;
  /** Local TCP port of the first connection; 0 when the library hides it. */
  readonly firstPort: number;
  readonly episodes: readonly EpisodeRecord[];
  readonly droppedEpisodes: number;
}

const LAYOUT = { controlWords: CONTROL_WORDS, timeSlots: TIME_SLOTS, intSlots: INT_SLOTS } as const;

export class FailoverBoard extends ThreadSlots {
  /** A new board for `threads` threads (main thread), or one attached to `buffer` (worker). */
  constructor(threads: number, buffer?: SharedArrayBuffer) {
    super(LAYOUT, buffer ?? threads, threads);
  }

  markReady(thread: number, ns: bigint, port: number | undefined): void {
    Atomics.store(this.times, thread * TIME_SLOTS + ThreadTime.READY, ns);
    Atomics.store(this.ints, thread * INT_SLOTS + ThreadInt.FIRST_PORT, port ?? 0);
    this.count(FailoverWord.READY);
  }

  /**
   * One message for `thread` (a delivery, or a confirm for the producer). The first one after
   * an outage that `closesOutage` ends it; the caller says no for a message that may still be
   * the old connection's (a delivery while the client is not back yet, a confirm of a message
   * sent before the fault: a library may hand them over just after it reported the fault).
   */
  recordMessage(thread: number, ns: bigint, closesOutage = true): void {
    Atomics.store(this.times, thread * TIME_SLOTS + ThreadTime.LAST_MESSAGE, ns);
    Atomics.add(this.ints, thread * INT_SLOTS + ThreadInt.MESSAGES, 1);
    if (this.flag(FailoverWord.INJECTED) !== 0) Atomics.add(this.ints, thread * INT_SLOTS + ThreadInt.MESSAGES_AFTER_INJECTION, 1);
    const open = this.episodes(thread) - 1;
    if (!closesOutage || open < 0 || open >= MAX_EPISODES) return;
    const slot = this.episodeTimeSlot(thread, open, EpisodeTime.FIRST_MESSAGE);
    if (Atomics.load(this.times, slot) === 0n) Atomics.store(this.times, slot, ns);
  }

  /** A new outage of `thread`, as its client reported it (`cause`: the fault kind's CauseCode). */
  openEpisode(thread: number, detectedNs: bigint, cause: number): void {
    const index = this.episodes(thread);
    if (index >= MAX_EPISODES) {
      Atomics.add(this.ints, thread * INT_SLOTS + ThreadInt.DROPPED_EPISODES, 1);
      return;
    }
    Atomics.store(this.times, this.episodeTimeSlot(thread, index, EpisodeTime.DETECTED), detectedNs);
    Atomics.store(this.ints, this.episodeIntSlot(thread, index, 0), cause);
    Atomics.add(this.ints, thread * INT_SLOTS + ThreadInt.EPISODES, 1);
  }

  /** The client of `thread` is connected again after its latest outage. */
  markReconnected(thread: number, ns: bigint, port: number | undefined): void {
    const open = this.episodes(thread) - 1;
    if (open < 0 || open >= MAX_EPISODES) return;
    Atomics.store(this.times, this.episodeTimeSlot(thread, open, EpisodeTime.RECONNECTED), ns);
    Atomics.store(this.ints, this.episodeIntSlot(thread, open, 1), port ?? 0);
  }

  episodes(thread: number): number {
    return Math.min(MAX_EPISODES + 1, Atomics.load(this.ints, thread * INT_SLOTS + ThreadInt.EPISODES));
  }

  /** True while `thread` has an outage with no message after it yet. */
  waitingForFirstMessage(thread: number): boolean {
    const open = this.episodes(thread) - 1;
    return (
      open >= 0 && open < MAX_EPISODES && Atomics.load(this.times, this.episodeTimeSlot(thread, open, EpisodeTime.FIRST_MESSAGE)) === 0n
    );
  }

  /** When the latest outage of `thread` began (its detection); 0n when it had none. */
  latestOutageNs(thread: number): bigint {
    const open = this.episodes(thread) - 1;
    return open < 0 || open >= MAX_EPISODES ? 0n : Atomics.load(this.times, this.episodeTimeSlot(thread, open, EpisodeTime.DETECTED));
  }

  lastMessageNs(thread: number): bigint {
    return Atomics.load(this.times, thread * TIME_SLOTS + ThreadTime.LAST_MESSAGE);
  }

  messages(thread: number): number {
    return Atomics.load(this.ints, thread * INT_SLOTS + ThreadInt.MESSAGES);
  }

  /** Everything `thread` recorded (take it once the threads are quiet, or accept a moving picture). */
  read(thread: number): ThreadEpisodes {
    const time = (slot: number): bigint | null => {
      const value = Atomics.load(this.times, slot);
      return value === 0n ? null : value;
    };
    const int = (slot: number) => Atomics.load(this.ints, thread * INT_SLOTS + slot);
    const count = Math.min(MAX_EPISODES, int(ThreadInt.EPISODES));
    return {
      readyNs: time(thread * TIME_SLOTS + ThreadTime.READY),
      lastMessageNs: time(thread * TIME_SLOTS + ThreadTime.LAST_MESSAGE),
      messages: int(ThreadInt.MESSAGES),
      messagesAfterInjection: int(ThreadInt.MESSAGES_AFTER_INJECTION),
      firstPort: int(ThreadInt.FIRST_PORT),
      droppedEpisodes: int(ThreadInt.DROPPED_EPISODES),
      episodes: Array.from({ length: count }, (_, index) => ({
        detectedNs: time(this.episodeTimeSlot(thread, index, EpisodeTime.DETECTED)) ?? 0n,
        cause: Atomics.load(this.ints, this.episodeIntSlot(thread, index, 0)),
        reconnectedNs: time(this.episodeTimeSlot(thread, index, EpisodeTime.RECONNECTED)),
        firstMessageNs: time(this.episodeTimeSlot(thread, index, EpisodeTime.FIRST_MESSAGE)),
        portAfter: Atomics.load(this.ints, this.episodeIntSlot(thread, index, 1)),
      })),
    };
  }

  private episodeTimeSlot(thread: number, episode: number, which: number): number {
    return thread * TIME_SLOTS + THREAD_TIMES + episode * TIMES_PER_EPISODE + which;
  }

  private episodeIntSlot(thread: number, episode: number, which: number): number {
    return thread * INT_SLOTS + THREAD_INTS + episode * INTS_PER_EPISODE + which;
  }
}

export { CauseCode };
