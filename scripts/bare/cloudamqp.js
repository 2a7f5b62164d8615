'use strict';
/**
 * Bare @cloudamqp/amqp-client publish, through what its README recommends (the high-level
 * `AMQPSession` API) and the same calls the harness's `cloudamqp` adapter makes: one session,
 * plain publishes with `queue.publish(body, { confirm: false })`, each awaited. The library's
 * backpressure is that promise: `basicPublish` on the session's ops channel resolves once the
 * frames are handed to the socket, and the session serialises ops-channel work, so there is
 * no drain event to wait for and nothing to gain from not awaiting. `deliveryMode: 1` because
 * the library's default is persistent and the other bare scripts publish transient messages.
 * The closing round trip is a passive exchange declaration on that same ops channel: the
 * broker answers it only after the messages ahead of it.
 */
const { AMQPSession } = require('@cloudamqp/amqp-client');

/** Always there, so its passive declaration is a round trip that cannot fail. */
const ALWAYS_THERE = 'amq.direct';

/** `options`: `AMQPSession.connect`'s own (heartbeat, reconnect intervals, tlsOptions.noDelay); without them, the library's defaults. */
async function open(url, options = {}) {
  const session = await AMQPSession.connect(url, { ...options, logger: null });
  /** Queue handles by name; a server-named queue's handle is not cached by the session itself. */
  const queues = new Map();
  // Passive: the queue may be anyone's (any durability or arguments); the library's default declaration is durable.
  const queueHandle = async (name) => {
    let handle = queues.get(name);
    if (!handle) {
      handle = await session.queue(name, { passive: true });
      queues.set(name, handle);
    }
    return handle;
  };
  return {
    async publishBatch(queue, payload, count) {
      const handle = await queueHandle(queue);
      for (let i = 0; i < count; i += 1) await handle.publish(payload, { confirm: false, deliveryMode: 1 });
      await session.exchange(ALWAYS_THERE, 'direct', { passive: true });
    },
    async checkQueue(queue) {
      await queueHandle(queue);
    },
    async declareTemporaryQueue(maxLength) {
      const handle = await session.queue('', { exclusive: true, arguments: { 'x-max-length': maxLength } });
      queues.set(handle.name, handle);
      return handle.name;
    },
    async deleteQueue(queue) {
      await (await queueHandle(queue)).delete();
      queues.delete(queue);
    },
    close: () => session.stop(),
  };
}

module.exports = { open };
