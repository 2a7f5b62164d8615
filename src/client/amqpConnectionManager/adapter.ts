/**
 * amqp-connection-manager 5.x (`amqp-connection-manager`), a wrapper around amqplib that
 * reconnects by itself: `connect(urls, options)` gives a manager that, after a drop, waits a
 * FIXED `reconnectTimeInSeconds` (default: the heartbeat interval, 5 s) and connects to the
 * next URL of its list; each `createChannel()` gives a ChannelWrapper whose setup functions and
 * consumers the library re-establishes on every reconnection. Recovery is the library's
 * (`ensureConnected` only waits for it); the adapter adds no reconnect loop.
 *
 * What a harness must know when reading results from this client:
 * - Publishes made while disconnected are QUEUED in the wrapper and sent after the reconnection:
 *   the promise stays pending through the outage (resolving late) instead of rejecting, unlike
 *   the amqplib adapters. Reported as `settings.publish_while_disconnected`.
 * - A confirmed publish in flight when the connection drops is rejected by the library
 *   ("channel closed"): a ClientFaultError with the outage's kind; at-least-once publishers resend.
 * - Faults are timed at amqplib's connection 'error' (the library's own 'disconnect' comes after
 *   every channel has closed); a reset is `reset` (ECONNRESET), a FIN `closed` ("Unexpected
 *   close"), a broker's forced close `broker_closed` (320).
 * - `localPort` is the port of the amqplib socket under `manager.connection` (the last one while down).
 * - Signals: only blocked / unblocked are the library's (manager events). It gives no signal of
 *   a channel the broker closed or a consumer it cancelled: see SIGNALS for what it does instead,
 *   which the adapter reports as it happens and does not repair.
 */
import type { ClientAdapter, ClientProfile, ConnectOptions, SignalSupport } from '../api';
import { packageVersion } from '../amqplib/common';
import { AcmConnection } from './connection';
import { acmSettingsOf, managerOptionsOf } from './settings';

const LIBRARY = 'amqp-connection-manager';

/**
 * What amqp-connection-manager 5 gives for each signal (dist/cjs: AmqpConnectionManager.js
 * 'blocked'/'unblocked'; ChannelWrapper.js registers only 'close' and 'drain' on its amqplib
 * channel, and its consume callback swallows the null of a basic.cancel).
 */
const SIGNALS: SignalSupport = Object.freeze({
  channel_closed:
    "none: the ChannelWrapper never listens for its channel's 'error', so amqplib takes the whole connection down (connection 'error' with the channel's 'Channel closed by server: 404 ...', then the manager's 'disconnect'): a connection fault of kind channel_closed, then a reconnection after reconnectTimeInSeconds",
  consumer_cancelled:
    "none: the ChannelWrapper swallows the null of a basic.cancel and consumes again at once, without declaring the queue; with the queue deleted that consume's 404 takes the connection down (a fault of kind channel_closed) and every reconnection fails the same way (wrapper 'error' 'Operation failed: BasicConsume; 404 ...') until the queue exists again",
  blocked: "the manager's 'blocked' event ({ reason }); the library itself does not hold publishes back",
  unblocked: "the manager's 'unblocked' event",
});

export const amqpConnectionManagerAdapter: ClientAdapter = {
  name: 'amqp-connection-manager',
  library: LIBRARY,
  // The library round-robins over the URL list on every (re)connection.
  multipleHosts: true,
  recovery: 'library',
  signals: SIGNALS,
  acks: { multiple: true, nack: true },
  settings: acmSettingsOf,
  bareOptions: (profile) => ({ ...managerOptionsOf(profile, undefined) }),
  async connect(profile: ClientProfile, options: ConnectOptions) {
    const connection = new AcmConnection(
      {
        name: 'amqp-connection-manager',
        profile,
        library: LIBRARY,
        version: packageVersion(LIBRARY),
        settings: acmSettingsOf(profile),
        multipleHosts: true,
        recovery: 'library',
        signals: SIGNALS,
      },
      options.urls,
      managerOptionsOf(profile, options.connectionName),
    );
    try {
      await connection.started(options.startBoundMs ?? 10_000);
    } catch (error) {
      await connection.close();
      throw error;
    }
    return connection;
  },
};
