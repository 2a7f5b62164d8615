import path from 'node:path';
import { DEFAULTS, PROJECT_ROOT, proxiedAmqpUrl, replicatesOr, resolveConfig } from '../../src/config';
import { availableClients } from '../../src/client/registry';
import { ConfigError } from '../../src/errors';
import { DEFAULT_MINIMUM_EFFECTS } from '../../src/minimumEffects';

describe('resolveConfig', () => {
  it('gives defaults that work on this machine when nothing is set', () => {
    const config = resolveConfig({});
    expect(config).toEqual({
      amqpUrl: 'amqp://guest:guest@127.0.0.1:5672',
      proxyApiUrl: 'http://127.0.0.1:8474',
      // TOXIPROXY_URL unset: a proxy of the run's own, its entry on a free port.
      proxyScope: 'own',
      proxyName: 'rabbitmq',
      proxyListen: { host: '127.0.0.1', port: 0 },
      proxyUpstream: { host: '127.0.0.1', port: 5672 },
      embeddedProxy: 'auto',
      rawResultsDir: path.join(PROJECT_ROOT, DEFAULTS.rawResultsDir),
      reportsDir: path.join(PROJECT_ROOT, DEFAULTS.reportsDir),
      runIdClaimsDir: null,
      markerExpression: undefined,
      strictTargets: false,
      failOnFindings: false,
      clients: [{ name: 'amqplib', profile: 'defaults' }],
      replicates: null,
      minimumEffects: DEFAULT_MINIMUM_EFFECTS,
    });
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('reads good values and normalises them once', () => {
    const config = resolveConfig({
      AMQP_URL: 'amqps://user:secret@broker.example:5671/vhost',
      TOXIPROXY_URL: 'http://toxiproxy:8474/',
      BENCH_PROXY_NAME: 'rabbit-2',
      BENCH_PROXY_LISTEN: '0.0.0.0:35672',
      BENCH_PROXY_UPSTREAM: '[::1]:5672',
      BENCH_EMBEDDED_PROXY: 'NEVER',
      BENCH_RAW_DIR: '/tmp/raw',
      BENCH_RUN_ID_CLAIMS: '/tmp/ab/.run-ids',
      BENCH_MARKERS: ' not slow ',
      BENCH_STRICT_TARGETS: 'yes',
    });
    expect(config.amqpUrl).toBe('amqps://user:secret@broker.example:5671/vhost');
    expect(config.proxyApiUrl).toBe('http://toxiproxy:8474');
    expect(config.proxyName).toBe('rabbit-2');
    expect(config.proxyListen).toEqual({ host: '0.0.0.0', port: 35672 });
    expect(config.proxyUpstream).toEqual({ host: '::1', port: 5672 });
    expect(config.embeddedProxy).toBe('never');
    expect(config.proxyScope).toBe('shared');
    expect(config.rawResultsDir).toBe('/tmp/raw');
    expect(config.runIdClaimsDir).toBe('/tmp/ab/.run-ids');
    expect(config.markerExpression).toBe('not slow');
    expect(config.strictTargets).toBe(true);
  });

  it('shares the proxy at TOXIPROXY_URL only when it is set, or when the embedded one may not start', () => {
    expect(resolveConfig({ TOXIPROXY_URL: 'http://127.0.0.1:8474' })).toMatchObject({
      proxyScope: 'shared',
      proxyListen: { host: '127.0.0.1', port: 25672 },
    });
    expect(resolveConfig({ BENCH_EMBEDDED_PROXY: 'never' })).toMatchObject({ proxyScope: 'shared', proxyApiUrl: 'http://127.0.0.1:8474' });
    expect(resolveConfig({ TOXIPROXY_URL: ' ' }).proxyScope).toBe('own');
    // A listen address the user names is kept with a proxy of the run's own too (bench verify captures that port).
    expect(resolveConfig({ BENCH_PROXY_LISTEN: '127.0.0.1:35672' })).toMatchObject({
      proxyScope: 'own',
      proxyListen: { host: '127.0.0.1', port: 35672 },
    });
  });

  it('treats empty values as unset', () => {
    expect(resolveConfig({ AMQP_URL: '  ', BENCH_STRICT_TARGETS: '' }).amqpUrl).toBe(DEFAULTS.amqpUrl);
  });

  it.each([
    ['AMQP_URL', 'localhost', /^AMQP_URL must be an amqp:\/\/ or amqps:\/\/ URL .*; got "localhost"$/],
    ['AMQP_URL', 'http://127.0.0.1:5672', /^AMQP_URL must be an amqp/],
    ['AMQP_URL', 'amqp://127.0.0.1:99999', /^AMQP_URL must be/],
    ['TOXIPROXY_URL', 'toxiproxy:8474', /^TOXIPROXY_URL must be an http:\/\/ URL/],
    ['BENCH_PROXY_LISTEN', '127.0.0.1', /^BENCH_PROXY_LISTEN must be host:port with a port from 1 to 65535/],
    [
      'BENCH_PROXY_LISTEN',
      '127.0.0.1:70000',
      /^BENCH_PROXY_LISTEN must be host:port with a port from 1 to 65535 .*; got "127.0.0.1:70000"$/,
    ],
    ['BENCH_PROXY_UPSTREAM', '127.0.0.1:0', /^BENCH_PROXY_UPSTREAM must be host:port/],
    ['BENCH_PROXY_UPSTREAM', 'rabbit:port', /^BENCH_PROXY_UPSTREAM must be host:port/],
    ['BENCH_PROXY_NAME', 'my proxy', /^BENCH_PROXY_NAME must be a name of letters/],
    ['BENCH_EMBEDDED_PROXY', 'sometimes', /^BENCH_EMBEDDED_PROXY must be one of auto, never; got "sometimes"$/],
    ['BENCH_STRICT_TARGETS', 'maybe', /^BENCH_STRICT_TARGETS must be true or false/],
    ['BENCH_CLIENT_MODE', 'manual', /^BENCH_CLIENT_MODE must be unset; clients are chosen with BENCH_CLIENTS now .*; got "manual"$/],
    [
      'BENCH_CLIENTS',
      'amqplib2',
      /^BENCH_CLIENTS must be "all" or a comma-separated list of clients .*\(unknown client "amqplib2"\); got "amqplib2"$/,
    ],
    ['BENCH_CLIENTS', 'amqplib:fast', /^BENCH_CLIENTS must be .*\(unknown profile "fast" in "amqplib:fast"\)/],
    ['BENCH_REPLICATES', '0', /^BENCH_REPLICATES must be a whole number of replicates from 1 to 50 .*; got "0"$/],
    ['BENCH_REPLICATES', '2.5', /^BENCH_REPLICATES must be a whole number of replicates/],
    ['BENCH_REPLICATES', 'two', /^BENCH_REPLICATES must be a whole number of replicates/],
    ['BENCH_REPLICATES', '51', /^BENCH_REPLICATES must be a whole number of replicates from 1 to 50/],
  ])('rejects %s=%s with one line naming the variable and the expected form', (variable, value, message) => {
    let thrown: unknown;
    try {
      resolveConfig({ [variable]: value });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ConfigError);
    expect((thrown as ConfigError).variable).toBe(variable);
    expect((thrown as ConfigError).code).toBe('CONFIG_INVALID');
    expect((thrown as Error).message).toMatch(message);
    expect((thrown as Error).message).not.toContain('\n');
  });
});

describe('proxiedAmqpUrl', () => {
  it('keeps credentials and vhost but targets the proxy listener', () => {
    expect(proxiedAmqpUrl({ amqpUrl: 'amqp://u:p@10.0.0.5:5672/vh?heartbeat=5', proxyListen: { host: '127.0.0.1', port: 25672 } })).toBe(
      'amqp://u:p@127.0.0.1:25672/vh?heartbeat=5',
    );
  });

  it('turns a wildcard listen address into loopback', () => {
    expect(proxiedAmqpUrl({ amqpUrl: 'amqp://guest:guest@127.0.0.1:5672', proxyListen: { host: '0.0.0.0', port: 25672 } })).toBe(
      'amqp://guest:guest@127.0.0.1:25672',
    );
  });
});

describe('BENCH_CLIENTS', () => {
  it.each([
    ['amqplib:defaults', [['amqplib', 'defaults']]],
    [
      'rabbitmq-client',
      [
        ['rabbitmq-client', 'defaults'],
        ['rabbitmq-client', 'normalised'],
      ],
    ],
    [
      ' cloudamqp:normalised , amqplib , cloudamqp:normalised',
      [
        ['cloudamqp', 'normalised'],
        ['amqplib', 'defaults'],
        ['amqplib', 'normalised'],
      ],
    ],
  ])('reads %j as the clients to measure, in order, once each', (raw, expected) => {
    expect(resolveConfig({ BENCH_CLIENTS: raw }).clients.map((spec) => [spec.name, spec.profile])).toEqual(expected);
  });

  it('reads "all" as every installed client in both profiles', () => {
    const clients = resolveConfig({ BENCH_CLIENTS: 'all' }).clients;
    expect(clients).toHaveLength(2 * availableClients().length);
    expect(new Set(clients.map((spec) => spec.name))).toEqual(new Set(availableClients()));
    expect(availableClients()).toEqual(expect.arrayContaining(['amqplib', 'rabbitmq-client', 'cloudamqp']));
  });
});

describe('BENCH_REPLICATES', () => {
  it("replaces every benchmark's own replicate count when set, and leaves it alone when not", () => {
    expect(resolveConfig({ BENCH_REPLICATES: ' 2 ' }).replicates).toBe(2);
    expect(replicatesOr(6, resolveConfig({ BENCH_REPLICATES: '2' }))).toBe(2);
    expect(replicatesOr(6, resolveConfig({ BENCH_REPLICATES: '8' }))).toBe(8);
    expect(replicatesOr(6, resolveConfig({}))).toBe(6);
    expect(replicatesOr(5, resolveConfig({ BENCH_REPLICATES: '' }))).toBe(5);
  });
});
