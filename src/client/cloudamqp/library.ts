/**
 * @cloudamqp/amqp-client through its AMQPSession (./adapter.ts). Its errors are all one class
 * without a code, and the common words (`Socket closed`, the socket's own `read ECONNRESET`,
 * `Heartbeat timeout`) already read them: it declares no words of its own.
 */
import { defineClientLibrary } from '../api';
import type * as Adapter from './adapter';

export const cloudamqpLibrary = defineClientLibrary({
  packages: ['@cloudamqp/amqp-client'],
  clients: {
    cloudamqp: () => (require('./adapter') as typeof Adapter).cloudamqpAdapter,
  },
});
