/** How results word the faults clients received (pure; shared by the recovery metrics and the key metrics). */
import type { FaultKind } from '../results/schemaTypes';

export const KIND_WORDS: Readonly<Record<FaultKind, string>> = {
  none: 'nothing',
  reset: 'RST',
  closed: 'FIN',
  broker_closed: 'an AMQP close',
  heartbeat: 'missed heartbeats',
  deadline: 'silence (deadline)',
  error: 'another error',
};

/** `FIN ×10` / `RST ×7, FIN ×3`. */
export function describeReceived(received: Readonly<Record<string, number>>): string {
  return Object.entries(received)
    .map(([kind, count]) => `${KIND_WORDS[kind as FaultKind] ?? kind} ×${count}`)
    .join(', ');
}
