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
import type { Chunk, TimerHandle, ToxicDefinition } from './types';

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
  createStage(context, initial) {
    // 1 KB/s = 1000 bytes/s = 1 byte/ms.
    let rateBytesPerMs = initial.rate;
    const queue: Chunk[] = [];
    let heldBytes = 0;
    let ended = false;
    let creditBytes = 0;
    let lastRefillMs = 0;
    let timer: TimerHandle | undefined;

    const deliver = (chunk: Chunk): void => {
      heldBytes -= chunk.data.length;
      context.push(chunk);
    };
    const releaseAll = (): void => {
      for (const chunk of queue.splice(0)) deliver(chunk);
      if (ended) context.end();
    };
    const schedule = (): void => {
      const neededBytes = Math.min(queue[0]!.data.length, rateBytesPerMs * SLICE_MS);
      timer = context.setTimer(tick, Math.max(1, Math.ceil((neededBytes - creditBytes) / rateBytesPerMs)));
    };
    const tick = (): void => {
      timer = undefined;
      const nowMs = context.nowMs();
      creditBytes += (nowMs - lastRefillMs) * rateBytesPerMs;
      lastRefillMs = nowMs;
      while (queue.length > 0) {
        const head = queue[0]!;
        const sliceBytes = Math.min(head.data.length, rateBytesPerMs * SLICE_MS);
        if (creditBytes < sliceBytes) break;
        creditBytes -= sliceBytes;
        if (sliceBytes === head.data.length) {
          deliver(queue.shift()!);
        } else {
          queue[0] = { data: head.data.subarray(sliceBytes), receivedAtMs: head.receivedAtMs };
          heldBytes -= sliceBytes;
          context.push({ data: head.data.subarray(0, sliceBytes), receivedAtMs: head.receivedAtMs });
        }
      }
      if (queue.length > 0) return schedule();
      creditBytes = 0;
      if (ended) context.end();
    };

    return {
      get heldBytes() {
        return heldBytes;
      },
      get holdLimitBytes() {
        return Math.max(MIN_HOLD_BYTES, rateBytesPerMs * SLICE_MS);
      },
      onData(chunk) {
        queue.push(chunk);
        heldBytes += chunk.data.length;
        if (rateBytesPerMs <= 0) return; // stalled until the rate is raised or the toxic removed
        if (timer === undefined && queue.length === 1) {
          lastRefillMs = context.nowMs();
          creditBytes = 0;
          schedule();
        }
      },
      onEnd() {
        ended = true;
        if (queue.length === 0) context.end();
      },
      update(attributes) {
        context.clearTimer(timer);
        timer = undefined;
        if (queue.length > 0 && rateBytesPerMs > 0) tick(); // settle the credit earned at the old rate
        context.clearTimer(timer);
        timer = undefined;
        const wasStalled = rateBytesPerMs <= 0;
        rateBytesPerMs = attributes.rate;
        if (queue.length === 0 || rateBytesPerMs <= 0) return;
        if (wasStalled) {
          lastRefillMs = context.nowMs();
          creditBytes = 0;
        }
        schedule();
      },
      flush() {
        context.clearTimer(timer);
        timer = undefined;
        releaseAll();
      },
    };
  },
};
