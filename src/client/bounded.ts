/**
 * A bound on any wait on a client: a dead peer never answers, and a library that queues work
 * while disconnected may never resolve it.
 */
import { nowNs } from '../measure/clock';
import { ClientFaultError } from './types';

/** `promise`, or a rejection after `boundMs` (a dead peer never answers). */
export async function bounded<T>(promise: Promise<T>, boundMs: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  // If the bound wins, a later rejection of `promise` is expected, not unhandled.
  promise.catch(() => undefined);
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new ClientFaultError(message || `no answer within ${boundMs} ms`, nowNs(), 'deadline')), boundMs);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
