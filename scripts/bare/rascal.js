'use strict';
/**
 * Bare rascal publish, through the calls the harness's adapter makes: a broker with one vhost, a
 * plain and a confirmed publication on the default exchange (`rascal.withDefaultConfig`),
 * `broker.publish('plain', payload, queue)` awaited until the publication session says
 * 'success' (rascal borrows a channel of its pool for each publish), then one confirmed publish
 * that routes nowhere as the round trip behind the messages (rascal spreads plain publishes over
 * its pool's channels). Queue admin goes over an amqplib (callback API) connection from rascal's own
 * `broker.connect(vhost)`. Without options: noDelay and a 5 s connect timeout.
 */
const rascal = require('rascal');

/** Calls a method of rascal's amqplib callback API as a promise. */
function call(target, method, ...args) {
  return new Promise((resolve, reject) => {
    target[method](...args, (error, result) => (error ? reject(error) : resolve(result)));
  });
}

/** Waits for a publication session's outcome. */
function settled(session) {
  return new Promise((resolve, reject) => {
    session.once('success', () => resolve());
    session.on('error', reject);
    session.once('close', () => reject(new Error('channel closed')));
  });
}

/** `options`: rascal's own per-connection settings (`heartbeat` in the URL's options, `socketOptions`). */
async function open(url, options = { socketOptions: { noDelay: true, timeout: 5000 } }) {
  const { heartbeat, socketOptions = {} } = options;
  const config = rascal.withDefaultConfig({
    vhosts: { '/': { connections: [{ url, ...(heartbeat === undefined ? {} : { options: { heartbeat } }), socketOptions }] } },
    publications: {
      plain: { vhost: '/', exchange: '', confirm: false },
      confirmed: { vhost: '/', exchange: '', confirm: true },
    },
  });
  const broker = await rascal.BrokerAsPromised.create(config);
  // rascal emits connection errors as events (and reconnects); without a listener one would throw.
  broker.on('error', () => undefined);
  const adminConnection = await broker.connect('/');
  adminConnection.on('error', () => undefined);
  const admin = await call(adminConnection, 'createChannel');
  admin.on('error', () => undefined);
  const publish = async (name, payload, overrides) => settled(await broker.publish(name, payload, overrides));
  return {
    async publishBatch(queue, payload, count) {
      for (let i = 0; i < count; i += 1) await publish('plain', payload, { routingKey: queue, options: { persistent: false } });
      await publish('confirmed', Buffer.alloc(0), {
        destination: 'amq.direct',
        routingKey: 'bench.flush.routes-nowhere',
        options: { persistent: false, mandatory: false },
      });
    },
    async checkQueue(queue) {
      await call(admin, 'checkQueue', queue);
    },
    async declareTemporaryQueue(maxLength) {
      const declared = await call(admin, 'assertQueue', '', { exclusive: true, arguments: { 'x-max-length': maxLength } });
      return declared.queue;
    },
    async deleteQueue(queue) {
      await call(admin, 'deleteQueue', queue, {});
    },
    async close() {
      await call(adminConnection, 'close').catch(() => undefined);
      await broker.shutdown();
    },
  };
}

module.exports = { open };
