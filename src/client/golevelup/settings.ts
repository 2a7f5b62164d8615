/**
 * What each profile passes to @golevelup/nestjs-rabbitmq 9.x (`RabbitMQModule.forRoot(config)`),
 * and how a result reports it, in the library's own option names. The module hands
 * `connectionManagerOptions` unchanged to amqp-connection-manager's `connect` (lib/amqp/connection.js
 * `initCore`), so the connection settings are amqp-connection-manager's; the `default (…)` values
 * are read from both libraries' sources (lib/amqp/connection.js `defaultConfig`;
 * amqp-connection-manager's dist/cjs/AmqpConnectionManager.js).
 */
import type { AmqpConnectionManagerOptions } from 'amqp-connection-manager';
import { NORMALISED_SETTINGS, type ClientProfile } from '../api';
import {
  ACM_DEFAULT_HEARTBEAT_SECONDS,
  ACM_DEFAULT_RECONNECT_SECONDS,
  withConnectionName,
  type AcmProfileOptions,
} from '../amqpConnectionManager/settings';

/** The module's `prefetchCount` default (lib/amqp/connection.js `defaultConfig`), set on its default channel. */
export const GOLEVELUP_DEFAULT_PREFETCH = 10;

/** The part of `RabbitMQConfig` a profile decides (the adapter adds the URLs, a name, a silent logger). */
export interface GolevelupProfileOptions {
  readonly connectionManagerOptions: AcmProfileOptions;
}

/**
 * `defaults`: nothing but the URL, as the module's README starts a user off.
 * `normalised`, onto amqp-connection-manager's options under `connectionManagerOptions`:
 * - heartbeatSeconds → `heartbeatIntervalInSeconds` (exact);
 * - firstRetryDelayMs → `reconnectTimeInSeconds` (0.1, exact);
 * - maxRetryDelayMs → nothing: the delay is fixed (neither library has a backoff), every attempt
 *   waits the first retry delay (approximate);
 * - connectTimeoutMs → `connectionOptions.timeout` (exact: amqplib's socket timeout covers TCP
 *   connect and the AMQP handshake);
 * - plus `connectionOptions.noDelay: true`, as every library gets in this profile.
 */
export function golevelupOptionsOf(profile: ClientProfile): GolevelupProfileOptions {
  if (profile === 'defaults') return { connectionManagerOptions: { connectionOptions: {} } };
  return {
    connectionManagerOptions: {
      heartbeatIntervalInSeconds: NORMALISED_SETTINGS.heartbeatSeconds,
      reconnectTimeInSeconds: NORMALISED_SETTINGS.firstRetryDelayMs / 1000,
      connectionOptions: { timeout: NORMALISED_SETTINGS.connectTimeoutMs, noDelay: NORMALISED_SETTINGS.noDelay },
    },
  };
}

/** amqp-connection-manager's options for `profile` as the module passes them, `connection_name` added. */
export function connectionManagerOptionsOf(profile: ClientProfile, connectionName: string | undefined): AmqpConnectionManagerOptions {
  return withConnectionName(golevelupOptionsOf(profile).connectionManagerOptions, connectionName);
}

/** How a result names the settings of `profile` (`ClientInfo.settings`). */
export function golevelupSettingsOf(profile: ClientProfile): Readonly<Record<string, string | number | boolean>> {
  const options = golevelupOptionsOf(profile).connectionManagerOptions;
  return {
    recovery:
      'amqp-connection-manager under RabbitMQModule (fixed-delay reconnect; the default channel re-runs its setups: prefetch, subscribers)',
    'connectionManagerOptions.heartbeatIntervalInSeconds':
      options.heartbeatIntervalInSeconds ?? `default (${ACM_DEFAULT_HEARTBEAT_SECONDS})`,
    'connectionManagerOptions.reconnectTimeInSeconds':
      options.reconnectTimeInSeconds ?? `default (heartbeatIntervalInSeconds, ${ACM_DEFAULT_RECONNECT_SECONDS}; fixed, no backoff)`,
    max_retry_delay: 'none (every attempt waits reconnectTimeInSeconds)',
    'connectionManagerOptions.connectionOptions.timeout':
      options.connectionOptions.timeout ?? 'default (none: amqplib sets no connect timeout)',
    'connectionManagerOptions.connectionOptions.noDelay': options.connectionOptions.noDelay ?? 'default (false: Nagle on)',
    prefetchCount: `default (${GOLEVELUP_DEFAULT_PREFETCH}, the default channel's); a consumer's own prefetch is set by a setup before its subscriber`,
    enableDirectReplyTo: 'default (true: a no-ack consumer on amq.rabbitmq.reply-to on the default channel)',
    'connectionInitOptions.wait':
      'false (the adapter waits for the first connection itself, bounded, so that a failed start can be closed)',
    publish: 'AmqpConnection.publish on the default channel, a confirm channel: every publish waits for the broker confirm',
    subscribe:
      'AmqpConnection.createSubscriber (createQueueIfNotExists: false: checkQueue on the harness queue), acked when the handler resolves',
    publish_while_disconnected: 'queued in the default ChannelWrapper, sent after reconnection (the promise stays pending)',
  };
}
