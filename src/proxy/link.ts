/**
 * One direction of one proxied connection: source socket -> toxics in insertion order ->
 * destination socket. This is the shared pipeline every toxic runs in: it rolls toxicity,
 * owns the timers, applies backpressure and propagates the end of the stream, so each toxic
 * file only says what it does to the bytes.
 *
 * Backpressure: the source is paused while the destination needs a drain or while the toxics
 * hold more than `maxHeldBytes` (or one toxic more than its own `holdLimitBytes`); it resumes
 * below half of that. A throttled direction thus pushes back through TCP flow control and
 * memory stays flat.
 *
 * Close: when the end of the stream reaches the destination, the destination is ended (queued
 * bytes are written first) and then closed completely, as Toxiproxy closes its side; the
 * other direction then sees its source close and does the same.
 */
import type { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { AmqpFrameScanner, type AmqpFrameEvent } from './amqpFrames';
import type { Toxic } from './toxic';
import type { Chunk, FaultEventKind, IntegerAttributes, StageContext, StreamDirection, TimerHandle, ToxicStage } from './toxics/types';

/** What a link needs from its connection. */
export interface LinkHost {
  record(toxic: Toxic, kind: FaultEventKind, detail?: Readonly<Record<string, number | string>>): void;
  /** Sends a TCP RST to both peers (once) on behalf of `toxic`. */
  reset(toxic: Toxic): void;
  /** An AMQP frame that matters to a fault was read from this direction's source. */
  frame(direction: StreamDirection, frame: AmqpFrameEvent, atNs: bigint): void;
}

export interface LinkOptions {
  /** Bytes the toxics of one direction may hold before the source is paused. @default 8 MiB */
  readonly maxHeldBytes: number;
  /** Toxicity rolls and jitter; replaceable in tests. @default Math.random */
  readonly random: () => number;
}

export const LINK_DEFAULTS: LinkOptions = { maxHeldBytes: 8 * 1024 * 1024, random: Math.random };

interface Slot {
  readonly toxic: Toxic;
  /** Undefined when the toxicity roll left this connection and direction untouched. */
  stage: ToxicStage<IntegerAttributes> | undefined;
  /** The stage closed the stream (Toxiproxy's `stub.Close()`): input reaching it is dropped. */
  ended: boolean;
}

export class Link {
  private readonly slots: Slot[] = [];
  private stageCount = 0;
  private readonly timers = new Set<TimerHandle>();
  private sourceEnded = false;
  private finishing = false;
  private disposed = false;
  private pausedForFlow = false;
  /** Bytes read from the source. */
  bytesIn = 0;
  private readonly frames: AmqpFrameScanner;

  constructor(
    readonly direction: StreamDirection,
    private readonly source: Socket,
    private readonly dest: Socket,
    private readonly host: LinkHost,
    private readonly options: LinkOptions,
    toxics: readonly Toxic[],
  ) {
    for (const toxic of toxics) this.attach(toxic);
    // Stamped when the bytes were read, before any toxic: the moment the frame passed the proxy.
    this.frames = new AmqpFrameScanner(direction === 'upstream', (frame) => host.frame(direction, frame, process.hrtime.bigint()));
    source.on('data', (data: Buffer) => this.onSourceData(data));
    source.on('end', () => this.endOfSource());
    dest.on('drain', () => this.maybeResume());
  }

  /** A toxic added to the proxy reaches this direction (at the end of the chain). */
  attach(toxic: Toxic): void {
    const slot: Slot = { toxic, stage: undefined, ended: false };
    this.slots.push(slot);
    if (!this.sourceEnded && !this.disposed && this.options.random() < toxic.toxicity) this.activate(slot);
  }

  /** New attributes or toxicity. A changed toxicity is rolled again for this connection. */
  update(toxic: Toxic, toxicityChanged: boolean): void {
    const slot = this.slots.find((candidate) => candidate.toxic === toxic);
    if (!slot || slot.ended || this.disposed) return;
    const applies = toxicityChanged ? this.options.random() < toxic.toxicity : slot.stage !== undefined;
    if (slot.stage && applies) slot.stage.update(toxic.attributes);
    else if (slot.stage) this.deactivate(slot, 'disabled');
    else if (applies && !this.sourceEnded) this.activate(slot);
  }

  /** The toxic is removed: what it holds is handed on at once, then it leaves the chain. */
  detach(toxic: Toxic): void {
    const index = this.slots.findIndex((candidate) => candidate.toxic === toxic);
    if (index < 0) return;
    const slot = this.slots[index]!;
    if (slot.stage && !this.disposed) this.deactivate(slot, 'removed');
    this.slots.splice(this.slots.indexOf(slot), 1);
  }

  /** The source socket ended, failed or closed: the end travels through the toxics. */
  endOfSource(): void {
    if (this.sourceEnded || this.disposed) return;
    this.sourceEnded = true;
    this.endFrom(0);
  }

  /** The connection is gone: drop everything, clear every timer. */
  dispose(): void {
    this.disposed = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    this.slots.length = 0;
    this.stageCount = 0;
  }

  private activate(slot: Slot): void {
    slot.stage = slot.toxic.definition.createStage(this.contextFor(slot), slot.toxic.attributes);
    this.stageCount += 1;
  }

  private deactivate(slot: Slot, why: 'removed' | 'disabled'): void {
    // A timeout toxic closes the connections it held only when it is removed, not when a
    // new toxicity roll turns it off (Toxiproxy's Cleanup runs on removal only).
    slot.stage!.flush(why === 'removed');
    slot.stage = undefined;
    this.stageCount -= 1;
    this.maybeResume();
  }

  private onSourceData(data: Buffer): void {
    this.bytesIn += data.length;
    this.frames.scan(data);
    if (this.stageCount === 0) {
      this.write(data); // fast path: no toxic on this direction
      return;
    }
    this.deliverFrom(0, { data, receivedAtMs: performance.now() });
    if (this.holding(1)) this.pauseSource();
  }

  private deliverFrom(index: number, chunk: Chunk): void {
    for (let i = index; i < this.slots.length; i += 1) {
      const slot = this.slots[i]!;
      if (slot.ended) return; // the stream was closed at this toxic: the data goes nowhere
      if (slot.stage === undefined) continue;
      slot.stage.onData(chunk);
      return;
    }
    this.write(chunk.data);
  }

  private endFrom(index: number): void {
    for (let i = index; i < this.slots.length; i += 1) {
      const slot = this.slots[i]!;
      if (slot.ended) return;
      if (slot.stage === undefined) continue;
      slot.stage.onEnd();
      return;
    }
    this.finish();
  }

  private write(data: Buffer): void {
    if (this.finishing || this.dest.destroyed) return;
    if (!this.dest.write(data)) this.pauseSource();
  }

  private finish(): void {
    if (this.finishing) return;
    this.finishing = true;
    if (this.dest.destroyed) return;
    this.dest.end(() => this.dest.destroy());
  }

  /** True when the toxics hold more than `fraction` of their bound (one toxic's own, or all together). */
  private holding(fraction: number): boolean {
    let totalBytes = 0;
    for (const { stage } of this.slots) {
      if (stage === undefined) continue;
      totalBytes += stage.heldBytes;
      if (stage.heldBytes > (stage.holdLimitBytes ?? this.options.maxHeldBytes) * fraction) return true;
    }
    return totalBytes > this.options.maxHeldBytes * fraction;
  }

  private pauseSource(): void {
    if (this.pausedForFlow) return;
    this.pausedForFlow = true;
    this.source.pause();
  }

  private maybeResume(): void {
    if (!this.pausedForFlow || this.dest.writableNeedDrain || this.holding(0.5)) return;
    this.pausedForFlow = false;
    this.source.resume();
  }

  private contextFor(slot: Slot): StageContext {
    return {
      push: (chunk) => {
        const index = this.slots.indexOf(slot);
        if (index < 0 || this.disposed) return;
        this.deliverFrom(index + 1, chunk);
        this.maybeResume();
      },
      end: () => {
        if (slot.ended) return;
        slot.ended = true;
        const index = this.slots.indexOf(slot);
        if (index >= 0 && !this.disposed) this.endFrom(index + 1);
      },
      reset: () => this.host.reset(slot.toxic),
      record: (kind, detail) => this.host.record(slot.toxic, kind, detail),
      setTimer: (callback, delayMs) => {
        const timer = setTimeout(() => {
          this.timers.delete(timer);
          if (!this.disposed) callback();
        }, delayMs);
        this.timers.add(timer);
        return timer;
      },
      clearTimer: (timer) => {
        if (timer === undefined) return;
        clearTimeout(timer);
        this.timers.delete(timer);
      },
      nowMs: () => performance.now(),
      random: this.options.random,
    };
  }
}
