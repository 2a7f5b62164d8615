import type { BackoffOptions } from './types';

/** Delay before retry `attempt` (1-based): exponential, capped, with symmetric jitter. */
export function backoffDelayMs(options: BackoffOptions, attempt: number, random: () => number = Math.random): number {
  const base = Math.min(options.maxDelayMs, options.initialDelayMs * options.factor ** (attempt - 1));
  const spread = base * options.jitter;
  return Math.max(0, Math.round(base + (random() * 2 - 1) * spread));
}
