/**
 * What each profile gives rascal 21, as the configuration document rascal takes
 * (`BrokerAsPromised.create(config)`), and how a result reports it in rascal's own setting names.
 * The values marked `default (…)` are read from its source: lib/config/defaults.js (what
 * `rascal.withDefaultConfig` adds, as its README starts a user off) and lib/config/baseline.js
 * (what every configuration gets).
 */
import { NORMALISED_SETTINGS, type ClientProfile } from '../api';
import { rascalModule } from './rascalApi';

/** rascal's vhost key for the broker's default vhost (the URL's path, when it has one, wins: lib/config/configure.js:75-79). */
export const RASCAL_VHOST = '/';
/** Publications on the default exchange (the routing key, and for a named exchange the destination, given per publish). */
export const PLAIN_PUBLICATION = 'bench-plain';
export const CONFIRMED_PUBLICATION = 'bench-confirmed';
/** The one subscription; each consumer names its queue as the `source` override of `broker.subscribe`. */
export const SUBSCRIPTION = 'bench-consumer';
/** rascal's subscriptions name a configured queue: one it neither declares nor checks (the harness declares every queue). */
const PLACEHOLDER_QUEUE = 'bench-queue-named-per-subscribe';
/**
 * The subscription's `closeTimeout`, set in both profiles: without one, cancelling a subscription
 * (and so `broker.shutdown()`) waits for every unacknowledged delivery to be acked, for ever
 * (lib/amqp/SubscriberSession.js:74, 218-228), and the broker's keep-alive interval
 * (lib/amqp/Broker.js:61, cleared at :106) then keeps the process running.
 */
export const RASCAL_CLOSE_TIMEOUT_MS = 1000;

/** lib/config/defaults.js: heartbeat 10 s, a 10 s socket timeout. */
export const RASCAL_DEFAULT_HEARTBEAT_SECONDS = 10;
export const RASCAL_DEFAULT_SOCKET_TIMEOUT_MS = 10_000;
/** lib/config/baseline.js: connection and subscription retry, exponential, randomised between each step and the next (lib/backoff/exponential.js). */
export const RASCAL_DEFAULT_RETRY = Object.freeze({ min: 1000, max: 60_000, factor: 2, strategy: 'exponential' });
/** lib/config/baseline.js: a confirmed publication fails after 10 s without the broker's confirm. */
export const RASCAL_DEFAULT_PUBLICATION_TIMEOUT_MS = 10_000;

interface RascalRetry {
  readonly min: number;
  readonly max: number;
  readonly factor: number;
  readonly strategy: 'exponential';
}

/** What one profile sets; undefined: rascal's own value. */
export interface RascalProfileOptions {
  readonly heartbeat?: number;
  readonly socketTimeoutMs?: number;
  readonly noDelay?: boolean;
  readonly retry?: RascalRetry;
}

/**
 * `defaults`: the configuration through `rascal.withDefaultConfig`, nothing else set.
 * `normalised`, mapped onto rascal's settings:
 * - heartbeatSeconds → `connection.options.heartbeat` (exact; a URL query parameter amqplib reads);
 * - firstRetryDelayMs / maxRetryDelayMs → `retry: { min: 100, max: 1000, factor: 2 }` for the
 *   connection (`defaults.vhosts.connection.retry`) and the subscriptions (`defaults.subscriptions.retry`);
 *   approximate: rascal reconnects at once after a drop (lib/amqp/Vhost.js:509-515) and waits
 *   its retry delay only after a failed attempt, each delay drawn between a step and the next;
 * - connectTimeoutMs → `connection.socketOptions.timeout` (exact: amqplib's socket timeout covers
 *   TCP connect and the AMQP handshake);
 * - plus `socketOptions.noDelay: true`, as every Node adapter of the harness.
 */
export function rascalOptionsOf(profile: ClientProfile): RascalProfileOptions {
  if (profile === 'defaults') return {};
  return {
    heartbeat: NORMALISED_SETTINGS.heartbeatSeconds,
    socketTimeoutMs: NORMALISED_SETTINGS.connectTimeoutMs,
    noDelay: NORMALISED_SETTINGS.noDelay,
    retry: { min: NORMALISED_SETTINGS.firstRetryDelayMs, max: NORMALISED_SETTINGS.maxRetryDelayMs, factor: 2, strategy: 'exponential' },
  };
}

