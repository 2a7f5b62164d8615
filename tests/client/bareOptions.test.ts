/**
 * What each adapter hands its library's bare script (the harness-overhead check runs both sides
 * with the same settings): JSON, in the library's own option names, the normalised profile's
 * heartbeat and TCP_NODELAY there, and nothing of the harness's own (names, hooks).
 */
import { NORMALISED_SETTINGS } from '../../src/client/api';
import { adapterOf, allClientSpecs, availableClients } from '../../src/client/registry';

/** A client in another language (a program of adapters/<language>/). */
const isProgramClient = (name: string): boolean => 'command' in adapterOf({ name });

/** Every value under a key matching `key`, at any depth of a library's options. */
function valuesUnder(options: unknown, key: RegExp): unknown[] {
  if (typeof options !== 'object' || options === null) return [];
  return Object.entries(options).flatMap(([name, value]) => [...(key.test(name) ? [value] : []), ...valuesUnder(value, key)]);
}

describe('the library options a configuration hands its bare script', () => {
  it('are plain JSON with nothing of the harness in them', () => {
    for (const spec of allClientSpecs()) {
      const options = adapterOf(spec).bareOptions!(spec.profile);
      expect(JSON.parse(JSON.stringify(options))).toEqual(options);
      expect(JSON.stringify(options)).not.toMatch(/connection_?name|setup|password|amqp:\/\//i);
    }
  });

  it("carry the normalised heartbeat and TCP_NODELAY in each library's own names", () => {
    // Every library names them heartbeat… and noDelay (amqp-connection-manager under connectionOptions,
    // @cloudamqp/amqp-client under tlsOptions). A client program's bare script takes the profile and
    // applies its program's own table of settings (adapters/<language>/).
    // foo-foo-mq has no noDelay option: it sets TCP_NODELAY on every connection itself (src/amqp/connection.js:123).
    for (const name of availableClients().filter((each) => !isProgramClient(each))) {
      const options = adapterOf(name).bareOptions!('normalised');
      expect([name, valuesUnder(options, /heartbeat/i)]).toEqual([name, [NORMALISED_SETTINGS.heartbeatSeconds]]);
      expect([name, valuesUnder(options, /^noDelay$/)]).toEqual([name, name === 'foo-foo-mq' ? [] : [true]]);
    }
  });

  it('give a client program its profile, which its bare script reads in the same table as the program', () => {
    for (const spec of allClientSpecs().filter((each) => isProgramClient(each.name)))
      expect(adapterOf(spec).bareOptions!(spec.profile)).toEqual({ profile: spec.profile });
  });

  it("leave a library's defaults to the library where the harness does", () => {
    // rabbitmq-client, cloudamqp and amqplib's own recovery pass nothing of their own in `defaults`.
    for (const name of ['rabbitmq-client', 'cloudamqp', 'amqplib-recovery'] as const)
      expect(adapterOf(name).bareOptions!('defaults')).toEqual({});
  });
});
