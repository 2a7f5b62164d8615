/**
 * slicer: splits each chunk into pieces of about `average_size` ± `size_variation` bytes
 * (Toxiproxy's recursive halving), optionally `delay` µs apart, to exercise frame reassembly.
 */
import type { Chunk, TimerHandle, ToxicDefinition } from './types';

export type SlicerAttributes = {
  /** Average piece size in bytes; 0 or less passes chunks whole. @default 0 */
  readonly average_size: number;
  /** ± bytes of variation around the average. @default 0 */
  readonly size_variation: number;
  /** Microseconds between pieces (timers have 1 ms resolution, so small values round up). @default 0 */
  readonly delay: number;
};

/**
 * Offsets where a chunk of `lengthBytes` is cut, as Toxiproxy's `chunk()`; the cut point is
 * clamped inside the range so degenerate attributes cannot recurse forever.
 */
export function sliceOffsets(lengthBytes: number, averageBytes: number, variationBytes: number, random: () => number): number[] {
  const cuts: number[] = [0];
  const split = (start: number, end: number): void => {
    if (end - start <= 1 || end - start - averageBytes <= variationBytes) {
      cuts.push(end);
      return;
    }
    const jitter = variationBytes > 0 ? Math.floor(random() * variationBytes * 2) - variationBytes : 0;
    const mid = Math.min(end - 1, Math.max(start + 1, start + Math.floor((end - start) / 2) + jitter));
    split(start, mid);
    split(mid, end);
  };
  if (lengthBytes > 0) split(0, lengthBytes);
  return cuts;
}

export const slicerToxic: ToxicDefinition<SlicerAttributes> = {
  type: 'slicer',
  goStructName: 'SlicerToxic',
  attributes: { average_size: 'int', size_variation: 'int', delay: 'int' },
  createStage(context, initial) {
    let attributes = initial;
    const queue: Chunk[] = [];
    let heldBytes = 0;
    let ended = false;
    let timer: TimerHandle | undefined;

    const pump = (): void => {
      timer = undefined;
      const piece = queue.shift();
      if (piece) {
        heldBytes -= piece.data.length;
        context.push(piece);
      }
      if (queue.length > 0) timer = context.setTimer(pump, attributes.delay / 1000);
      else if (ended) context.end();
    };

    return {
      get heldBytes() {
        return heldBytes;
      },
      onData(chunk) {
        const cuts =
          attributes.average_size > 0
            ? sliceOffsets(chunk.data.length, attributes.average_size, Math.max(0, attributes.size_variation), context.random)
            : [0, chunk.data.length];
        for (let i = 1; i < cuts.length; i += 1) {
          const piece = { data: chunk.data.subarray(cuts[i - 1], cuts[i]), receivedAtMs: chunk.receivedAtMs };
          if (attributes.delay <= 0 && queue.length === 0) context.push(piece);
          else {
            queue.push(piece);
            heldBytes += piece.data.length;
          }
        }
        if (timer === undefined && queue.length > 0) pump();
      },
      onEnd() {
        ended = true;
        if (queue.length === 0) context.end();
      },
      update(next) {
        attributes = next;
      },
      flush() {
        context.clearTimer(timer);
        timer = undefined;
        for (const piece of queue.splice(0)) context.push(piece);
        heldBytes = 0;
        if (ended) context.end();
      },
    };
  },
};
