/**
 * @golevelup/nestjs-rabbitmq 9.x, the RabbitMQ module of NestJS applications, measured as a Nest
 * application uses it: a Nest application context (no HTTP server) built from
 * `RabbitMQModule.forRoot(config)`, and the module's `AmqpConnection` API (`publish`,
 * `createSubscriber`, `cancelConsumer`, `close`). Underneath, amqp-connection-manager reconnects
 * after a FIXED `reconnectTimeInSeconds` (default: the heartbeat interval, 5 s); the module's
 * default channel re-runs its setups (its prefetch and direct reply-to consumer, every subscriber)
 * on each new connection. The adapter adds no reconnect, no re-consume.
 *
 * What a harness must know when reading results from this client:
 * - Every publish is confirmed (the default channel is a confirm channel), plain publishers too.
 *   Publishes made while disconnected are QUEUED and sent after the reconnection (pending
 *   promise); one in flight at a drop is rejected ("channel closed").
 * - A subscriber acks when its handler resolves and nacks on a returned `Nack`: a manual ack is
 *   the harness's ack settling the handler. No multiple ack. A handler that settles after its
 *   channel died makes the module ack on the dead channel: it throws, and the error path's nack
 *   throws too, rejecting a promise nobody handles (connection.js `wrapConsumer`).
 * - Faults are timed at amqplib's connection 'error', as for amqp-connection-manager.
 */
import type { ClientAdapter, ClientInfo, ClientProfile, ConnectOptions, SignalSupport } from '../api';
import { packageVersion } from '../amqplib/common';
import { GolevelupConnection } from './connection';
import { connectionManagerOptionsOf, golevelupSettingsOf } from './settings';

const LIBRARY = '@golevelup/nestjs-rabbitmq';

/**
 * What the module gives for each signal (lib/amqp/connection.js; amqp-connection-manager's
 * ChannelWrapper.js registers only 'close' and 'drain' on its amqplib channel).
 */
const SIGNALS: SignalSupport = Object.freeze({
  channel_closed:
    "none: the default channel's ChannelWrapper never listens for its amqplib channel's 'error', so amqplib takes the whole connection down (a connection fault of kind channel_closed), then a reconnection after reconnectTimeInSeconds",
  consumer_cancelled:
    "none: the subscriber's consume callback turns the null of a basic.cancel into a NullMessageError and drops it; the consumer stays cancelled with the connection up, until a reconnection re-runs its setup",
  blocked: "amqp-connection-manager's 'blocked' event on AmqpConnection.managedConnection; the module does not hold publishes back",
  unblocked: "amqp-connection-manager's 'unblocked' event on AmqpConnection.managedConnection",
});

function infoOf(profile: ClientProfile): ClientInfo {
  return {
    name: 'golevelup',
    profile,
    library: LIBRARY,
    version: packageVersion(LIBRARY),
    settings: golevelupSettingsOf(profile),
    multipleHosts: true,
    recovery: 'library',
    signals: SIGNALS,
  };
}

export const golevelupAdapter: ClientAdapter = {
  name: 'golevelup',
  library: LIBRARY,
  // The module passes its URL list to amqp-connection-manager, which round-robins over it.
  multipleHosts: true,
  recovery: 'library',
  signals: SIGNALS,
  acks: { multiple: false, nack: true },
  settings: golevelupSettingsOf,
  bareOptions: (profile) => ({ connectionManagerOptions: connectionManagerOptionsOf(profile, undefined) }),
  connect(profile: ClientProfile, options: ConnectOptions) {
    return GolevelupConnection.open(
      infoOf(profile),
      {
        uri: [...options.urls],
        connectionManagerOptions: connectionManagerOptionsOf(profile, options.connectionName),
        connectionInitOptions: { wait: false },
      },
      options.startBoundMs ?? 10_000,
    );
  },
};
