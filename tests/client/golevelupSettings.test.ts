import { connectionManagerOptionsOf, golevelupSettingsOf } from '../../src/client/golevelup/settings';

describe('@golevelup/nestjs-rabbitmq options per profile', () => {
  it('gives amqp-connection-manager nothing but the connection name in the defaults profile', () => {
    expect(connectionManagerOptionsOf('defaults', 'bench-1')).toEqual({
      connectionOptions: { clientProperties: { connection_name: 'bench-1' } },
    });
    expect(connectionManagerOptionsOf('defaults', undefined)).toEqual({ connectionOptions: {} });
  });

  it('maps the normalised settings onto connectionManagerOptions (reconnect delay in seconds, no retry cap)', () => {
    expect(connectionManagerOptionsOf('normalised', undefined)).toEqual({
      heartbeatIntervalInSeconds: 5,
      reconnectTimeInSeconds: 0.1,
      connectionOptions: { timeout: 2000, noDelay: true },
    });
    expect(golevelupSettingsOf('normalised').max_retry_delay).toMatch(/^none/);
  });

  it('reports every default it leaves to the library as "default (…)", with the value from its source', () => {
    const settings = golevelupSettingsOf('defaults');
    for (const name of [
      'connectionManagerOptions.heartbeatIntervalInSeconds',
      'connectionManagerOptions.reconnectTimeInSeconds',
      'connectionManagerOptions.connectionOptions.timeout',
      'connectionManagerOptions.connectionOptions.noDelay',
      'prefetchCount',
      'enableDirectReplyTo',
    ])
      expect([name, settings[name]]).toEqual([name, expect.stringMatching(/^default \(/)]);
    expect(settings.prefetchCount).toMatch(/^default \(10,/);
  });
});
