/**
 * What each profile gives foo-foo-mq 8 (`broker.addConnection(options)`), and how a result
 * reports it in foo-foo-mq's own option names. The `default (…)` values are read from its source
 * at 8.0.1: src/index.js (retryLimit, failAfter, the ack tick), src/amqp/connection.js (heartbeat,
 * timeout, noDelay), src/amqp/iomonad.js (the reconnection waits), src/topology.js (the reply queue).
 */
import { NORMALISED_SETTINGS, type ClientProfile } from '../api';

/** src/amqp/connection.js:109, :113: heartbeat 30 s, a 2 s socket timeout (TCP connect and the AMQP handshake). */
export const FFMQ_DEFAULT_HEARTBEAT_SECONDS = 30;
export const FFMQ_DEFAULT_TIMEOUT_MS = 2000;
/** src/index.js:79-83: it gives up after 3 consecutive failures, or after 60 s of trying. */
export const FFMQ_DEFAULT_RETRY_LIMIT = 3;
export const FFMQ_DEFAULT_FAIL_AFTER_SECONDS = 60;
/** src/amqp/iomonad.js:50-53: the first retry at once, each failed one waits 100 ms more, below 5 s. */
export const FFMQ_DEFAULT_WAIT = Object.freeze({ waitMin: 0, waitMax: 5000, waitIncrement: 100 });
/**
 * Normalised: no give-up, as every other client (they retry until the harness's deadline). The
 * attempt count never reaches this; `failAfter` is the longest a Node timer takes (2^31 - 1 ms):
 * a longer one fires at once (src/connectionFsm.js:48, :172-178 multiply it by 1000).
 */
export const FFMQ_NO_RETRY_LIMIT = Number.MAX_SAFE_INTEGER;
export const FFMQ_LONGEST_FAIL_AFTER_SECONDS = 2_147_483;

/** What one profile sets; undefined: foo-foo-mq's own value. */
export interface FooFooMqProfileOptions {
  readonly heartbeat?: number;
  readonly timeout?: number;
  readonly waitMin?: number;
  readonly waitMax?: number;
  readonly retryLimit?: number;
  readonly failAfter?: number;
}

/**
 * `defaults`: the connection as foo-foo-mq's README starts a user off (the address, nothing else).
 * `normalised`, onto foo-foo-mq's connection options:
 * - heartbeatSeconds → `heartbeat` (exact);
 * - firstRetryDelayMs → `waitMin` (exact: the wait before the first attempt after a drop, reset at
 *   each connection, src/amqp/iomonad.js:80, :281-289);
 * - maxRetryDelayMs → `waitMax` (approximate: the wait grows by `waitIncrement`, 100 ms, only
 *   while it stays below `waitMax`, so 100, 200 … 900 ms);
 * - connectTimeoutMs → `timeout` (exact; 2000 is also its default);
 * - TCP_NODELAY: nothing to set, foo-foo-mq always sets it (src/amqp/connection.js:123);
 * - and `retryLimit` / `failAfter` lifted (see FFMQ_NO_RETRY_LIMIT): the one setting beyond
 *   NORMALISED_SETTINGS, since every other client keeps trying.
 */
export function fooFooMqOptionsOf(profile: ClientProfile): FooFooMqProfileOptions {
  if (profile === 'defaults') return {};
  return {
    heartbeat: NORMALISED_SETTINGS.heartbeatSeconds,
    timeout: NORMALISED_SETTINGS.connectTimeoutMs,
    waitMin: NORMALISED_SETTINGS.firstRetryDelayMs,
    waitMax: NORMALISED_SETTINGS.maxRetryDelayMs,
    retryLimit: FFMQ_NO_RETRY_LIMIT,
    failAfter: FFMQ_LONGEST_FAIL_AFTER_SECONDS,
  };
}

/**
 * `addConnection`'s options for `profile`: the address of every URL as foo-foo-mq's host and port
 * lists (it tries them in order from an index chosen per process, src/amqp/connection.js:28-40,
 * :152-208), user, password and vhost from the first URL (foo-foo-mq has one of each per
 * connection), `replyQueue: false` in both profiles, and `connection_name` when given.
 */
