/**
 * What the foo-foo-mq tests share: an independent amqplib connection for the broker-side objects,
 * the embedded proxy with one entry in front of the broker, a fresh queue per test, and the
 * client's connections, closed after each test whatever happened. Call inside a `describe`.
 */
import { randomUUID } from 'node:crypto';
import amqp, { type Channel, type ChannelModel } from 'amqplib';
import type { ClientConnection, ClientProfile } from '../../../src/client/api';
import { fooFooMqBroker } from '../../../src/client/fooFooMq/fooFooMqApi';
import { connectClient } from '../../../src/client/registry';
import { getConfig, proxiedAmqpUrl } from '../../../src/config';
import { ToxiproxyClient } from '../../../src/faults';
import { sleep } from '../../../src/measure/clock';
import { startProxyServer, type ProxyServer } from '../../../src/proxy';
import { freePort } from '../../support/ports';

export const CLIENT = 'foo-foo-mq';
export const directUrl = getConfig().amqpUrl;

export interface FooFooMqWorld {
  readonly channel: Channel;
  readonly api: ToxiproxyClient;
  readonly proxiedUrl: string;
  /** This test's queue (declared before it, deleted after it). */
  readonly queue: string;
}

export interface FooFooMqFixture {
  /** The world of the running test (valid from the test file's own `beforeEach` on). */
  current(): FooFooMqWorld;
  /** A connection of the adapter, through the proxy unless `urls` say otherwise; closed after the test. */
  connect(profile: ClientProfile, urls?: string[], connectionName?: string): Promise<ClientConnection>;
  /** Resets the client's connection (RST as data flows towards it), then lets new connections through. */
  reset(): Promise<void>;
}

export function useFooFooMqFixture(): FooFooMqFixture {
  let admin: ChannelModel | undefined;
  let proxy: ProxyServer | undefined;
  let world: FooFooMqWorld | undefined;
  const connections: ClientConnection[] = [];
  const current = (): FooFooMqWorld => {
    if (!world) throw new Error('the foo-foo-mq fixture is used outside a test');
    return world;
  };

  beforeAll(async () => {
    admin = await amqp.connect(directUrl);
    admin.on('error', () => undefined);
    const channel = await admin.createChannel();
    channel.on('error', () => undefined);
    proxy = await startProxyServer({ host: '127.0.0.1', port: 0 });
    const listenPort = await freePort();
    const upstream = new URL(directUrl);
    const api = new ToxiproxyClient(proxy.url);
    await api.createProxy({ name: 'broker', listen: `127.0.0.1:${listenPort}`, upstream: `${upstream.hostname}:${upstream.port || 5672}` });
    const proxiedUrl = proxiedAmqpUrl({ amqpUrl: directUrl, proxyListen: { host: '127.0.0.1', port: listenPort } });
    world = { channel, api, proxiedUrl, queue: '' };
  });

  beforeEach(async () => {
    world = { ...current(), queue: `test.ffmq.${randomUUID()}` };
    await world.channel.assertQueue(world.queue, { durable: false, autoDelete: false });
  });

  afterEach(async () => {
    const { channel, api, queue } = current();
    await Promise.all(connections.splice(0).map((connection) => connection.close()));
    await channel.deleteQueue(queue).catch(() => undefined);
    await api.updateProxy('broker', { enabled: true });
    for (const toxic of await api.listToxics('broker')) await api.removeToxic('broker', toxic.name);
  });

  afterAll(async () => {
    // foo-foo-mq's ack tick is one interval for the process; the direct connection of the last test started it again.
    fooFooMqBroker().clearAckInterval();
    await proxy?.close();
    await admin?.close().catch(() => undefined);
  });

  return {
    current,
    async connect(profile, urls = [current().proxiedUrl], connectionName = `test-ffmq-${randomUUID()}`) {
      const connection = await connectClient({ name: CLIENT, profile }, { urls, connectionName, startBoundMs: 10_000 });
      connections.push(connection);
      return connection;
    },
    async reset() {
      const { api, channel, queue } = current();
      await api.addToxic('broker', { type: 'reset_peer', name: 'reset', stream: 'downstream', attributes: { timeout: 0 } });
      channel.sendToQueue(queue, Buffer.from('meets the reset'));
      await sleep(100);
      await api.removeToxic('broker', 'reset');
    },
  };
}
