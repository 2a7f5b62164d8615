/** What a fault-matrix thread hands back (plain data: typed arrays and strings cross the thread boundary as they are). */

/** A publish's fate, per sequence number. */
export const PublishState = { PENDING: 0, CONFIRMED: 1, NACKED: 2, REJECTED: 3 } as const;
/** When a publish was made: before the injection, while the fault was in place, after its removal. */
export const PublishPhase = { BEFORE: 0, DURING_FAULT: 1, AFTER_REMOVAL: 2 } as const;
/** The `round` header field of the harness's probe messages (a thread's own messages are round 0). */
export const PROBE_ROUND = 1;

/** A fault or typed signal the library gave, or a step of the harness's loop: the evidence of a finding. */
export interface MatrixEvent {
  readonly source: 'fault' | 'signal' | 'harness';
  /** A received kind (`broker_closed`, `channel_closed`, `blocked`, `unblocked`, ...). */
  readonly kind: string;
  readonly message: string;
  /** `process.hrtime.bigint()`, as a decimal string. */
  readonly atNs: string;
}

/** One memory sample of a thread while its writes may be stalled (plain numbers: they cross the thread boundary). */
export interface StallSample {
  /** `process.hrtime.bigint()`, as a decimal string. */
  readonly atNs: string;
  /** This worker's V8 heap in use. */
  readonly heapBytes: number;
  /** This worker's memory outside the heap (Buffers: what the library and its socket hold). */
  readonly externalBytes: number;
  /** The whole process's resident set (every thread of the cell). */
  readonly rssBytes: number;
  /** A client program's resident set (its own process: Publisher.libraryProcessRssBytes); null in process, or unreadable. */
  readonly programRssBytes: number | null;
  /** Publishes awaiting their confirm. */
  readonly outstanding: number;
  /** The library's back-pressure signal was on (false when it has none). */
  readonly held: boolean;
}

/** What a thread saw while its writes were stalled: whether the library has a back-pressure signal, how often it turned on, the samples. */
export interface StallReport {
  /** The adapter maps a back-pressure signal of the library's (`Publisher.writesHeld`). */
  readonly signal: boolean;
  /** Times the signal turned on while the stall held (from the injection to the removal). */
  readonly episodes: number;
  /** The signal at the first poll that saw the injection (null: no poll while the stall held). */
  readonly heldAtInjection: boolean | null;
  /** Polls of the signal before the injection (under the ordinary load), and how many of them found it on. */
  readonly pollsBeforeInjection: number;
  readonly heldPollsBeforeInjection: number;
  /** The signal at the last poll before the removal (null: no poll while the stall held). */
  readonly heldAtRemoval: boolean | null;
  /** The longest time between two polls of the signal while the stall held (null: no poll then). */
  readonly longestPollGapMs: number | null;
  /** The library runs in another process (a client program): this worker's memory is not its. */
  readonly outOfProcess: boolean;
  readonly samples: readonly StallSample[];
}

export interface MatrixThreadReport {
  readonly threadIndex: number;
  /** Why the thread could not do its part (could not connect, a wait that never ended). */
  readonly error?: string;
  /** Per sequence number: PublishState, as it stood at the end of the settle bound (before anything was closed). */
  readonly state: Uint8Array;
  /** Publishes pending at the end of the settle bound that settled later, when the connection was closed (still hung). */
  readonly settledOnlyByClose: number;
  /** Per sequence number: PublishPhase. */
  readonly phase: Uint8Array;
  readonly publishedAtNs: BigInt64Array;
  /** 0 while pending. */
  readonly settledAtNs: BigInt64Array;
  /** Deliveries of each of its messages to its own consumer. */
  readonly deliveries: Uint16Array;
  /** When each of its messages was first delivered (0: never). */
  readonly deliveredAtNs: BigInt64Array;
  /** When each of its messages was last delivered (0: never): a redelivery after the removal is a delivery after it too. */
  readonly lastDeliveredAtNs: BigInt64Array;
  /** Every local port its connection had (sampled as it publishes): its connections on the proxy's timeline. */
  readonly ports: readonly number[];
  /** Each distinct rejection, with how often and when first. */
  readonly rejections: readonly { readonly message: string; readonly count: number; readonly firstNs: string }[];
  readonly events: readonly MatrixEvent[];
  /** Errors nobody handled inside the client (it would have crashed an application on Node's defaults). */
  readonly unhandled: readonly string[];
  /** How long its close() took; null when it did not return within the bound. */
  readonly closeMs: number | null;
  /** Its close() returned only because the adapter's own bound cut the library's close short. */
  readonly closeHitBound?: boolean;
  /** A fault that stalls the client's writes: its back-pressure signal and memory samples. */
  readonly stall?: StallReport;
  /**
   * The first delivery its stuck consumer held unacked on purpose (a consumer acknowledgement
   * timeout), when it was delivered again (ns as a decimal string), and how many it held in all.
   */
  readonly held?: { readonly seq: number; readonly redeliveredNs: string | null; readonly count: number };
  /** Thread 0 under an alarm: close() of a blocked connection (null: it did not return within `boundMs`). */
  readonly closeCheck?: {
    readonly closeMs: number | null;
    readonly boundMs: number;
    /** The library's close did not end by itself: the adapter's bound cut it short. */
    readonly hitAdapterBound: boolean;
    readonly error?: string;
  };
}
