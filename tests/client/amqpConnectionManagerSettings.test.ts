import { acmSettingsOf, managerOptionsOf } from '../../src/client/amqpConnectionManager/settings';

describe('amqp-connection-manager options per profile', () => {
  it('passes nothing but the connection name in the defaults profile (the library decides the rest)', () => {
    expect(managerOptionsOf('defaults', 'bench-1')).toEqual({ connectionOptions: { clientProperties: { connection_name: 'bench-1' } } });
    expect(managerOptionsOf('defaults', undefined)).toEqual({ connectionOptions: {} });
  });

  it('maps the normalised settings onto the library options (reconnect delay in seconds)', () => {
    expect(managerOptionsOf('normalised', undefined)).toEqual({
      heartbeatIntervalInSeconds: 5,
      reconnectTimeInSeconds: 0.1,
      connectionOptions: { timeout: 2000, noDelay: true },
    });
  });

  it('reports every default it leaves to the library as "default (…)", with the value from its source', () => {
    const settings = acmSettingsOf('defaults');
    for (const name of [
      'heartbeatIntervalInSeconds',
      'reconnectTimeInSeconds',
      'connectionOptions.timeout',
      'connectionOptions.noDelay',
      'publishTimeout',
    ])
      expect(settings[name]).toMatch(/^default \(/);
    expect(settings.heartbeatIntervalInSeconds).toBe('default (5)');
  });
});
