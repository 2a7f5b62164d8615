/**
 * foo-foo-mq 8 (`foo-foo-mq`, the maintained fork of rabbot / wascally): a topology-and-handlers
 * layer over its own copy of amqplib 0.8, with its own reconnection and re-subscription. One
 * process-wide broker object holds every connection by name; the adapter adds one connection per
 * connection under test (its own name), declares nothing (queues passive, `replyQueue: false`),
 * publishes through `broker.publish` and consumes through `addQueue` + `handle` +
 * `startSubscription`; recovery is foo-foo-mq's (`ensureConnected` only waits for it).
 *
 * What a harness must know when reading results from this client:
 * - With its defaults it gives up after 3 consecutive failures (the drop itself is the first),
 *   which a drop with two failed attempts after it reaches within about 100 ms: no more attempts,
 *   ever (`unreachable`). `normalised` lifts that (see ./settings.ts).
 * - Every publish is confirmed; publishes made while down wait for the exchange, unbounded.
 * - Acks are batched on a 500 ms tick and survive a reconnection: an ack of a delivery from the
 *   lost channel is sent, with its delivery tag, on the new one.
 * - One consumer per queue per connection (a second consume() is refused, saying why).
 * - foo-foo-mq gives no handle to its socket: `localPort` comes from Node's announcement of the
 *   sockets it opens (src/client/socketWitness.ts).
 */
import type { ClientAdapter, ClientInfo, ClientProfile, ConnectOptions, SignalSupport } from '../api';
import { packageVersion } from '../amqplib/common';
import { FooFooMqConnection } from './connection';
import { fooFooMqBareOptionsOf, fooFooMqSettingsOf } from './settings';

const LIBRARY = 'foo-foo-mq';

/** What foo-foo-mq 8.0.1 gives for each signal (node_modules/foo-foo-mq/src/). */
const SIGNALS: SignalSupport = Object.freeze({
  channel_closed:
    "a channel's own 'failed' event with amqplib's channel error (src/amqp/iomonad.js:91-96), on a channel the adapter publishes or consumes on, or an exchange check the broker refused (404: addExchange rejects, src/topology.js:214-219); foo-foo-mq then opens that channel again at once (src/amqp/iomonad.js:281-289)",
  consumer_cancelled:
    "none: its consume callback throws on the broker's basic.cancel (src/amqp/queue.js:346-351), and its amqplib 0.8 turns the throw into a failure of the whole connection (lib/connection.js:473-486, :273, :348-357 of its amqplib): a connection fault of kind consumer_cancelled, then its reconnection",
  blocked:
    "the connection's 'blocked' event (src/amqp/iomonad.js:103-107), without amqplib's reason; while blocked foo-foo-mq holds every operation on the connection, not the publishes of open channels (src/amqp/iomonad.js:235-256)",
  unblocked: "the connection's 'unblocked' event (src/amqp/iomonad.js:97-102)",
});

function infoOf(profile: ClientProfile): ClientInfo {
  return {
    name: 'foo-foo-mq',
    profile,
    library: LIBRARY,
    version: packageVersion(LIBRARY),
    settings: fooFooMqSettingsOf(profile),
    multipleHosts: true,
    recovery: 'library',
    signals: SIGNALS,
  };
}

export const fooFooMqAdapter: ClientAdapter = {
  name: 'foo-foo-mq',
  library: LIBRARY,
  // Its host and port lists, tried in order from an index chosen per process (src/amqp/connection.js:28-40, :152-208).
  multipleHosts: true,
  recovery: 'library',
  signals: SIGNALS,
  // nack (requeued) and reject; no multiple ack of its own (it batches acks itself).
  acks: { multiple: false, nack: true },
  consumersPerQueue: 'one',
  settings: fooFooMqSettingsOf,
  bareOptions: fooFooMqBareOptionsOf,
  async connect(profile: ClientProfile, options: ConnectOptions) {
    const connection = new FooFooMqConnection(infoOf(profile));
    try {
      await connection.start(profile, options.urls, options.connectionName, options.startBoundMs ?? 10_000);
    } catch (error) {
      await connection.close();
      throw error;
    }
    return connection;
  },
};
