'use strict';
/**
 * Bare amqplib publish: one connection, one channel, plain publishes through the default
 * exchange honouring backpressure ('drain'), then one synchronous round trip on the channel
 * (the broker handles a channel's frames in order: its reply means it has taken every message).
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

async function open(url) {
  const connection = await amqp.connect(url, { noDelay: true, timeout: 5000 });
  connection.on('error', () => undefined);
  const channel = await connection.createChannel();
  return {
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

module.exports = { open };
