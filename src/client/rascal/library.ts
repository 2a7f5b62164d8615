/** rascal: amqplib behind rascal's configuration, channel pools and own recovery (./adapter.ts). */
import { defineClientLibrary } from '../api';
import { amqplibFaultWords } from '../amqplib/library';
import type * as Adapter from './adapter';

export const rascalLibrary = defineClientLibrary({
  // rascal drives amqplib (its peer dependency): the connection's and channels' errors are amqplib's.
  packages: ['rascal', 'amqplib'],
  clients: {
    rascal: () => (require('./adapter') as typeof Adapter).rascalAdapter,
  },
  faultWords: amqplibFaultWords,
});
