'use strict';
/**
 * Bare rabbitmq-client publish, through the calls the harness's adapter makes: the library's own
 * `createPublisher` (what its docs recommend), plain `send({ exchange: '', routingKey }, body)`,
 * each awaited (it resolves once its frames are written to the socket, waiting for 'drain' under
 * backpressure), then one synchronous round trip on the publisher's channel (the broker handles a
 * channel's frames in order: its reply means it has taken every message). The Publisher keeps its
 * channel to itself and opens it through `acquire()`, so the publisher is created on an object
 * that observes `acquire` (as the adapter does) to get that channel for the round trip.
 * Without options: `noDelay` and a 5 s connect timeout.
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
  // Queue admin on a channel of its own; publishing through the library's Publisher.
  const admin = await rabbit.acquire();
  let publisherChannel;
  const observed = Object.create(rabbit);
  observed.acquire = async (acquireOptions) => {
    publisherChannel = await rabbit.acquire(acquireOptions);
    return publisherChannel;
  };
  const publisher = rabbit.createPublisher.call(observed, { confirm: false });
  return {
    async publishBatch(queue, payload, count) {
      for (let i = 0; i < count; i += 1) await publisher.send({ exchange: '', routingKey: queue }, payload);
      if (!publisherChannel) throw new Error("rabbitmq-client's createPublisher did not open its channel through acquire()");
      await publisherChannel.exchangeDeclare({ exchange: 'amq.direct', passive: true });
    },
    async checkQueue(queue) {
      await admin.queueDeclare({ queue, passive: true });
    },
    async declareTemporaryQueue(maxLength) {
      const declared = await admin.queueDeclare({ queue: '', exclusive: true, arguments: { 'x-max-length': maxLength } });
      return declared.queue;
    },
    async deleteQueue(queue) {
      await admin.queueDelete({ queue });
    },
    async close() {
      await publisher.close();
      await admin.close();
      await rabbit.close();
    },
  };
}

module.exports = { open };
