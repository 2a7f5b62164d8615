/**
 * What each profile passes to amqp-connection-manager 5.x, and how a result reports it, in the
 * library's own option names. The values marked `default (…)` are read from its source
 * (dist/cjs/AmqpConnectionManager.js, ChannelWrapper.js) and from amqplib's connect.js, which
 * it calls with `connectionOptions` unchanged.
 */
import type { AmqpConnectionManagerOptions } from 'amqp-connection-manager';
import { NORMALISED_SETTINGS, type ClientProfile } from '../api';

/** amqp-connection-manager's `HEARTBEAT_IN_SECONDS`, used when `heartbeatIntervalInSeconds` is not given. */
export const ACM_DEFAULT_HEARTBEAT_SECONDS = 5;
/** Without `reconnectTimeInSeconds` the library waits `heartbeatIntervalInSeconds` between attempts (a fixed delay, no backoff). */
export const ACM_DEFAULT_RECONNECT_SECONDS = ACM_DEFAULT_HEARTBEAT_SECONDS;

/** The options one profile gives the library (`connectionOptions` besides the harness's `connection_name`). */
export interface AcmProfileOptions {
  readonly heartbeatIntervalInSeconds?: number;
  readonly reconnectTimeInSeconds?: number;
  readonly connectionOptions: { readonly timeout?: number; readonly noDelay?: boolean };
}

/**
 * `defaults`: nothing but the URLs, as its README starts a user off.
 * `normalised`, mapped onto the library's options:
 * - heartbeatSeconds → `heartbeatIntervalInSeconds` (exact; the library puts it in the URL as `heartbeat=`);
 * - firstRetryDelayMs → `reconnectTimeInSeconds` (0.1; fractional seconds work, the library waits `× 1000` ms);
 * - maxRetryDelayMs → nothing: the library's delay is fixed, so every attempt waits the first
 *   retry delay (100 ms), never growing towards 1000 ms (approximate);
 * - connectTimeoutMs → `connectionOptions.timeout` (exact: amqplib's socket timeout covers TCP
 *   connect and the AMQP handshake);
 * - plus `connectionOptions.noDelay: true`, as the harness's amqplib adapters set in every
 *   profile, so normalised runs compare recovery, not Nagle's algorithm.
 */
export function acmOptionsOf(profile: ClientProfile): AcmProfileOptions {
  if (profile === 'defaults') return { connectionOptions: {} };
  return {
    heartbeatIntervalInSeconds: NORMALISED_SETTINGS.heartbeatSeconds,
    reconnectTimeInSeconds: NORMALISED_SETTINGS.firstRetryDelayMs / 1000,
    connectionOptions: { timeout: NORMALISED_SETTINGS.connectTimeoutMs, noDelay: NORMALISED_SETTINGS.noDelay },
  };
}

/** The library's options for `profile`, `connection_name` added to what the profile gives. */
export function managerOptionsOf(profile: ClientProfile, connectionName: string | undefined): AmqpConnectionManagerOptions {
  return withConnectionName(acmOptionsOf(profile), connectionName);
}

/**
 * A profile's options as the library takes them, `connection_name` added (the golevelup module
 * hands its `connectionManagerOptions` to the library unchanged, so it uses this too).
 */
export function withConnectionName(options: AcmProfileOptions, connectionName: string | undefined): AmqpConnectionManagerOptions {
  return {
    ...(options.heartbeatIntervalInSeconds === undefined ? {} : { heartbeatIntervalInSeconds: options.heartbeatIntervalInSeconds }),
    ...(options.reconnectTimeInSeconds === undefined ? {} : { reconnectTimeInSeconds: options.reconnectTimeInSeconds }),
    connectionOptions: {
      ...options.connectionOptions,
      ...(connectionName ? { clientProperties: { connection_name: connectionName } } : {}),
    },
  };
}

/** How a result names the settings of `profile` (`ClientInfo.settings`). */
export function acmSettingsOf(profile: ClientProfile): Readonly<Record<string, string | number | boolean>> {
  const options = acmOptionsOf(profile);
  return {
    recovery: 'amqp-connection-manager (fixed-delay reconnect; ChannelWrapper re-runs setups and re-consumes)',
    heartbeatIntervalInSeconds: options.heartbeatIntervalInSeconds ?? `default (${ACM_DEFAULT_HEARTBEAT_SECONDS})`,
    reconnectTimeInSeconds:
      options.reconnectTimeInSeconds ?? `default (heartbeatIntervalInSeconds, ${ACM_DEFAULT_RECONNECT_SECONDS}; fixed, no backoff)`,
    max_retry_delay: 'none (every attempt waits reconnectTimeInSeconds)',
    'connectionOptions.timeout': options.connectionOptions.timeout ?? 'default (none: amqplib sets no connect timeout)',
    'connectionOptions.noDelay': options.connectionOptions.noDelay ?? 'default (false: Nagle on)',
    publishTimeout: 'default (none: a queued publish waits for the reconnection)',
    // What a harness must know to read publish results: nothing fails while disconnected.
    publish_while_disconnected: 'queued in the ChannelWrapper, sent after reconnection (the promise stays pending)',
  };
}
