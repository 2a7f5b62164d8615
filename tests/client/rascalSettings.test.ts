/**
 * What each profile hands rascal, as the configuration document rascal takes: the defaults of
 * `withDefaultConfig` and nothing else in `defaults`; the normalised heartbeat, retry steps,
 * socket timeout and TCP_NODELAY in rascal's own places in `normalised`; in both, nothing that
 * would make rascal declare or check anything on the broker.
 */
import { rascalConfigOf, rascalSettingsOf } from '../../src/client/rascal/settings';

type Config = {
  defaults?: { vhosts?: { connection?: { retry?: unknown; options?: { heartbeat?: number } } }; subscriptions?: { retry?: unknown } };
  vhosts: Record<string, { connections: Record<string, unknown>[]; queues: Record<string, { assert: boolean; check: boolean }> }>;
  publications: Record<string, { exchange: string; confirm: boolean }>;
  subscriptions: Record<string, { closeTimeout: number }>;
};

const URLS = ['amqp://guest:guest@127.0.0.1:5672', 'amqp://guest:guest@127.0.0.1:5673'];

describe('rascal configuration per profile', () => {
  it("gives defaults withDefaultConfig's values (heartbeat 10 s, 10 s socket timeout) and baseline's retry", () => {
    const config = rascalConfigOf('defaults', URLS, 'bench-1') as Config;
    expect(config.defaults?.vhosts?.connection?.options?.heartbeat).toBe(10);
    expect(config.defaults?.vhosts?.connection?.retry).toBeUndefined();
    expect(config.vhosts['/']!.connections).toEqual(
      URLS.map((url) => ({ url, socketOptions: { clientProperties: { connection_name: 'bench-1' } } })),
    );
  });

  it('maps the normalised settings onto rascal (heartbeat per connection, retry for the connection and the subscriptions)', () => {
    const config = rascalConfigOf('normalised', URLS.slice(0, 1)) as Config;
    const retry = { min: 100, max: 1000, factor: 2, strategy: 'exponential' };
    expect(config.defaults?.vhosts?.connection?.retry).toEqual(retry);
    expect(config.defaults?.subscriptions?.retry).toEqual(retry);
    expect(config.vhosts['/']!.connections).toEqual([
      { url: URLS[0], options: { heartbeat: 5 }, socketOptions: { timeout: 2000, noDelay: true } },
    ]);
  });

  it('declares and checks nothing: one placeholder queue, publications on the default exchange, a bounded close', () => {
    const config = rascalConfigOf('defaults', URLS) as Config;
    expect(Object.values(config.vhosts['/']!.queues)).toEqual([{ assert: false, check: false }]);
    expect(Object.values(config.publications).map((publication) => [publication.exchange, publication.confirm])).toEqual([
      ['', false],
      ['', true],
    ]);
    expect(Object.values(config.subscriptions).map((subscription) => subscription.closeTimeout)).toEqual([1000]);
  });

  it('reports every default it leaves to rascal as "default (…)", with the value from its source', () => {
    const settings = rascalSettingsOf('defaults');
    for (const name of ['connection.options.heartbeat', 'connection.retry', 'subscriptions.retry', 'connection.socketOptions.timeout'])
      expect(settings[name]).toMatch(/^default \(/);
    expect(settings['connection.options.heartbeat']).toBe('default (10)');
    expect(rascalSettingsOf('normalised')['connection.options.heartbeat']).toBe(5);
  });
});
