'use strict';
/**
 * Bare @golevelup/nestjs-rabbitmq publish, as a Nest application uses the module: a Nest
 * application context (no HTTP server) from `RabbitMQModule.forRoot`, its `AmqpConnection`, and
 * `AmqpConnection.publish` to the default exchange, each promise awaited. The module has one
 * publishing channel, a confirm channel, so each publish resolves on the broker's confirm (the
 * library offers no other); the batch ends once the last one is confirmed, then one synchronous
 * round trip on the default channel. The library's defaults otherwise; socket options as in
 * scripts/bare/amqp-connection-manager.js (noDelay, a 5 s connect timeout).
 */
const { NestFactory } = require('@nestjs/core');
const { AmqpConnection, RabbitMQModule } = require('@golevelup/nestjs-rabbitmq');

const SILENT = { log() {}, error() {}, warn() {}, debug() {}, verbose() {} };

/** `options`: the module's own (`RabbitMQModule.forRoot` config, its `connectionManagerOptions`); without them, noDelay and a 5 s connect timeout. */
async function open(url, options = { connectionManagerOptions: { connectionOptions: { noDelay: true, timeout: 5000 } } }) {
  const context = await NestFactory.createApplicationContext(
    RabbitMQModule.forRoot({ ...options, uri: url, logger: SILENT, connectionInitOptions: { wait: true, timeout: 10000 } }),
    { logger: false, abortOnError: false },
  );
  const connection = context.get(AmqpConnection);
  const channel = connection.managedChannel;
  return {
    async publishBatch(queue, payload, count) {
      for (let i = 0; i < count; i += 1) await connection.publish('', queue, payload);
      await channel.checkQueue(queue);
    },
    async checkQueue(queue) {
      await channel.checkQueue(queue);
    },
    async declareTemporaryQueue(maxLength) {
      const declared = await channel.assertQueue('', { exclusive: true, arguments: { 'x-max-length': maxLength } });
      return declared.queue;
    },
    async deleteQueue(queue) {
      await channel.deleteQueue(queue);
    },
    close: () => context.close(),
  };
}

module.exports = { open };
