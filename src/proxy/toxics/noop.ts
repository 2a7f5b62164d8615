/** noop: passes everything through unchanged (useful to test the API and toxicity). */
import type { ToxicDefinition } from './types';

export type NoopAttributes = Record<string, never>;

export const noopToxic: ToxicDefinition<NoopAttributes> = {
  type: 'noop',
  goStructName: 'NoopToxic',
  attributes: {},
  createStage(context) {
    return {
      heldBytes: 0,
      onData: (chunk) => context.push(chunk),
      onEnd: () => context.end(),
      update: () => undefined,
      flush: () => undefined,
    };
  },
};
