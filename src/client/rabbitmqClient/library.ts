/** rabbitmq-client: its own protocol code and its own recovery (./adapter.ts). */
import { defineClientLibrary } from '../api';
import type { FaultKind } from '../faults';
import type * as Adapter from './adapter';

/**
 * rabbitmq-client's own codes (5.x, lib/Connection.js: AMQPConnectionError), which it gives even
 * where its message says little: `CONN_CLOSE` a FIN, `SOCKET_TIMEOUT` missed heartbeats,
 * `CONNECTION_FORCED` the broker's close.
 */
export function rabbitmqClientFaultWords(error: unknown): FaultKind | undefined {
  const code = (error as { code?: unknown } | null | undefined)?.code;
  if (code === 'CONN_CLOSE') return 'closed';
  if (code === 'SOCKET_TIMEOUT') return 'heartbeat';
  if (code === 'CONNECTION_FORCED') return 'broker_closed';
  return undefined;
}

export const rabbitmqClientLibrary = defineClientLibrary({
  packages: ['rabbitmq-client'],
  clients: {
    'rabbitmq-client': () => (require('./adapter') as typeof Adapter).rabbitmqClientAdapter,
  },
  faultWords: rabbitmqClientFaultWords,
});
