'use strict';
/**
 * Bare rabbitmq-client publish: one Connection, one channel from `acquire()`, plain publishes
 * through the default exchange, each awaited (`basicPublish` resolves once its frames are written
 * to the socket, waiting for 'drain' under backpressure), then one synchronous round trip on the
 * same channel (the broker handles a channel's frames in order: its reply means it has taken
 * every message).
 *
 * Why a raw channel rather than `createPublisher`: the Publisher's `send` is this very
 * `basicPublish` behind a lazy channel setup, but it keeps its channel to itself, so no round trip
 * could follow the messages on their channel. The library's own benchmark (benchmark.ts) publishes
 * this way too. `noDelay` as in the amqplib bare script.
 */
const { Connection } = require('rabbitmq-client');

/** `options`: rabbitmq-client's own `Connection` options; without them, noDelay and a 5 s connect timeout. */
async function open(url, options = { noDelay: true, connectionTimeout: 5000 }) {
  const rabbit = new Connection({ url, ...options });
  // The library emits connection errors as events (and reconnects); without a listener one would throw.
  rabbit.on('error', () => undefined);
  try {
    await rabbit.onConnect(10_000);
  } catch (error) {
    const reason = error && error.cause ? error.cause.message : error.message;
    throw new Error(`rabbitmq-client could not connect within 10 s: ${reason}; is the broker at AMQP_URL up?`, { cause: error });
  }
  const channel = await rabbit.acquire();
  return {
    async publishBatch(queue, payload, count) {
      for (let i = 0; i < count; i += 1) await channel.basicPublish(queue, payload);
      await channel.queueDeclare({ queue, passive: true });
    },
    async checkQueue(queue) {
      await channel.queueDeclare({ queue, passive: true });
    },
    async declareTemporaryQueue(maxLength) {
      const declared = await channel.queueDeclare({ queue: '', exclusive: true, arguments: { 'x-max-length': maxLength } });
      return declared.queue;
    },
    async deleteQueue(queue) {
      await channel.queueDelete({ queue });
    },
    async close() {
      await channel.close();
      await rabbit.close();
    },
  };
}

module.exports = { open };
