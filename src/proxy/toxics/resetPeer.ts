/**
 * reset_peer: on the next data (or end) in its direction, waits `timeout` ms, then resets
 * the connection with a true TCP RST to both peers (`socket.resetAndDestroy()`).
 *
 * Deliberate difference from Toxiproxy: Toxiproxy arms SO_LINGER=0 only on connections
 * accepted while a reset_peer toxic exists, so older connections get a FIN. Here every
 * connection the toxic reaches gets a real RST, which is the fault the benchmarks model.
 * Once triggered, the reset goes ahead even if the toxic is removed meanwhile (as in Toxiproxy).
 */
import type { ToxicDefinition } from './types';

export type ResetPeerAttributes = {
  /** ms between the triggering data and the RST; 0 resets at once. @default 0 */
  readonly timeout: number;
};

export const resetPeerToxic: ToxicDefinition<ResetPeerAttributes> = {
  type: 'reset_peer',
  goStructName: 'ResetToxic',
  attributes: { timeout: 'int64' },
  createStage(context, initial) {
    let timeoutMs = initial.timeout;
    let triggered = false;
    const trigger = (): void => {
      if (triggered) return;
      triggered = true;
      // Synchronous when 0: the RST leaves while the triggering chunk is being handled.
      if (timeoutMs <= 0) context.reset();
      else context.setTimer(() => context.reset(), timeoutMs);
    };
    return {
      heldBytes: 0,
      onData: trigger, // the data itself is dropped: the connection is about to be reset
      onEnd: trigger,
      update(attributes) {
        timeoutMs = attributes.timeout;
      },
      flush: () => undefined,
    };
  },
};
