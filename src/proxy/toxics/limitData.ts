/**
 * limit_data: lets `bytes` bytes through on this connection and direction, then closes it.
 * The count survives attribute updates (Toxiproxy's per-connection state).
 */
import type { ToxicDefinition } from './types';

export type LimitDataAttributes = {
  /** Bytes allowed through before the close. @default 0 (closes on the first data) */
  readonly bytes: number;
};

export const limitDataToxic: ToxicDefinition<LimitDataAttributes> = {
  type: 'limit_data',
  goStructName: 'LimitDataToxic',
  attributes: { bytes: 'int64' },
  createStage(context, initial) {
    let limitBytes = initial.bytes;
    let transmittedBytes = 0;
    let closed = false;
    return {
      heldBytes: 0,
      onData(chunk) {
        if (closed) return;
        const remainingBytes = Math.max(0, limitBytes - transmittedBytes);
        const data = remainingBytes < chunk.data.length ? chunk.data.subarray(0, remainingBytes) : chunk.data;
        if (data.length > 0) {
          context.push(data === chunk.data ? chunk : { data, receivedAtMs: chunk.receivedAtMs });
          transmittedBytes += data.length;
        }
        if (limitBytes - transmittedBytes <= 0) {
          closed = true;
          context.record('limit_reached', { limit_bytes: limitBytes, transmitted_bytes: transmittedBytes });
          context.end();
        }
      },
      onEnd: () => context.end(),
      update(attributes) {
        limitBytes = attributes.bytes;
      },
      flush: () => undefined,
    };
  },
};
