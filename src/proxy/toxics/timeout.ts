/**
 * timeout: a partition. All data is dropped; with `timeout` > 0 the connection is closed
 * once `timeout` ms pass without data arriving (arriving data restarts the count); with 0 it
 * stays open until the toxic is removed, and removal closes the connections it was holding.
 */
import type { TimerHandle, ToxicDefinition } from './types';

export type TimeoutAttributes = {
  /** ms without data before the close; 0 never closes (until removal). @default 0 */
  readonly timeout: number;
};

export const timeoutToxic: ToxicDefinition<TimeoutAttributes> = {
  type: 'timeout',
  goStructName: 'TimeoutToxic',
  attributes: { timeout: 'int64' },
  createStage(context, initial) {
    let timeoutMs = initial.timeout;
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
      onEnd: close,
      update(attributes) {
        timeoutMs = attributes.timeout;
        restartCount();
      },
      flush(removed) {
        if (closed) return;
        if (!removed) {
          context.clearTimer(timer); // turned off by a new toxicity roll: data flows again
          return;
        }
        context.record('timeout_removed_closed', { timeout_ms: timeoutMs });
        close();
      },
    };
  },
};
