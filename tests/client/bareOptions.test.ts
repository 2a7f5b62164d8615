/**
 * What each adapter hands its library's bare script (the harness-overhead check runs both sides
 * with the same settings): JSON, in the library's own option names, the normalised profile's
 * heartbeat and TCP_NODELAY there, and nothing of the harness's own (names, hooks).
 */
import { NORMALISED_SETTINGS } from '../../src/client/api';
import { adapterOf, allClientSpecs, availableClients } from '../../src/client/registry';

/** Where each library takes the heartbeat and TCP_NODELAY, in its own option names. */
const HEARTBEAT_AND_NODELAY: Record<string, (options: Record<string, unknown>) => [unknown, unknown]> = {
  amqplib: (options) => [options.heartbeat, options.noDelay],
  'amqplib-recovery': (options) => [options.heartbeat, options.noDelay],
  'amqp-connection-manager': (options) => [
    options.heartbeatIntervalInSeconds,
    (options.connectionOptions as Record<string, unknown> | undefined)?.noDelay,
  ],
  'rabbitmq-client': (options) => [options.heartbeat, options.noDelay],
  cloudamqp: (options) => [options.heartbeat, (options.tlsOptions as Record<string, unknown> | undefined)?.noDelay],
};

describe('the library options a configuration hands its bare script', () => {
  it('are plain JSON with nothing of the harness in them', () => {
    for (const spec of allClientSpecs()) {
      const options = adapterOf(spec).bareOptions!(spec.profile);
      expect(JSON.parse(JSON.stringify(options))).toEqual(options);
      expect(JSON.stringify(options)).not.toMatch(/connection_?name|setup|password|amqp:\/\//i);
    }
  });

  it("carry the normalised heartbeat and TCP_NODELAY in each library's own names", () => {
    for (const name of availableClients()) {
      const read = HEARTBEAT_AND_NODELAY[name];
      expect(read).toBeDefined();
      expect(read!({ ...adapterOf(name).bareOptions!('normalised') })).toEqual([NORMALISED_SETTINGS.heartbeatSeconds, true]);
    }
  });

  it("leave a library's defaults to the library where the harness does", () => {
    // rabbitmq-client, cloudamqp and amqplib's own recovery pass nothing of their own in `defaults`.
    for (const name of ['rabbitmq-client', 'cloudamqp', 'amqplib-recovery'] as const)
      expect(adapterOf(name).bareOptions!('defaults')).toEqual({});
  });
});
