/**
 * The one small interface every toxic implements (one file per toxic, like Toxiproxy's
 * `toxics/*.go`). A toxic definition parses nothing itself: it declares its integer
 * attributes (all of Toxiproxy's are integers with zero defaults) and may add a validation;
 * the shared pipeline (link.ts) owns toxicity, timers, backpressure and teardown.
 */

/** `upstream` is client to server, `downstream` (Toxiproxy's default) server to client. */
export type StreamDirection = 'upstream' | 'downstream';

export const STREAM_DIRECTIONS: readonly StreamDirection[] = ['upstream', 'downstream'];

/** A piece of the byte stream with the moment the proxy read it (for latency, as Toxiproxy's chunk timestamp). */
export interface Chunk {
  readonly data: Buffer;
  /** `performance.now()` when the bytes were read from the source socket. */
  readonly receivedAtMs: number;
}

/** What a toxic did, recorded on the fault timeline (the events extension). */
export type FaultEventKind =
  /** reset_peer: TCP RST sent to both peers. */
  | 'reset_sent'
  /** timeout: the connection was closed after `timeout` ms without data. */
  | 'timeout_closed'
  /** timeout: the toxic was removed, which closes the connections it was holding. */
  | 'timeout_removed_closed'
  /** timeout: the first chunk of data was dropped on this connection (the partition is felt). */
  | 'data_dropped'
  /** timeout with `hold_end`: the far side ended or closed its socket; the end is held back until the toxic goes. */
  | 'end_held'
  /** limit_data: the byte limit was reached and the connection closed. */
  | 'limit_reached'
  /** slow_close: the delayed close was finally passed on. */
  | 'slow_close_fired'
  /** Not a toxic's: an AMQP frame that matters to a fault passed the proxy (amqpFrames.ts; detail.method, channel, reply_code). */
  | 'amqp_frame';

/** Integer attributes by name (every Toxiproxy toxic attribute is an integer). */
export type IntegerAttributes = Readonly<Record<string, number>>;

/** Go type of an attribute, used only to word decoding errors as Toxiproxy does. */
export type GoIntegerType = 'int64' | 'int';

export type TimerHandle = ReturnType<typeof setTimeout>;

/** What a toxic stage may do to its connection; provided by the pipeline. */
export interface StageContext {
  /** Passes a chunk to the next toxic (or the destination socket). */
  push(chunk: Chunk): void;
  /** Ends the stream from here on (Toxiproxy's `stub.Close()`): later input to this stage is dropped. */
  end(): void;
  /** Sends a TCP RST to both peers at once and records `reset_sent`. */
  reset(): void;
  /** Records a fault event for this connection, stream and toxic. */
  record(kind: FaultEventKind, detail?: Readonly<Record<string, number | string>>): void;
  /** A timer owned by the connection: cleared when the connection goes away. */
  setTimer(callback: () => void, delayMs: number): TimerHandle;
  clearTimer(handle: TimerHandle | undefined): void;
  /** Monotonic milliseconds (`performance.now()`). */
  nowMs(): number;
  /** Uniform in [0, 1); replaceable in tests. */
  random(): number;
}

/** A toxic acting on one direction of one connection. */
export interface ToxicStage<A extends IntegerAttributes> {
  /** Bytes held back right now (the pipeline pauses the source above a bound). */
  readonly heldBytes: number;
  /**
   * Bytes this toxic may hold before the source is paused, when it should hold less than the
   * pipeline's bound (a throttled link has a small buffer, not megabytes of queue).
   * @default the pipeline's bound (maxHeldBytesPerLink)
   */
  readonly holdLimitBytes?: number;
  onData(chunk: Chunk): void;
  /** The source ended (or the previous toxic closed the stream). */
  onEnd(): void;
  /** New attributes from `POST/PATCH /proxies/{p}/toxics/{t}`; per-connection state is kept. */
  update(attributes: A): void;
  /**
   * Leaving this connection: hand over everything held at once (Toxiproxy drops nothing) and
   * stop. `removed` is true when the toxic is deleted (a timeout toxic then closes the
   * connection), false when a new toxicity roll turns it off here.
   */
  flush(removed: boolean): void;
}

/** One toxic type: its attributes (all integers, zero by default) and its stage factory. */
export interface ToxicDefinition<A extends IntegerAttributes> {
  /** The API name, e.g. `latency`. */
  readonly type: string;
  /** Go struct name, for decoding errors worded like Toxiproxy's (`LatencyToxic`). */
  readonly goStructName: string;
  /** Attribute names and their Go integer types; every default is 0, as in Go. */
  readonly attributes: { readonly [K in keyof A]: GoIntegerType };
  /**
   * Attributes of the embedded proxy's own that Toxiproxy lacks (a subset of `attributes`):
   * decoded like the others, but shown in the toxic's JSON only when set (non-zero), so a
   * toxic that does not use them reads exactly as Toxiproxy's does. Toxiproxy ignores them
   * (its JSON decoding drops unknown fields).
   */
  readonly extensionAttributes?: readonly (keyof A & string)[];
  /** A message when the attributes cannot work (400 `bad request body: <message>`). */
  validate?(attributes: A): string | undefined;
  createStage(context: StageContext, attributes: A): ToxicStage<A>;
}

/** Zero-valued attributes of a definition (Go's zero value). */
export function defaultAttributes<A extends IntegerAttributes>(definition: ToxicDefinition<A>): A {
  const result: Record<string, number> = {};
  for (const name of Object.keys(definition.attributes)) result[name] = 0;
  return result as A;
}
