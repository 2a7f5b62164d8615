/**
 * What a load run counts and times, as it happens: totals over the run, and the same again per
 * time-series interval (taken and reset by the sampler). Latencies are from each message's
 * intended send time; only messages intended after the warm-up are recorded in the run's
 * histograms (counts include every message, so the accounting balances).
 */
import { createLatencyHistogram, recordLatencyNs, type LatencyHistogram } from '../measure/histogram';

export interface LoadTotals {
  /** Messages handed to the client's publish. */
  published: number;
  /** Publishes that failed (connection lost before the write or the confirm): in doubt. */
  publishFailed: number;
  confirmed: number;
  nacked: number;
  /** Deliveries (duplicates included). */
  consumed: number;
  /** Deliveries of a sequence number already seen (redeliveries after a fault, or of a message the consumer nacked). */
  duplicates: number;
  /** Deliveries the consumers nacked back into the queue (`--ack nack:FRACTION`): each comes again. */
  nackedByConsumer: number;
  /** Deliveries of messages intended during the warm-up. */
  consumedInWarmup: number;
}

export interface IntervalCounts {
  readonly published: number;
  readonly confirmed: number;
  readonly consumed: number;
  readonly confirm: LatencyHistogram;
  readonly endToEnd: LatencyHistogram;
  readonly lag: LatencyHistogram;
}

export class LoadRecorder {
  readonly totals: LoadTotals = {
    published: 0,
    publishFailed: 0,
    confirmed: 0,
    nacked: 0,
    consumed: 0,
    duplicates: 0,
    nackedByConsumer: 0,
    consumedInWarmup: 0,
  };
  readonly confirmLatency = createLatencyHistogram();
  readonly endToEndLatency = createLatencyHistogram();
  readonly scheduleLag = createLatencyHistogram();
  /** Published in the measured part (intended at or after the warm-up), for the achieved rate. */
  publishedMeasured = 0;
  private interval = LoadRecorder.emptyInterval();
  private seen: Uint8Array = new Uint8Array(1 << 16);
  private confirmedBits: Uint8Array = new Uint8Array(1 << 16);

  constructor(
    /** Monotonic ns of the run's start (intended offsets count from it). */
    readonly startNs: bigint,
    /** Intended times before this are warm-up. */
    readonly measuredFromNs: bigint,
  ) {}

  private static emptyInterval() {
    return {
      published: 0,
      confirmed: 0,
      consumed: 0,
      confirm: createLatencyHistogram(),
      endToEnd: createLatencyHistogram(),
      lag: createLatencyHistogram(),
    };
  }

  sent(intendedNs: bigint, sentNs: bigint): void {
    this.totals.published += 1;
    this.interval.published += 1;
    const lagNs = sentNs > intendedNs ? sentNs - intendedNs : 0n;
    recordLatencyNs(this.interval.lag, lagNs);
    if (intendedNs >= this.measuredFromNs) {
      this.publishedMeasured += 1;
      recordLatencyNs(this.scheduleLag, lagNs);
    }
  }

  publishFailed(): void {
    this.totals.publishFailed += 1;
  }

  confirmed(sequence: number, intendedNs: bigint, atNs: bigint): void {
    this.confirmedBits = setBit(this.confirmedBits, sequence).bits;
    this.totals.confirmed += 1;
    this.interval.confirmed += 1;
    recordLatencyNs(this.interval.confirm, atNs - intendedNs);
    if (intendedNs >= this.measuredFromNs) recordLatencyNs(this.confirmLatency, atNs - intendedNs);
  }

  nacked(): void {
    this.totals.nacked += 1;
  }

  nackedByConsumer(): void {
    this.totals.nackedByConsumer += 1;
  }

  /** A delivery of message `sequence`; true when it is the first of it. */
  consumed(sequence: number, intendedNs: bigint, atNs: bigint): boolean {
    this.totals.consumed += 1;
    this.interval.consumed += 1;
    if (this.wasSeen(sequence)) {
      this.totals.duplicates += 1;
      return false;
    }
    recordLatencyNs(this.interval.endToEnd, atNs - intendedNs);
    if (intendedNs >= this.measuredFromNs) recordLatencyNs(this.endToEndLatency, atNs - intendedNs);
    else this.totals.consumedInWarmup += 1;
    return true;
  }

  /** Distinct messages consumed. */
  get consumedUnique(): number {
    return this.totals.consumed - this.totals.duplicates;
  }

  /** The counts since the last call, and a fresh interval. */
  takeInterval(): IntervalCounts {
    const taken = this.interval;
    this.interval = LoadRecorder.emptyInterval();
    return taken;
  }

  /** Confirmed messages never consumed: lost (meaningful once consumers have drained the queues). */
  lostConfirmed(): number {
    return countBitsMissing(this.confirmedBits, this.seen);
  }

  /**
   * The sequence numbers seen by the consumers and confirmed to the producers, one bit each: what
   * the accounting of a fleet needs, where a message may be confirmed in one process and consumed
   * in another.
   */
  sequenceBits(): { readonly seen: Uint8Array; readonly confirmed: Uint8Array } {
    return { seen: this.seen, confirmed: this.confirmedBits };
  }

  private wasSeen(sequence: number): boolean {
    const { bits, known } = setBit(this.seen, sequence);
    this.seen = bits;
    return known;
  }
}

/** Bits set in `bits`. */
export function countBits(bits: Uint8Array): number {
  return countBitsMissing(bits, new Uint8Array(0));
}

/** Bits set in `bits` and not in `minus` (a popcount of bits & ~minus). */
export function countBitsMissing(bits: Uint8Array, minus: Uint8Array): number {
  let count = 0;
  for (let byte = 0; byte < bits.length; byte += 1) {
    const missing = bits[byte]! & ~(minus[byte] ?? 0);
    for (let bit = missing; bit !== 0; bit &= bit - 1) count += 1;
  }
  return count;
}

/** Sets bit `index` (growing the array when needed); says whether it was set before. */
function setBit(bits: Uint8Array, index: number): { bits: Uint8Array; known: boolean } {
  const byte = index >>> 3;
  let target = bits;
  if (byte >= target.length) {
    target = new Uint8Array(Math.max(target.length * 2, byte + 1));
    target.set(bits);
  }
  const bit = 1 << (index & 7);
  const known = (target[byte]! & bit) !== 0;
  target[byte] = target[byte]! | bit;
  return { bits: target, known };
}
