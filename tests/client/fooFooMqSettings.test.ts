/**
 * What each profile hands foo-foo-mq's `addConnection`: the address of every URL in its own host
 * and port lists, and nothing else in `defaults`; the normalised heartbeat, waits and timeout in
 * its own option names, with its give-up lifted, in `normalised`; in both, no reply queue (the
 * harness declares every queue) and the connection_name when given.
 */
import { connectionOptionsOf, fooFooMqBareOptionsOf, fooFooMqSettingsOf } from '../../src/client/fooFooMq/settings';

const URLS = ['amqp://guest:guest@127.0.0.1:5672', 'amqp://bench:s%40cret@127.0.0.2:5673/%2f'];

describe('foo-foo-mq connection options per profile', () => {
  it('gives defaults the address only (every URL as its host and port lists), no reply queue, the connection name', () => {
    expect(connectionOptionsOf('defaults', URLS, 'amqp-bench-1', 'bench-1')).toEqual({
      name: 'amqp-bench-1',
      protocol: 'amqp://',
      host: ['127.0.0.1', '127.0.0.2'],
      port: [5672, 5673],
      user: 'guest',
      pass: 'guest',
      vhost: '%2f',
      replyQueue: false,
      clientProperties: { connection_name: 'bench-1' },
    });
  });

  it("takes user, password and vhost from the first URL, decoded once (foo-foo-mq encodes the password itself), and a URL's heartbeat", () => {
    const options = connectionOptionsOf('defaults', [URLS[1]!, URLS[0]!], 'n', undefined);
    expect(options).toMatchObject({ user: 'bench', pass: 's@cret', vhost: '%2f', port: [5673, 5672] });
    expect(options).not.toHaveProperty('clientProperties');
    expect(connectionOptionsOf('defaults', ['amqp://127.0.0.1/?heartbeat=7'], 'n', undefined)).toMatchObject({ heartbeat: 7 });
  });

  it('maps the normalised settings onto its own options, and lifts its give-up', () => {
    const options = connectionOptionsOf('normalised', URLS.slice(0, 1), 'n', undefined);
    expect(options).toMatchObject({ heartbeat: 5, timeout: 2000, waitMin: 100, waitMax: 1000, replyQueue: false });
    expect(options.retryLimit).toBeGreaterThan(1e9);
    // A Node timer of more than 2^31 - 1 ms fires at once: failAfter (seconds) stays below it.
    expect((options.failAfter as number) * 1000).toBeLessThanOrEqual(2 ** 31 - 1);
    expect(connectionOptionsOf('normalised', ['amqp://127.0.0.1/?heartbeat=7'], 'n', undefined)).toMatchObject({ heartbeat: 5 });
  });

  it('reports every default it leaves to foo-foo-mq as "default (…)", with the value from its source', () => {
    const settings = fooFooMqSettingsOf('defaults');
    for (const name of ['heartbeat', 'timeout', 'waitMin', 'waitMax', 'retryLimit', 'failAfter'])
      expect(settings[name]).toMatch(/^default \(/);
    expect(settings.heartbeat).toBe('default (30)');
    expect(settings.retryLimit).toMatch(/^default \(3/);
    expect(fooFooMqSettingsOf('normalised')).toMatchObject({ heartbeat: 5, waitMin: 100, waitMax: 1000, retryLimit: 'none (lifted)' });
  });

  it('hands the bare script its own options only: nothing in defaults', () => {
    expect(fooFooMqBareOptionsOf('defaults')).toEqual({});
    expect(fooFooMqBareOptionsOf('normalised')).toMatchObject({ heartbeat: 5, waitMin: 100 });
  });
});
