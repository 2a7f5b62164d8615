/** @golevelup/nestjs-rabbitmq: NestJS's RabbitMQ module, amqp-connection-manager's recovery underneath (./adapter.ts). */
import { defineClientLibrary } from '../api';
import { amqplibFaultWords } from '../amqplib/library';
import type * as Adapter from './adapter';

export const golevelupLibrary = defineClientLibrary({
  // Optional dependencies of the harness: without them the client is left out of `all`, with the command to add them.
  packages: [
    '@golevelup/nestjs-rabbitmq',
    '@nestjs/common',
    '@nestjs/core',
    'reflect-metadata',
    'rxjs',
    'amqp-connection-manager',
    'amqplib',
  ],
  clients: {
    golevelup: () => (require('./adapter') as typeof Adapter).golevelupAdapter,
  },
  // The module drives amqp-connection-manager, which drives amqplib: their errors are amqplib's.
  faultWords: amqplibFaultWords,
});
