/**
 * latency: every chunk is delivered `latency ± jitter` ms after the proxy read it. Order is
 * kept (a chunk never overtakes the one before it) and chunks wait side by side, so the
 * throughput is not reduced, as with Toxiproxy's timestamped chunks.
 */
import type { Chunk, TimerHandle, ToxicDefinition } from './types';

export type LatencyAttributes = {
  /** Added delay in ms. @default 0 */
  readonly latency: number;
  /** Random spread in ms: each chunk gets latency + a uniform value in [-jitter, jitter). @default 0 */
  readonly jitter: number;
};

interface Delayed {
  readonly chunk: Chunk;
  dueAtMs: number;
}

export const latencyToxic: ToxicDefinition<LatencyAttributes> = {
  type: 'latency',
  goStructName: 'LatencyToxic',
  attributes: { latency: 'int64', jitter: 'int64' },
  createStage(context, initial) {
    let attributes = initial;
    const queue: Delayed[] = [];
    let heldBytes = 0;
    let ended = false;
    let lastDueAtMs = Number.NEGATIVE_INFINITY;
    let timer: TimerHandle | undefined;

    const delayMs = (): number => {
      const jitterMs = attributes.jitter;
      return attributes.latency + (jitterMs > 0 ? Math.floor(context.random() * jitterMs * 2) - jitterMs : 0);
    };
    const release = (): void => {
      timer = undefined;
      const nowMs = context.nowMs();
      while (queue.length > 0 && queue[0]!.dueAtMs <= nowMs) {
        const { chunk } = queue.shift()!;
        heldBytes -= chunk.data.length;
        context.push(chunk);
      }
      if (queue.length > 0) schedule();
      else if (ended) context.end();
    };
    const schedule = (): void => {
      if (timer !== undefined || queue.length === 0) return;
      // Ceil: a timer that fires early would deliver before the promised latency.
      timer = context.setTimer(release, Math.max(0, Math.ceil(queue[0]!.dueAtMs - context.nowMs())));
    };

    return {
      get heldBytes() {
        return heldBytes;
      },
      onData(chunk) {
        const dueAtMs = Math.max(chunk.receivedAtMs + delayMs(), lastDueAtMs);
        lastDueAtMs = dueAtMs;
        if (queue.length === 0 && dueAtMs <= context.nowMs()) {
          context.push(chunk); // nothing earlier is waiting, so order is kept
          return;
        }
        queue.push({ chunk, dueAtMs });
        heldBytes += chunk.data.length;
        schedule();
      },
      onEnd() {
        ended = true;
        if (queue.length === 0) context.end();
      },
      update(next) {
        attributes = next;
        if (queue.length === 0) return;
        // As Toxiproxy: an update interrupts the wait, the chunk being waited for goes out at once
        // ("exit fast without applying latency"), and the chunks behind it wait the new latency
        // counted from when they were read.
        context.clearTimer(timer);
        timer = undefined;
        queue[0]!.dueAtMs = context.nowMs();
        lastDueAtMs = queue[0]!.dueAtMs;
        for (const delayed of queue.slice(1)) {
          delayed.dueAtMs = Math.max(delayed.chunk.receivedAtMs + delayMs(), lastDueAtMs);
          lastDueAtMs = delayed.dueAtMs;
        }
        release();
      },
      flush() {
        context.clearTimer(timer);
        timer = undefined;
        for (const { chunk } of queue.splice(0)) context.push(chunk);
        heldBytes = 0;
        if (ended) context.end();
      },
    };
  },
};
