'use strict';
/**
 * Bare amqp-connection-manager publish: one manager, one ChannelWrapper without confirms
 * (`confirm: false`), plain `sendToQueue` through the wrapper, each promise awaited (the library
 * resolves it once the message is written to the amqplib channel; while the channel buffer is
 * full, later messages wait in the wrapper's queue until 'drain', so awaiting each one honours
 * the backpressure), then one synchronous round trip on the wrapper's channel (the broker
 * handles a channel's frames in order: its reply means it has taken every message).
 * The library's defaults otherwise (heartbeat 5 s, reconnect after 5 s); socket options as in
 * scripts/bare/amqplib.js (noDelay, a 5 s connect timeout), so both bare scripts wait the same
 * for the final round trip.
 */
const amqp = require('amqp-connection-manager');

/** `options`: amqp-connection-manager's own (`connect(urls, options)`); without them, noDelay and a 5 s connect timeout. */
async function open(url, options = { connectionOptions: { noDelay: true, timeout: 5000 } }) {
  const connection = amqp.connect([url], options);
  const channel = connection.createChannel({ confirm: false });
  // A failed setup is emitted as 'error'; the first connect below reports what matters.
  channel.on('error', () => undefined);
  try {
    await connection.connect({ timeout: 10000 });
    await channel.waitForConnect();
  } catch (error) {
    await connection.close().catch(() => undefined);
    throw error;
  }
  return {
    async publishBatch(queue, payload, count) {
      for (let i = 0; i < count; i += 1) await channel.sendToQueue(queue, payload);
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
    close: () => connection.close(),
  };
}

module.exports = { open };
