/**
 * rabbitmq-client's options in each profile, and how a report names them (the library's own
 * option names). The library's defaults are quoted from its source (5.0.8): `lib/normalize.js`
 * `DEFAULT_OPTS`, `lib/Connection.js` (`createPublisher`, `setNoDelay(!!noDelay)`).
 */
import type { ConnectionOptions } from 'rabbitmq-client';
import { NORMALISED_SETTINGS, type ClientProfile } from '../api';

/** What rabbitmq-client does when the application passes nothing. */
export const LIBRARY_DEFAULTS = Object.freeze({
  /** Seconds; the lower of this and the broker's proposal (RabbitMQ proposes 60) is used. */
  heartbeat: 60,
  /** First reconnection delay, uniformly random in [retryLow, 2 × retryLow) (`expBackoff`). */
  retryLowMs: 1000,
  /** Cap of the reconnection delay. */
  retryHighMs: 30_000,
  /** TCP connect + AMQP handshake, until connection.open-ok. */
  connectionTimeoutMs: 10_000,
  /** How long a channel request (a publisher's or consumer's setup) waits for a reconnection. */
  acquireTimeoutMs: 20_000,
  /** Publisher attempts per message (1: no retry). */
  maxAttempts: 1,
  /** Nagle's algorithm stays on unless `noDelay` is set. */
  noDelay: false,
});

/** The options a profile passes to `new Connection(...)`, besides the broker address and the connection name. */
export type ProfileOptions = Pick<ConnectionOptions, 'heartbeat' | 'retryLow' | 'retryHigh' | 'connectionTimeout' | 'noDelay'>;

/**
 * `defaults`: nothing (the library as users get it). `normalised`: NORMALISED_SETTINGS mapped
 * onto the library's options:
 * - `heartbeatSeconds` → `heartbeat` (exact; the library checks every heartbeat/2 s and gives up
 *   after 4 checks in a row saw nothing read: 2–2.5 heartbeats after the last frame received);
 * - `firstRetryDelayMs` → `retryLow` (approximate: the library's first delay is random in
 *   [retryLow, 2 × retryLow), so 100–200 ms; consumers use the same backoff for their re-setup);
 * - `maxRetryDelayMs` → `retryHigh` (exact cap);
 * - `connectTimeoutMs` → `connectionTimeout` (exact: TCP connect and handshake);
 * - and `noDelay: true`, as the amqplib adapters set it, so the transport is the same for all.
 */
export function profileOptions(profile: ClientProfile): ProfileOptions {
  switch (profile) {
    case 'defaults':
      return {};
    case 'normalised':
      return {
        heartbeat: NORMALISED_SETTINGS.heartbeatSeconds,
        retryLow: NORMALISED_SETTINGS.firstRetryDelayMs,
        retryHigh: NORMALISED_SETTINGS.maxRetryDelayMs,
        connectionTimeout: NORMALISED_SETTINGS.connectTimeoutMs,
        noDelay: true,
      };
  }
}

/** The effective settings of a profile, as `ClientInfo.settings` reports them. */
export function reportedSettings(profile: ClientProfile): Readonly<Record<string, string | number | boolean>> {
  const options = profileOptions(profile);
  return {
    recovery: 'rabbitmq-client built-in (Connection reconnects, Consumer re-consumes, Publisher re-opens its channel on its next send)',
    heartbeat: options.heartbeat ?? `default (${LIBRARY_DEFAULTS.heartbeat} s, or the broker's proposal if lower)`,
    retryLow: options.retryLow ?? `default (${LIBRARY_DEFAULTS.retryLowMs})`,
    retryHigh: options.retryHigh ?? `default (${LIBRARY_DEFAULTS.retryHighMs})`,
    connectionTimeout: options.connectionTimeout ?? `default (${LIBRARY_DEFAULTS.connectionTimeoutMs})`,
    acquireTimeout: `default (${LIBRARY_DEFAULTS.acquireTimeoutMs})`,
    maxAttempts: `default (${LIBRARY_DEFAULTS.maxAttempts})`,
    noDelay: options.noDelay ?? `default (${LIBRARY_DEFAULTS.noDelay})`,
    publishWhileDown: 'waits for the reconnection (up to acquireTimeout), then sends',
  };
}
