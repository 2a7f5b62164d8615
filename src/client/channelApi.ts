/**
 * What the client under test does on its channels, as every suite sees it: a publisher (plain or
 * with confirms, a timed run of publishes for a client in another process) and a consumer (ack
 * modes, prefetch, its deliveries). Re-exported by api.ts beside the connection and the adapter.
 */

/** One message handed to a consumer. */
export interface Delivery {
  readonly body: Buffer;
  /** The broker's redelivered flag (an earlier delivery was not acked). */
  readonly redelivered: boolean;
  /**
   * When the library handed it over, where that is not now: a client program that hands its
   * deliveries over in batches times each in its own process. Absent: the callback's own moment.
   */
  readonly receivedNs?: bigint;
  /** Acknowledges it (manual ack); a no-op with automatic ack or on a connection that died. */
  ack(): void;
  /**
   * Acknowledges it and every earlier unacked delivery of its channel (basic.ack multiple, as
   * PerfTest's `--multi-ack-every`); absent where the library cannot (see `ClientAdapter.acks`).
   */
  ackUpTo?(): void;
  /** Rejects it (basic.nack); `requeue` puts it back in the queue, delivered again flagged redelivered. Absent where the library cannot. */
  nack?(requeue: boolean): void;
}

/** The acknowledgement modes beyond a single ack that an adapter's deliveries offer. */
export interface AckSupport {
  /** Deliveries have `ackUpTo()`. */
  readonly multiple: boolean;
  /** Deliveries have `nack(requeue)`. */
  readonly nack: boolean;
}

export interface ConsumeOptions {
  /** `manual`: the consumer acks each delivery; `auto`: the broker considers it acked when sent (no-ack). */
  readonly ack: 'auto' | 'manual';
  /** Unacked deliveries per consumer (manual ack). @default 0 (unlimited) */
  readonly prefetch?: number;
  /**
   * false: the consumer reads no body and acks each delivery as it arrives (a count is all it
   * needs). A client in another process then acks in its own process and hands over counts, not
   * messages (`Delivery.body` empty, `ack()` a no-op); an in-process adapter may ignore it.
   * @default true
   */
  readonly bodies?: boolean;
}

export interface Consumer {
  /** Stops consuming (best effort, bounded). */
  cancel(): Promise<void>;
}

export interface PublishOptions {
  /** Delivery mode 2. @default false */
  readonly persistent?: boolean;
}

/** One channel that publishes: plain, or with publisher confirms. */
export interface Publisher {
  readonly confirms: boolean;
  /**
   * Publishes `body`. Plain: resolves once the message is handed to the socket (waiting for the
   * write buffer to drain under backpressure). Confirms: resolves when the broker confirmed it.
   * @throws ClientFaultError when the connection failed before (confirms: before the confirm);
   *   the message may or may not have reached the broker (at-least-once publishers send it again)
   */
  publish(exchange: string, routingKey: string, body: Buffer, options?: PublishOptions): Promise<void>;
  /**
   * Resolves once the broker has taken everything published so far on this channel (one
   * synchronous round trip travelling behind the messages; with confirms, the last confirm).
   */
  flush(boundMs: number): Promise<void>;
  /**
   * Publishes `count` messages of `sizeBytes` bytes (0x61) one after the other, each awaited as
   * `publish` is, timed inside the client: present where each `publish` would cross a process
   * boundary (a client in another language), so that a throughput figure is the client's and not
   * the pipe's. Absent for in-process adapters (the caller then loops over `publish`). `boundMs`
   * bounds the whole run; `publishBoundMs` each publish: one not settled within it ends the run
   * (`unsettledPublish`).
   */
  publishRun?(
    exchange: string,
    routingKey: string,
    count: number,
    sizeBytes: number,
    boundMs: number,
    publishBoundMs?: number,
  ): Promise<PublishRunOutcome>;
  /**
   * True while the library says its writes are held back (amqplib: the last publish returned
   * false and the channel's 'drain' has not come yet; rascal: its channel pool said 'busy' and
   * not yet 'ready'): the library's own back-pressure signal.
   * Absent where the library gives none (its publishes then wait, or pile up, without a word).
   */
  writesHeld?(): boolean;
  /**
   * Resident memory (bytes) of the process the library runs in, where that is not the harness's
   * own (a client program); null when it cannot be read. Absent for in-process adapters.
   */
  libraryProcessRssBytes?(): number | null;
  close(): Promise<void>;
}

/** A `publishRun` as the client measured it (times from the machine's monotonic clock). */
export interface PublishRunOutcome {
  readonly published: number;
  readonly errors: number;
  readonly startedNs: bigint;
  readonly completedNs: bigint;
  /** Each publish's latency as a histogram: `counts[i]` publishes took `valuesUs[i]` µs. */
  readonly latencyUs: { readonly valuesUs: readonly number[]; readonly counts: readonly number[] };
  /** Up to five distinct error descriptions. */
  readonly errorSamples: readonly string[];
  /** The publish (1-based) that did not settle within the publish bound, where the run stopped; absent: every one settled. */
  readonly unsettledPublish?: number;
}
