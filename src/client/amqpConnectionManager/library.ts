/** amqp-connection-manager: amqplib with the manager's own reconnection (./adapter.ts). */
import { defineClientLibrary } from '../api';
import { amqplibFaultWords } from '../amqplib/library';
import type * as Adapter from './adapter';

export const amqpConnectionManagerLibrary = defineClientLibrary({
  // The manager drives amqplib's connections and channels: their errors are amqplib's.
  packages: ['amqp-connection-manager', 'amqplib'],
  clients: {
    'amqp-connection-manager': () => (require('./adapter') as typeof Adapter).amqpConnectionManagerAdapter,
  },
  faultWords: amqplibFaultWords,
});
