/**
 * bandwidth: paced delivery at `rate` KB/s (1 KB = 1000 bytes, as Toxiproxy). Bytes are
 * released from a credit that grows with elapsed time, so a late timer does not lower the
 * average rate; large chunks go out in 100 ms slices, as Toxiproxy does. Idle time earns no
 * credit (no burst after a pause). While data waits here the pipeline pauses the source, so
 * a fast sender is held back by TCP flow control instead of filling memory.
 *
 * A rate of 0 (or less) lets nothing through until the rate is raised or the toxic removed, as
 * on Toxiproxy 2.12, whose 100 ms slicing loop never advances at rate 0 (checked against it).
 */
import type { Chunk, StageContext, TimerHandle, ToxicDefinition, ToxicStage } from './types';

export type BandwidthAttributes = {
  /** KB/s (1 KB = 1000 bytes); 0 or less lets nothing through (Toxiproxy's behaviour). @default 0 */
  readonly rate: number;
};

/** Toxiproxy splits anything larger than 100 ms worth of bytes. */
const SLICE_MS = 100;
/** Held at most: 100 ms worth or 64 KiB, like a link's small buffer (Toxiproxy holds one chunk). */
const MIN_HOLD_BYTES = 64 * 1024;

export const bandwidthToxic: ToxicDefinition<BandwidthAttributes> = {
  type: 'bandwidth',
  goStructName: 'BandwidthToxic',
  attributes: { rate: 'int64' },
  createStage: (context, initial) => new BandwidthStage(context, initial.rate),
};

/** One connection's paced link: chunks queued, released from a credit that grows with elapsed time. */
class BandwidthStage implements ToxicStage<BandwidthAttributes> {
  heldBytes = 0;
  private readonly queue: Chunk[] = [];
  private ended = false;
  private creditBytes = 0;
  private lastRefillMs = 0;
  private timer: TimerHandle | undefined;

  constructor(
    private readonly context: StageContext,
    /** 1 KB/s = 1000 bytes/s = 1 byte/ms. */
    private rateBytesPerMs: number,
  ) {}

  get holdLimitBytes(): number {
    return Math.max(MIN_HOLD_BYTES, this.rateBytesPerMs * SLICE_MS);
  }

  onData(chunk: Chunk): void {
    this.queue.push(chunk);
    this.heldBytes += chunk.data.length;
    if (this.rateBytesPerMs <= 0) return; // stalled until the rate is raised or the toxic removed
    if (this.timer === undefined && this.queue.length === 1) {
      this.lastRefillMs = this.context.nowMs();
      this.creditBytes = 0;
      this.schedule();
    }
  }

  onEnd(): void {
    this.ended = true;
    if (this.queue.length === 0) this.context.end();
  }

  update(attributes: BandwidthAttributes): void {
    this.stopTimer();
    if (this.queue.length > 0 && this.rateBytesPerMs > 0) this.tick(); // settle the credit earned at the old rate
    this.stopTimer();
    const wasStalled = this.rateBytesPerMs <= 0;
    this.rateBytesPerMs = attributes.rate;
    if (this.queue.length === 0 || this.rateBytesPerMs <= 0) return;
    if (wasStalled) {
      this.lastRefillMs = this.context.nowMs();
      this.creditBytes = 0;
    }
    this.schedule();
  }

  flush(): void {
    this.stopTimer();
    for (const chunk of this.queue.splice(0)) this.deliver(chunk);
    if (this.ended) this.context.end();
  }

  private stopTimer(): void {
    this.context.clearTimer(this.timer);
    this.timer = undefined;
  }

  private deliver(chunk: Chunk): void {
    this.heldBytes -= chunk.data.length;
    this.context.push(chunk);
  }

  private schedule(): void {
    const neededBytes = Math.min(this.queue[0]!.data.length, this.rateBytesPerMs * SLICE_MS);
    this.timer = this.context.setTimer(() => this.tick(), Math.max(1, Math.ceil((neededBytes - this.creditBytes) / this.rateBytesPerMs)));
  }

  private tick(): void {
    const { queue, context } = this;
    this.timer = undefined;
    const nowMs = context.nowMs();
    this.creditBytes += (nowMs - this.lastRefillMs) * this.rateBytesPerMs;
    this.lastRefillMs = nowMs;
    while (queue.length > 0) {
      const head = queue[0]!;
      const sliceBytes = Math.min(head.data.length, this.rateBytesPerMs * SLICE_MS);
      if (this.creditBytes < sliceBytes) break;
      this.creditBytes -= sliceBytes;
      if (sliceBytes === head.data.length) {
        this.deliver(queue.shift()!);
      } else {
        queue[0] = { data: head.data.subarray(sliceBytes), receivedAtMs: head.receivedAtMs };
        this.heldBytes -= sliceBytes;
        context.push({ data: head.data.subarray(0, sliceBytes), receivedAtMs: head.receivedAtMs });
      }
    }
    if (queue.length > 0) return this.schedule();
    this.creditBytes = 0;
    if (this.ended) context.end();
  }
}
