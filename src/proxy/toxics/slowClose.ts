/** slow_close: data passes unchanged, but the close is passed on only `delay` ms after it arrived. */
import type { TimerHandle, ToxicDefinition } from './types';

export type SlowCloseAttributes = {
  /** How long the close is held back, in ms. @default 0 */
  readonly delay: number;
};

export const slowCloseToxic: ToxicDefinition<SlowCloseAttributes> = {
  type: 'slow_close',
  goStructName: 'SlowCloseToxic',
  attributes: { delay: 'int64' },
  createStage(context, initial) {
    let delayMs = initial.delay;
    let pendingClose: TimerHandle | undefined;
    let closed = false;
    const close = (): void => {
      pendingClose = undefined;
      if (closed) return;
      closed = true;
      context.end();
    };
    return {
      heldBytes: 0,
      onData: (chunk) => context.push(chunk),
      onEnd() {
        pendingClose = context.setTimer(
          () => {
            context.record('slow_close_fired', { delay_ms: delayMs });
            close();
          },
          Math.max(0, delayMs),
        );
      },
      update(attributes) {
        delayMs = attributes.delay; // a close already waiting keeps its delay
      },
      flush() {
        // Removed while holding a close: pass it on now (nothing is held back after removal).
        if (pendingClose === undefined) return;
        context.clearTimer(pendingClose);
        close();
      },
    };
  },
};
