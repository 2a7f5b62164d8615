/** foo-foo-mq: a topology-and-handlers layer over its own copy of amqplib 0.8, with its own recovery (./adapter.ts). */
import { defineClientLibrary } from '../api';
import { amqplibFaultWords } from '../amqplib/library';
import type { FaultKind } from '../faults';
import type * as Adapter from './adapter';

/**
 * foo-foo-mq's own words, then amqplib's (its errors are those of its amqplib 0.8): the broker's
 * basic.cancel becomes an error its consume callback throws (src/amqp/queue.js:347-351), which
 * amqplib turns into a failure of the whole connection.
 */
export function fooFooMqFaultWords(error: unknown): FaultKind | undefined {
  const message = (error as { message?: unknown } | null | undefined)?.message;
  if (typeof message === 'string' && /broker cancelled the consumer/i.test(message)) return 'consumer_cancelled';
  return amqplibFaultWords(error);
}

export const fooFooMqLibrary = defineClientLibrary({
  // Its amqplib is its own dependency (0.8, node_modules/foo-foo-mq/node_modules/amqplib), not the harness's.
  packages: ['foo-foo-mq'],
  clients: {
    'foo-foo-mq': () => (require('./adapter') as typeof Adapter).fooFooMqAdapter,
  },
  faultWords: fooFooMqFaultWords,
});
