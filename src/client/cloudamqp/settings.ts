/**
 * What each profile gives @cloudamqp/amqp-client's `AMQPSession`, and how a result reports it.
 * The library's defaults are read from its source (4.1.1): `amqp-session.ts` (reconnect
 * options), `amqp-socket-client.ts` (heartbeat from the URL, `"0"` when absent; the handshake's
 * read timeout) and `amqp-base-client.ts` (`MIN_FRAME_SIZE`).
 */
import type { ClientProfile } from '../api';
import { NORMALISED_SETTINGS } from '../api';
import type { AMQPSessionOptions, AMQPTlsOptions } from './amqpClient';

/** The library's own values where a user passes nothing. */
export const CLOUDAMQP_DEFAULTS = Object.freeze({
  /** `AMQPSession` first reconnect delay, ms. */
  reconnectInterval: 1000,
  /** Cap of the reconnect delay, ms. */
  maxReconnectInterval: 30_000,
  /** Growth of the delay per failed attempt. */
  backoffMultiplier: 2,
  /** 0: reconnect for ever. */
  maxRetries: 0,
  /** Seconds; 0 proposes no heartbeat in Connection.TuneOk, so heartbeats are off. */
  heartbeat: 0,
  /** Bytes the client proposes; the broker's larger frame max is cut down to it. */
  frameMax: 8192,
  /** Read timeout during the TCP connect and AMQP handshake: the heartbeat, or 60 s without one. */
  handshakeTimeoutSeconds: 60,
});

/** The `AMQPSession.connect` options a profile sets; absent ones are left to the library. */
export type SessionTuning = Readonly<Pick<AMQPSessionOptions, 'heartbeat' | 'reconnectInterval' | 'maxReconnectInterval' | 'tlsOptions'>>;

/**
 * `defaults`: nothing (what users get). `normalised`, mapped from NORMALISED_SETTINGS:
 * - `heartbeatSeconds` -> `heartbeat` (exact; the broker's 60 s proposal is larger, so 5 s is negotiated);
 * - `firstRetryDelayMs` -> `reconnectInterval` (exact: the first reconnect waits this long);
 * - `maxRetryDelayMs` -> `maxReconnectInterval` (exact cap; the growth stays the library's `backoffMultiplier` 2);
 * - `connectTimeoutMs` -> none: the library has no connect timeout option. Its handshake read
 *   timeout is the heartbeat (so 5 s here, not 2 s): approximate, reported as such;
 * - TCP_NODELAY -> `tlsOptions.noDelay`: the library has no option for it, but its TCP connect
 *   spreads `tlsOptions` into `net.connect`'s options (plain amqp:// too), so it reaches every
 *   socket of every attempt. Outside the option's declared type, hence the cast.
 */
export function sessionTuningOf(profile: ClientProfile): SessionTuning {
  return profile === 'normalised'
    ? {
        heartbeat: NORMALISED_SETTINGS.heartbeatSeconds,
        reconnectInterval: NORMALISED_SETTINGS.firstRetryDelayMs,
        maxReconnectInterval: NORMALISED_SETTINGS.maxRetryDelayMs,
        tlsOptions: { noDelay: NORMALISED_SETTINGS.noDelay } as AMQPTlsOptions,
      }
    : {};
}

/** Whether a profile's sockets set TCP_NODELAY (undefined: the library's default, Nagle on). */
function noDelayOf(tuning: SessionTuning): boolean | undefined {
  return (tuning.tlsOptions as { noDelay?: boolean } | undefined)?.noDelay;
}

/** The settings a result records, in the library's own option names. */
export function reportedSettings(profile: ClientProfile): Readonly<Record<string, string | number | boolean>> {
  const tuning = sessionTuningOf(profile);
  return {
    recovery: 'AMQPSession (reconnect, re-consume session subscriptions; no topology)',
    heartbeat: tuning.heartbeat ?? `default (${CLOUDAMQP_DEFAULTS.heartbeat}: off, TCP keepalive asked instead)`,
    reconnectInterval: tuning.reconnectInterval ?? `default (${CLOUDAMQP_DEFAULTS.reconnectInterval})`,
    maxReconnectInterval: tuning.maxReconnectInterval ?? `default (${CLOUDAMQP_DEFAULTS.maxReconnectInterval})`,
    backoffMultiplier: `default (${CLOUDAMQP_DEFAULTS.backoffMultiplier})`,
    maxRetries: `default (${CLOUDAMQP_DEFAULTS.maxRetries}: unlimited)`,
    frameMax: `default (${CLOUDAMQP_DEFAULTS.frameMax})`,
    no_delay: noDelayOf(tuning) ?? 'default (false: Nagle on; the library has no option)',
    handshake_timeout_s:
      tuning.heartbeat === undefined
        ? `default (${CLOUDAMQP_DEFAULTS.handshakeTimeoutSeconds}; no connect timeout option)`
        : `${tuning.heartbeat} (follows heartbeat; no connect timeout option)`,
  };
}
