/**
 * rascal 21 (`rascal`), a configuration-driven layer over amqplib (its peer dependency): vhosts,
 * publications and subscriptions named in one configuration document, a channel pool per vhost
 * for publishing, and its own reconnection and re-subscription. The adapter creates one broker
 * per connection under test (one vhost over the URL list), publishes through two publications
 * of the default exchange and consumes through one subscription whose queue is given per
 * `broker.subscribe`; recovery is rascal's (`ensureConnected` only waits for it).
 *
 * What a harness must know when reading results from this client:
 * - rascal reconnects at once after a drop, then retries with `connection.retry` (exponential,
 *   randomised: 1 s doubling to 60 s by default); a subscription whose channel fails is
 *   subscribed again with `subscriptions.retry` after a failure.
 * - Publishes made while disconnected wait in the channel pool's paused queue, unbounded, and
 *   go out after the reconnection (`settings.publish_while_disconnected`).
 * - rascal gives no handle to its socket: `localPort` comes from Node's own announcement of the
 *   sockets it opens (src/client/socketWitness.ts).
 */
import type { ClientAdapter, ClientProfile, ConnectOptions, SignalSupport } from '../api';
import { packageVersion } from '../amqplib/common';
import { RascalConnection } from './connection';
import { rascalBareOptionsOf, rascalSettingsOf } from './settings';

const LIBRARY = 'rascal';

/** What rascal 21 gives for each signal (lib/amqp/Subscription.js, lib/amqp/Vhost.js). */
const SIGNALS: SignalSupport = Object.freeze({
  channel_closed:
    "a publication session's 'error' with the channel's 'Channel closed by server' (Publication.js:169-177, 264-267; the pool drops that channel, Vhost.js:204-214), or a subscription session's 'error' (its channel's error, Subscription.js:286, 302-307; rascal then subscribes again on a new channel, after its subscriptions.retry delay when that fails)",
  consumer_cancelled:
    "the subscription session's 'cancelled' event (Subscription.js:316-325); rascal then closes the channel and subscribes again at once, and after each failure with its subscriptions.retry backoff",
  blocked: "the broker's 'blocked' event (forwarded from amqplib's connection, Vhost.js:438-445); publishes are not held back",
  unblocked: "the broker's 'unblocked' event",
});

export const rascalAdapter: ClientAdapter = {
  name: 'rascal',
  library: LIBRARY,
  // A vhost's `connections` list; rascal tries them in its connectionStrategy's order ('random' by default).
  multipleHosts: true,
  recovery: 'library',
  signals: SIGNALS,
  // ackOrNack(err, { strategy: 'nack', requeue }); its `{ all: true }` acks every delivery of the channel, not those up to one.
  acks: { multiple: false, nack: true },
  settings: rascalSettingsOf,
  bareOptions: rascalBareOptionsOf,
  async connect(profile: ClientProfile, options: ConnectOptions) {
    const connection = new RascalConnection({
      name: 'rascal',
      profile,
      library: LIBRARY,
      version: packageVersion(LIBRARY),
      settings: rascalSettingsOf(profile),
      multipleHosts: true,
      recovery: 'library',
      signals: SIGNALS,
    });
    try {
      await connection.start(profile, options.urls, options.connectionName, options.startBoundMs ?? 10_000);
    } catch (error) {
      await connection.close();
      throw error;
    }
    return connection;
  },
};
