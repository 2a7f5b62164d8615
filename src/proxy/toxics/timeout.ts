/**
 * timeout: a partition. All data is dropped; with `timeout` > 0 the connection is closed
 * once `timeout` ms pass without data arriving (arriving data restarts the count); with 0 it
 * stays open until the toxic is removed, and removal closes the connections it was holding.
 *
 * `hold_end` (the embedded proxy's own attribute; Toxiproxy ignores it): an end or close from
 * the far side is held back too, until the toxic goes, as a real partition holds a FIN. Without
 * it, a peer that gives up on the silence (RabbitMQ after two or three missed heartbeats) closes
 * its socket and the client is told by that close, which is not what a partition does.
 */
import type { TimerHandle, ToxicDefinition } from './types';

export type TimeoutAttributes = {
  /** ms without data before the close; 0 never closes (until removal). @default 0 */
  readonly timeout: number;
  /** Non-zero: hold an end from the source until the toxic is removed or turned off. @default 0 */
  readonly hold_end: number;
};

export const timeoutToxic: ToxicDefinition<TimeoutAttributes> = {
  type: 'timeout',
  goStructName: 'TimeoutToxic',
  attributes: { timeout: 'int64', hold_end: 'int64' },
  extensionAttributes: ['hold_end'],
  createStage(context, initial) {
    let timeoutMs = initial.timeout;
    let holdEnd = initial.hold_end !== 0;
    let endHeld = false;
    let timer: TimerHandle | undefined;
    let closed = false;
    let dropping = false;

    const close = (): void => {
      context.clearTimer(timer);
      timer = undefined;
      closed = true;
      context.end();
    };
    const restartCount = (): void => {
      context.clearTimer(timer);
      timer = undefined;
      if (timeoutMs <= 0 || closed) return;
      timer = context.setTimer(() => {
        context.record('timeout_closed', { timeout_ms: timeoutMs });
        close();
      }, timeoutMs);
    };
    restartCount(); // the count starts when the toxic reaches the connection, as in Toxiproxy

    return {
      heldBytes: 0,
      onData(chunk) {
        if (!dropping) {
          dropping = true;
          context.record('data_dropped', { first_chunk_bytes: chunk.data.length });
        }
        restartCount();
      },
      onEnd() {
        if (!holdEnd) {
          close();
          return;
        }
        if (endHeld || closed) return;
        endHeld = true;
        context.record('end_held', {});
      },
      update(attributes) {
        timeoutMs = attributes.timeout;
        holdEnd = attributes.hold_end !== 0;
        // Holding no longer asked for: the end held so far goes on now.
        if (endHeld && !holdEnd && !closed) close();
        else restartCount();
      },
      flush(removed) {
        if (closed) return;
        if (!removed) {
          context.clearTimer(timer); // turned off by a new toxicity roll: data flows again
          if (endHeld) close(); // and the end it held goes on
          return;
        }
        context.record('timeout_removed_closed', { timeout_ms: timeoutMs });
        close();
      },
    };
  },
};