/** The connection options of one profile (what goes with each URL), `connection_name` added when given. */
function connectionOf(url: string, options: RascalProfileOptions, connectionName: string | undefined): Record<string, unknown> {
  return {
    url,
    ...(options.heartbeat === undefined ? {} : { options: { heartbeat: options.heartbeat } }),
    socketOptions: {
      ...(options.socketTimeoutMs === undefined ? {} : { timeout: options.socketTimeoutMs }),
      ...(options.noDelay === undefined ? {} : { noDelay: options.noDelay }),
      ...(connectionName ? { clientProperties: { connection_name: connectionName } } : {}),
    },
  };
}

/**
 * rascal's configuration for `profile`: one vhost over every URL, a plain and a confirmed
 * publication on the default exchange, one subscription; nothing declared on the broker.
 */
export function rascalConfigOf(profile: ClientProfile, urls: readonly string[], connectionName?: string): unknown {
  const options = rascalOptionsOf(profile);
  const config = {
    ...(options.retry === undefined
      ? {}
      : { defaults: { vhosts: { connection: { retry: options.retry } }, subscriptions: { retry: options.retry } } }),
    vhosts: {
      [RASCAL_VHOST]: {
        connections: urls.map((url) => connectionOf(url, options, connectionName)),
        queues: { [PLACEHOLDER_QUEUE]: { assert: false, check: false } },
      },
    },
    publications: {
      [PLAIN_PUBLICATION]: { vhost: RASCAL_VHOST, exchange: '', confirm: false },
      [CONFIRMED_PUBLICATION]: { vhost: RASCAL_VHOST, exchange: '', confirm: true },
    },
    subscriptions: { [SUBSCRIPTION]: { vhost: RASCAL_VHOST, queue: PLACEHOLDER_QUEUE, closeTimeout: RASCAL_CLOSE_TIMEOUT_MS } },
  };
  return rascalModule().withDefaultConfig(config);
}

const retryWords = (retry: RascalRetry) =>
  `{ min: ${retry.min}, max: ${retry.max}, factor: ${retry.factor}, strategy: '${retry.strategy}' }`;

/** How a result names the settings of `profile` (`ClientInfo.settings`). */
export function rascalSettingsOf(profile: ClientProfile): Readonly<Record<string, string | number | boolean>> {
  const options = rascalOptionsOf(profile);
  const retry =
    options.retry === undefined ? `default (${retryWords(RASCAL_DEFAULT_RETRY)}, randomised)` : `${retryWords(options.retry)} (randomised)`;
  return {
    recovery:
      "rascal (reconnects at once, then retries with backoff; re-subscribes each subscription; publishes wait in the channel pool's queue)",
    'connection.options.heartbeat': options.heartbeat ?? `default (${RASCAL_DEFAULT_HEARTBEAT_SECONDS})`,
    'connection.retry': retry,
    'subscriptions.retry': retry,
    'connection.socketOptions.timeout': options.socketTimeoutMs ?? `default (${RASCAL_DEFAULT_SOCKET_TIMEOUT_MS})`,
    'connection.socketOptions.noDelay': options.noDelay ?? 'default (false: Nagle on)',
    connectionStrategy: "default ('random': the URL list shuffled once per process)",
    'subscriptions.closeTimeout': `${RASCAL_CLOSE_TIMEOUT_MS} (set in both profiles; default: none, a cancel waits for every unacked delivery)`,
    'publications.timeout': `default (${RASCAL_DEFAULT_PUBLICATION_TIMEOUT_MS}: a confirm not received by then fails the publish)`,
    'publications.options': 'default ({ persistent: true, mandatory: true }; persistent set per publish by the workload)',
    // What a harness must know to read publish results: nothing fails while disconnected.
    publish_while_disconnected:
      "held: the channel pool's queue pauses until the vhost reconnects (no bound; the session's 'paused' event and abort() are the user's way out)",
  };
}

/** rascal's own options of `profile` for the bare script (what its configuration would set per connection). */
export function rascalBareOptionsOf(profile: ClientProfile): Readonly<Record<string, unknown>> {
  const options = rascalOptionsOf(profile);
  return {
    ...(options.heartbeat === undefined ? {} : { heartbeat: options.heartbeat }),
    socketOptions: {
      ...(options.socketTimeoutMs === undefined ? {} : { timeout: options.socketTimeoutMs }),
      ...(options.noDelay === undefined ? {} : { noDelay: options.noDelay }),
    },
  };
}
