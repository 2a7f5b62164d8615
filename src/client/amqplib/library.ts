/**
 * amqplib: the plain library with the harness's reconnect loop (`amqplib`, ./manual.ts), and its
 * recovering connection (`amqplib-recovery`, ./recovery.ts).
 */
import { defineClientLibrary } from '../api';
import type { FaultKind } from '../faults';
import type * as Manual from './manual';
import type * as Recovery from './recovery';

/**
 * amqplib's own words (0.10 and 2.x, lib/connection.js and lib/channel.js): `Unexpected close`
 * for a FIN, `Channel closed by server: <code> (<text>)` for a channel error that took the
 * connection down.
 */
export function amqplibFaultWords(error: unknown): FaultKind | undefined {
  const message = (error as { message?: unknown } | null | undefined)?.message;
  if (typeof message !== 'string') return undefined;
  if (/unexpected close/i.test(message)) return 'closed';
  if (/channel closed by server/i.test(message)) return 'channel_closed';
  return undefined;
}

export const amqplibLibrary = defineClientLibrary({
  packages: ['amqplib'],
  clients: {
    amqplib: () => (require('./manual') as typeof Manual).amqplibManualAdapter,
    'amqplib-recovery': () => (require('./recovery') as typeof Recovery).amqplibRecoveryAdapter,
  },
  faultWords: amqplibFaultWords,
});
