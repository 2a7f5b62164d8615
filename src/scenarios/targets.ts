/** The product's recovery targets: RST < 10 ms, partition < 200 ms, full recovery < 5 s. */
import type { FigureTarget } from './types';

export const SEED_TARGETS = {
  rstDetection: { comparator: '<', threshold: 10, unit: 'ms' },
  partitionDetection: { comparator: '<', threshold: 200, unit: 'ms' },
  fullRecovery: { comparator: '<', threshold: 5000, unit: 'ms' },
} as const satisfies Record<string, FigureTarget>;
