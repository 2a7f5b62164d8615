'use strict';
/**
 * Bare amqplib publish: one connection, one channel, plain publishes through the default
 * exchange honouring backpressure ('drain'), then one synchronous round trip on the channel
 * (the broker handles a channel's frames in order: its reply means it has taken every message).
 * Bare amqplib consume (scripts/bare-consume.js): see `consume` below.
 */
const amqp = require('amqplib');

function waitForDrain(channel) {
  return new Promise((resolve, reject) => {
    const onDrain = () => {
      channel.off('close', onClose);
      resolve();
    };
    const onClose = () => {
      channel.off('drain', onDrain);
      reject(new Error('channel closed while waiting for drain'));
    };
    channel.once('drain', onDrain);
    channel.once('close', onClose);
  });
}

/**
 * Bare amqplib consume: `consumers` channels on the connection, each with `prefetch` and a
 * consumer that counts and acks every delivery (manual ack). Resolves once every consumer
 * consumes; `cancel()` closes the channels (unacked deliveries go back to the queue) and rejects
 * if the connection was lost meanwhile.
 */
async function consume(connection, lost, queue, { consumers, prefetch }) {
  let delivered = 0;
  const channels = [];
  try {
    for (let i = 0; i < consumers; i += 1) {
      const consumer = await connection.createChannel();
      channels.push(consumer);
      await consumer.prefetch(prefetch);
      await consumer.consume(queue, (message) => {
        if (message === null) return; // cancelled by the broker (queue deleted)
        delivered += 1;
        consumer.ack(message);
      });
    }
  } catch (error) {
    await Promise.allSettled(channels.map((consumer) => consumer.close()));
    throw error;
  }
  return {
    delivered: () => delivered,
    async cancel() {
      const closed = await Promise.allSettled(channels.map((consumer) => consumer.close()));
      if (lost()) throw new Error(`connection lost while consuming: ${lost()}`);
      const failed = closed.find((result) => result.status === 'rejected');
      if (failed) throw failed.reason;
    },
  };
}

/**
 * `options`: `heartbeat` (seconds; amqplib reads it from the URL), then amqplib's socket options
 * (`noDelay`, `timeout`). Without options: TCP_NODELAY and a 5 s connect timeout.
 */
async function open(url, options = { noDelay: true, timeout: 5000 }) {
  const { heartbeat, ...socketOptions } = options;
  const target = new URL(url);
  if (heartbeat !== undefined) target.searchParams.set('heartbeat', String(heartbeat));
  const connection = await amqp.connect(target.toString(), socketOptions);
  let lostReason;
  connection.on('error', (error) => {
    lostReason = lostReason || error.message;
  });
  connection.on('close', () => {
    lostReason = lostReason || 'connection closed';
  });
  const channel = await connection.createChannel();
  return {
    consume: (queue, options) => consume(connection, () => lostReason, queue, options),
    async publishBatch(queue, payload, count) {
      for (let i = 0; i < count; i += 1) {
        if (!channel.sendToQueue(queue, payload)) await waitForDrain(channel);
      }
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

// `supportsConsume`: scripts/bare-consume.js (and the harness, before it starts it) can use this module's consume.
module.exports = { open, supportsConsume: true };
