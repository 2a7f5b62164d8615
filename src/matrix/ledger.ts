/**
 * One fault-matrix thread's book of its publishes and deliveries (inside the worker): every
 * publish's phase, moment and fate, every delivery of its own messages, each distinct rejection.
 * The fate of each publish is classed once, at the end of the settle bound and before anything is
 * closed (`classAll`): a publish still pending then is hung, whatever close() does to it later
 * (every library's close rejects what is pending, which would otherwise hide a confirm that never
 * came).
 */
import { PublishNackedError } from '../client/types';
import { describeError } from '../errors';
import { nowNs } from '../measure/clock';
import { redactText } from '../redact';
import { PublishState, type MatrixThreadReport } from './report';

/** At most this many distinct rejection messages are kept. */
const MAX_REJECTIONS = 10;

export class PublishLedger {
  private readonly state: number[] = [];
  private readonly phase: number[] = [];
  private readonly publishedAtNs: bigint[] = [];
  private readonly settledAtNs: bigint[] = [];
  private readonly deliveries: number[] = [];
  private readonly deliveredAtNs: bigint[] = [];
  private readonly lastDeliveredAtNs: bigint[] = [];
  private readonly rejections = new Map<string, { count: number; firstNs: bigint }>();
  private classed: Uint8Array | undefined;
  private settledOnlyByClose = 0;

  /** A publish made now, in `phase` (PublishPhase). */
  published(seq: number, phase: number, atNs: bigint): void {
    this.phase[seq] = phase;
    this.state[seq] = PublishState.PENDING;
    this.publishedAtNs[seq] = atNs;
  }

  publishedAt(seq: number): bigint {
    return this.publishedAtNs[seq] ?? 0n;
  }

  phaseOf(seq: number): number | undefined {
    return this.phase[seq];
  }

  /** Its confirm came. Returns the moment. */
  confirmed(seq: number): bigint {
    return this.settle(seq, PublishState.CONFIRMED);
  }

  /** It was nacked or rejected with the library's error; returns whether it was a nack. */
  failed(seq: number, reason: unknown): boolean {
    const nacked = reason instanceof PublishNackedError;
    const afterBound = this.classed?.[seq] === PublishState.PENDING;
    const atNs = this.settle(seq, nacked ? PublishState.NACKED : PublishState.REJECTED);
    // A hung publish that close() rejected later: its fate was fixed at the bound, the close's error is not its rejection.
    if (afterBound) return nacked;
    const message = redactText(describeError(reason)).slice(0, 200);
    const known = this.rejections.get(message);
    if (known) known.count += 1;
    else if (this.rejections.size < MAX_REJECTIONS) this.rejections.set(message, { count: 1, firstNs: atNs });
    return nacked;
  }

  /** One delivery of its own message `seq`. */
  delivered(seq: number, atNs: bigint): void {
    this.deliveries[seq] = (this.deliveries[seq] ?? 0) + 1;
    if (this.deliveredAtNs[seq] === undefined) this.deliveredAtNs[seq] = atNs;
    this.lastDeliveredAtNs[seq] = atNs;
  }

  get isClassed(): boolean {
    return this.classed !== undefined;
  }

  /** The end of the settle bound: every publish's class is fixed now (pending = hung). */
  classAll(): void {
    this.classed ??= Uint8Array.from(this.state, (value) => value ?? PublishState.PENDING);
  }

  /** The book as a thread report's publish and delivery fields. */
  report(): Pick<
    MatrixThreadReport,
    | 'state'
    | 'phase'
    | 'publishedAtNs'
    | 'settledAtNs'
    | 'deliveries'
    | 'deliveredAtNs'
    | 'lastDeliveredAtNs'
    | 'rejections'
    | 'settledOnlyByClose'
  > {
    const length = this.state.length;
    const classed = this.classed ?? Uint8Array.from(this.state, (value) => value ?? PublishState.PENDING);
    return {
      state: classed,
      settledOnlyByClose: this.settledOnlyByClose,
      phase: Uint8Array.from({ length }, (_, seq) => this.phase[seq] ?? 0),
      publishedAtNs: BigInt64Array.from({ length }, (_, seq) => this.publishedAtNs[seq] ?? 0n),
      // A publish classed hung keeps no settle moment: what came after the bound is not its fate.
      settledAtNs: BigInt64Array.from({ length }, (_, seq) => (classed[seq] === PublishState.PENDING ? 0n : (this.settledAtNs[seq] ?? 0n))),
      deliveries: Uint16Array.from({ length }, (_, seq) => Math.min(65_535, this.deliveries[seq] ?? 0)),
      deliveredAtNs: BigInt64Array.from({ length }, (_, seq) => this.deliveredAtNs[seq] ?? 0n),
      lastDeliveredAtNs: BigInt64Array.from({ length }, (_, seq) => this.lastDeliveredAtNs[seq] ?? 0n),
      rejections: [...this.rejections.entries()].map(([message, { count, firstNs }]) => ({ message, count, firstNs: String(firstNs) })),
    };
  }

  private settle(seq: number, state: number): bigint {
    const atNs = nowNs();
    if (this.classed && this.classed[seq] === PublishState.PENDING) this.settledOnlyByClose += 1;
    this.state[seq] = state;
    this.settledAtNs[seq] = atNs;
    return atNs;
  }
}
