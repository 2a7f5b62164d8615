'use strict';
/**
 * Bare foo-foo-mq publish, through the calls the harness's adapter makes: a connection of its own
 * name on foo-foo-mq's process-wide broker (`addConnection`, no reply queue), then
 * `broker.publish('', { routingKey, body })` awaited: the default exchange's channel is a confirm
 * channel, so each publish resolves on the broker's confirm (foo-foo-mq offers no other) and the
 * batch ends once the last one is confirmed. Queue admin goes over foo-foo-mq's own control
 * channel (`connection.getChannel('control')`, as its topology uses it). Without options:
 * foo-foo-mq's defaults (it sets TCP_NODELAY itself, and a 2 s connect timeout).
 */
const broker = require('foo-foo-mq');

let opened = 0;

/** `options`: foo-foo-mq's own connection options (`heartbeat`, `timeout`, `waitMin`, …). */
async function open(url, options = {}) {
  opened += 1;
  const name = `bare-${process.pid}-${opened}`;
  const topology = await broker.addConnection({ ...options, name, uri: url, replyQueue: false });
  const control = await topology.connection.getChannel('control', false, 'bare publish admin');
  return {
    async publishBatch(queue, payload, count) {
      for (let i = 0; i < count; i += 1) await broker.publish('', { routingKey: queue, body: payload }, name);
    },
    async checkQueue(queue) {
      await control.checkQueue(queue);
    },
    async declareTemporaryQueue(maxLength) {
      const declared = await control.assertQueue('', { exclusive: true, arguments: { 'x-max-length': maxLength } });
      return declared.queue;
    },
    async deleteQueue(queue) {
      await control.deleteQueue(queue);
    },
    async close() {
      await broker.close(name, true);
      // Its ack tick is one interval for the process (src/index.js:95): it would keep the script running.
      broker.clearAckInterval();
    },
  };
}

module.exports = { open };