export function connectionOptionsOf(
  profile: ClientProfile,
  urls: readonly string[],
  name: string,
  connectionName: string | undefined,
): Record<string, unknown> {
  const parsed = urls.map((url) => new URL(url));
  const first = parsed[0];
  if (first === undefined) throw new Error('foo-foo-mq: no broker URL given');
  const tls = first.protocol === 'amqps:';
  const urlHeartbeat = first.searchParams.get('heartbeat');
  return {
    ...(urlHeartbeat === null ? {} : { heartbeat: Number(urlHeartbeat) }),
    ...fooFooMqOptionsOf(profile),
    name,
    protocol: tls ? 'amqps://' : 'amqp://',
    ...(tls ? { useSSL: true } : {}),
    host: parsed.map((url) => url.hostname),
    port: parsed.map((url) => Number(url.port || (tls ? 5671 : 5672))),
    user: decodeURIComponent(first.username || 'guest'),
    pass: decodeURIComponent(first.password || 'guest'),
    // foo-foo-mq writes the vhost into its URI as it is (src/amqp/connection.js:50-54): the URL's encoded path.
    vhost: first.pathname.length > 1 ? first.pathname.slice(1) : '%2f',
    replyQueue: false,
    ...(connectionName ? { clientProperties: { connection_name: connectionName } } : {}),
  };
}

const orDefault = (value: number | undefined, fallback: string): number | string => value ?? `default (${fallback})`;

/** How a result names the settings of `profile` (`ClientInfo.settings`). */
export function fooFooMqSettingsOf(profile: ClientProfile): Readonly<Record<string, string | number | boolean>> {
  const options = fooFooMqOptionsOf(profile);
  return {
    recovery:
      'foo-foo-mq (reconnects after waitMin, each failed attempt waiting waitIncrement more; gives up after retryLimit consecutive failures or failAfter s; checks and subscribes its queues again)',
    heartbeat: orDefault(options.heartbeat, String(FFMQ_DEFAULT_HEARTBEAT_SECONDS)),
    timeout: orDefault(options.timeout, `${FFMQ_DEFAULT_TIMEOUT_MS}: socket timeout over TCP connect and the AMQP handshake`),
    noDelay: 'always on (src/amqp/connection.js:123; no option)',
    waitMin: orDefault(options.waitMin, String(FFMQ_DEFAULT_WAIT.waitMin)),
    waitMax: orDefault(options.waitMax, String(FFMQ_DEFAULT_WAIT.waitMax)),
    waitIncrement: `default (${FFMQ_DEFAULT_WAIT.waitIncrement}; the wait grows only while below waitMax)`,
    retryLimit: options.retryLimit === undefined ? `default (${FFMQ_DEFAULT_RETRY_LIMIT}: the drop itself counts as one)` : 'none (lifted)',
    failAfter: orDefault(options.failAfter, `${FFMQ_DEFAULT_FAIL_AFTER_SECONDS} s of failing, then no more attempts`),
    replyQueue:
      'false (both profiles; default: an auto-delete queue <host>.<process>.<pid>.response.queue, declared and consumed per connection, src/topology.js:61, :90-91, :238-258)',
    channel_retry:
      'not settable: a channel is acquired again at once after an error, then 100 ms more per failure up to 5 s, back to 0 at every open (src/amqp/channel.js:31, src/amqp/iomonad.js:50-53, :80)',
    acks: 'default (batched: each queue sends its acks on a process-wide 500 ms tick, src/index.js:95, :159-161, src/ackBatch.js:253-259)',
    publish:
      "broker.publish on the exchange's own channel, a confirm channel (src/amqp/exchange.js:131-150): every publish waits for its confirm, plain publishers too",
    subscribe:
      'addQueue passive (checkQueue, nothing declared) and startSubscription: one subscription per queue per connection, prefetch as the queue `limit`',
    publish_while_disconnected:
      'held by the exchange until it is ready again (src/exchangeFsm.js:219-231, :252-277), rejected when the connection gives up; its limit of 100 counts only publishes written and not yet confirmed (src/exchangeFsm.js:157, src/amqp/exchange.js:95-97)',
  };
}

/** foo-foo-mq's own connection options of `profile` for the bare script (no address, name or reply queue). */
export function fooFooMqBareOptionsOf(profile: ClientProfile): Readonly<Record<string, unknown>> {
  return { ...fooFooMqOptionsOf(profile) };
}
