/**
 * rabbitmq-client's settings as the adapter reports and passes them, checked against the
 * library's own code (its option normaliser and its backoff function), so a library upgrade that
 * changes a default shows here. Pure: nothing connects.
 */
import * as normalizeModule from 'rabbitmq-client/lib/normalize';
import * as utilModule from 'rabbitmq-client/lib/util';
import { NORMALISED_SETTINGS } from '../../src/client/api';
import { ConfigError } from '../../src/errors';
import { rabbitmqClientAdapter } from '../../src/client/rabbitmqClient/adapter';
import { LIBRARY_DEFAULTS, profileOptions, reportedSettings } from '../../src/client/rabbitmqClient/settings';
import { connectionTarget } from '../../src/client/rabbitmqClient/target';
import { clientInfo } from '../../src/client/registry';

// Internal to the library (left out of its type declarations), reached for these checks only.
const normalizeOptions = (normalizeModule as unknown as { default: (raw: object) => Record<string, unknown> }).default;
const { expBackoff } = utilModule as unknown as { expBackoff: (step: number, high: number, attempts: number) => number };

describe('rabbitmq-client settings', () => {
  it("reports the library's own defaults in the defaults profile", () => {
    const library = normalizeOptions({ url: 'amqp://guest:guest@127.0.0.1:5672' });
    expect(LIBRARY_DEFAULTS).toMatchObject({
      heartbeat: library.heartbeat,
      retryLowMs: library.retryLow,
      retryHighMs: library.retryHigh,
      connectionTimeoutMs: library.connectionTimeout,
      acquireTimeoutMs: library.acquireTimeout,
    });
    expect(profileOptions('defaults')).toEqual({});
    expect(reportedSettings('defaults')).toMatchObject({
      heartbeat: "default (60 s, or the broker's proposal if lower)",
      retryLow: 'default (1000)',
      retryHigh: 'default (30000)',
      connectionTimeout: 'default (10000)',
      acquireTimeout: 'default (20000)',
      maxAttempts: 'default (1)',
      noDelay: 'default (false)',
    });
  });

  it('maps the normalised settings onto the options the library reads', () => {
    const options = profileOptions('normalised');
    expect(options).toEqual({
      heartbeat: NORMALISED_SETTINGS.heartbeatSeconds,
      retryLow: NORMALISED_SETTINGS.firstRetryDelayMs,
      retryHigh: NORMALISED_SETTINGS.maxRetryDelayMs,
      connectionTimeout: NORMALISED_SETTINGS.connectTimeoutMs,
      noDelay: true,
    });
    // The library keeps them as given (its normaliser would reject or override bad ones).
    expect(normalizeOptions({ url: 'amqp://guest:guest@127.0.0.1:5672', ...options })).toMatchObject(options);
    expect(reportedSettings('normalised')).toMatchObject({
      heartbeat: 5,
      retryLow: 100,
      retryHigh: 1000,
      connectionTimeout: 2000,
      noDelay: true,
    });
  });

  it("puts the library's first reconnection delay between retryLow and twice retryLow", () => {
    const delaysMs = Array.from({ length: 500 }, () => expBackoff(LIBRARY_DEFAULTS.retryLowMs, LIBRARY_DEFAULTS.retryHighMs, 1));
    expect(Math.min(...delaysMs)).toBeGreaterThanOrEqual(1000);
    expect(Math.max(...delaysMs)).toBeLessThan(2000);
    const normalisedMs = Array.from({ length: 500 }, () => expBackoff(100, 1000, 1));
    expect(Math.min(...normalisedMs)).toBeGreaterThanOrEqual(100);
    expect(Math.max(...normalisedMs)).toBeLessThan(200);
  });

  it('says what it is through the registry', () => {
    const info = clientInfo({ name: 'rabbitmq-client', profile: 'defaults' });
    expect(info).toMatchObject({ library: 'rabbitmq-client', multipleHosts: true, recovery: 'library' });
    expect(info.version).toMatch(/^5\./);
    expect(info.settings).toEqual(rabbitmqClientAdapter.settings('defaults'));
  });
});

describe('rabbitmq-client connection target', () => {
  it('passes one URL as it is', () => {
    expect(connectionTarget(['amqp://guest:guest@127.0.0.1:5672'])).toEqual({ url: 'amqp://guest:guest@127.0.0.1:5672' });
  });

  it('lists every host of several URLs, the first first, with default ports', () => {
    expect(connectionTarget(['amqp://u:p@a:5673/vh', 'amqp://u:p@b/vh', 'amqp://u:p@c:25672/vh'])).toEqual({
      url: 'amqp://u:p@a:5673/vh',
      hosts: ['a:5673', 'b:5672', 'c:25672'],
    });
    expect(connectionTarget(['amqps://u:p@a/vh', 'amqps://u:p@b/vh']).hosts).toEqual(['a:5671', 'b:5671']);
  });

  it('refuses URLs the library cannot share one login between, without showing a password', () => {
    const attempt = () => connectionTarget(['amqp://u:secret1@a/vh', 'amqp://u:secret2@b/vh']);
    expect(attempt).toThrow(ConfigError);
    expect(attempt).toThrow(/differ only in host and port/);
    expect(attempt).not.toThrow(/secret/);
    expect(() => connectionTarget(['amqp://u:p@a/vh', 'amqp://u:p@b/other'])).toThrow(/vhost/);
  });

  it('refuses IPv6 literals in a host list and an empty list', () => {
    expect(() => connectionTarget(['amqp://u:p@a/vh', 'amqp://u:p@[::1]:5672/vh'])).toThrow(/IPv6/);
    expect(() => connectionTarget([])).toThrow(/at least one/);
  });
});
