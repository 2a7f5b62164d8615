/**
 * What rascal does on its own, measured through its adapter against the real broker and the
 * embedded proxy: the settings each profile gives it, a reset (reported, then rascal's
 * reconnection at once on a new socket, its subscription consuming again), a publish made while
 * the broker cannot be reached (held in rascal's paused channel pool, sent after the
 * reconnection), a queue deleted under a consumer (rascal's 'cancelled', then its re-subscription
 * failing with 404s until the queue is back, then consuming again by itself), its back-pressure
 * signal while the broker stops reading (the channel pool's 'busy', then 'ready'), and a close with
 * deliveries left unacked (bounded by the subscription's closeTimeout).
 */
import { randomUUID } from 'node:crypto';
import amqp, { type Channel, type ChannelModel } from 'amqplib';
import type { ClientConnection, ClientProfile, Delivery } from '../../src/client/api';
import { clientInfo, connectClient } from '../../src/client/registry';
import { getConfig, proxiedAmqpUrl } from '../../src/config';
import { ToxiproxyClient } from '../../src/faults';
import { elapsedMs, nowNs, sleep } from '../../src/measure/clock';
import { startProxyServer, type ProxyServer } from '../../src/proxy';
import { freePort } from '../support/ports';
import { eventually, recordOf } from './support/signals';

const directUrl = getConfig().amqpUrl;
const CLIENT = 'rascal';

describe('rascal adapter (real broker, embedded proxy)', () => {
  let admin: ChannelModel;
  let channel: Channel;
  let proxy: ProxyServer;
  let api: ToxiproxyClient;
  let proxiedUrl: string;
  let queue: string;
  const connections: ClientConnection[] = [];
  const connect = async (profile: ClientProfile, urls: string[] = [proxiedUrl]): Promise<ClientConnection> => {
    const connection = await connectClient(
      { name: CLIENT, profile },
      { urls, connectionName: `test-rascal-${randomUUID()}`, startBoundMs: 10_000 },
    );
    connections.push(connection);
    return connection;
  };

  beforeAll(async () => {
    admin = await amqp.connect(directUrl);
    admin.on('error', () => undefined);
    channel = await admin.createChannel();
    channel.on('error', () => undefined);
    proxy = await startProxyServer({ host: '127.0.0.1', port: 0 });
    const listenPort = await freePort();
    const upstream = new URL(directUrl);
    api = new ToxiproxyClient(proxy.url);
    await api.createProxy({ name: 'broker', listen: `127.0.0.1:${listenPort}`, upstream: `${upstream.hostname}:${upstream.port || 5672}` });
    proxiedUrl = proxiedAmqpUrl({ amqpUrl: directUrl, proxyListen: { host: '127.0.0.1', port: listenPort } });
  });

  beforeEach(async () => {
    queue = `test.rascal.${randomUUID()}`;
    await channel.assertQueue(queue, { durable: false, autoDelete: false });
  });

  afterEach(async () => {
    await Promise.all(connections.splice(0).map((connection) => connection.close()));
    await channel.deleteQueue(queue).catch(() => undefined);
    await api.updateProxy('broker', { enabled: true });
    for (const toxic of await api.listToxics('broker')) await api.removeToxic('broker', toxic.name);
  });

  afterAll(async () => {
    await proxy?.close();
    await admin?.close().catch(() => undefined);
  });

  it("reports each profile in rascal's own setting names, with its defaults from the source", () => {
    const defaults = clientInfo({ name: CLIENT, profile: 'defaults' });
    expect(defaults).toMatchObject({ library: 'rascal', multipleHosts: true, recovery: 'library' });
    expect(defaults.version).toMatch(/^21\./);
    expect(defaults.settings).toMatchObject({
      'connection.options.heartbeat': 'default (10)',
      'connection.socketOptions.timeout': 'default (10000)',
      publish_while_disconnected: expect.stringMatching(/^held/),
    });
    expect(defaults.settings['connection.retry']).toMatch(/^default \(\{ min: 1000, max: 60000, factor: 2/);
    expect(defaults.settings['subscriptions.retry']).toMatch(/^default \(\{ min: 1000, max: 60000/);
    const normalised = clientInfo({ name: CLIENT, profile: 'normalised' });
    expect(normalised.settings).toMatchObject({
      'connection.options.heartbeat': 5,
      'connection.socketOptions.timeout': 2000,
      'connection.socketOptions.noDelay': true,
    });
    expect(normalised.settings['connection.retry']).toMatch(/^\{ min: 100, max: 1000, factor: 2/);
  });

  it.each(['defaults', 'normalised'] as const)(
    'after a reset reconnects at once on a new socket the proxy saw reset, and its subscription consumes again (%s)',
    async (profile) => {
      const connection = await connect(profile);
      const { faults } = recordOf(connection);
      const received: string[] = [];
      await connection.consume(queue, { ack: 'auto' }, (delivery) => received.push(delivery.body.toString()));
      const firstPort = connection.localPort;
      expect(firstPort).toBeGreaterThan(0);
      const sinceNs = nowNs();
      await api.addToxic('broker', { type: 'reset_peer', name: 'reset', stream: 'downstream', attributes: { timeout: 0 } });
      // Any frame towards the client meets the reset: a message for the consumer.
      channel.sendToQueue(queue, Buffer.from('meets the reset'));
      await eventually(() => faults.length > 0, 10_000, 'the fault');
      await api.removeToxic('broker', 'reset');
      const ensured = await connection.ensureConnected(15_000);

      expect(faults.map((fault) => fault.kind)).toEqual(['reset']);
      const resets = ((await api.events('broker', sinceNs)) ?? []).filter((event) => event.kind === 'reset_sent');
      expect(resets.map((event) => event.client)).toContain(`127.0.0.1:${firstPort}`);
      // rascal's first attempt after a drop does not wait for its retry delay (lib/amqp/Vhost.js:509-515):
      // either it is the connection that came back, or it came before the toxic was removed and met
      // the reset too (then the retry delay follows, which is not what this test times).
      const immediateAttemptNs = resets.length > 1 ? BigInt(resets[1]!.at_ns) : ensured.connectedNs;
      expect(elapsedMs(faults[0]!.detectedNs, immediateAttemptNs)).toBeLessThan(1500);
      expect(connection.localPort).not.toBe(firstPort);
      channel.sendToQueue(queue, Buffer.from('after'));
      await eventually(() => received.includes('after'), 10_000, 'a delivery on the new subscription');
    },
    40_000,
  );

  it('holds a publish made while the broker cannot be reached and sends it once rascal is back', async () => {
    const connection = await connect('normalised');
    const { faults } = recordOf(connection);
    const received: string[] = [];
    await connection.consume(queue, { ack: 'auto' }, (delivery) => received.push(delivery.body.toString()));
    const publisher = await connection.publisher({ confirms: true });
    await publisher.publish('', queue, Buffer.from('before'));

    // Disabling the proxy closes its connections and refuses new ones: rascal keeps retrying.
    await api.updateProxy('broker', { enabled: false });
    await eventually(() => connection.state === 'down', 10_000, 'the fault');
    let settled = false;
    const held = publisher.publish('', queue, Buffer.from('held')).finally(() => {
      settled = true;
    });
    await sleep(1000);
    expect(settled).toBe(false);

    await api.updateProxy('broker', { enabled: true });
    const ensured = await connection.ensureConnected(15_000);
    await held;
    await eventually(() => received.includes('held'), 10_000, 'the held message');
    expect(ensured.attempts).toBeGreaterThan(1);
    expect(faults).toHaveLength(1);
  }, 40_000);

  it("says its writes are held (rascal's pool 'busy') while the broker stops reading, until its 'ready' once the broker reads again", async () => {
    const connection = await connect('normalised');
    const publisher = await connection.publisher({ confirms: true });
    await publisher.publish('', queue, Buffer.from('before'));
    expect(publisher.writesHeld!()).toBe(false);

    await api.addToxic('broker', { type: 'bandwidth', name: 'stop-reading', stream: 'upstream', attributes: { rate: 0 } });
    // Each confirmed publish holds one of the confirm pool's 5 channels until its confirm: the others wait in the pool's queue.
    const held = Array.from({ length: 20 }, (_, index) => publisher.publish('', queue, Buffer.from(`held ${index}`)));
    await eventually(() => publisher.writesHeld!(), 5000, "rascal's 'busy'");
    await sleep(500);
    expect(publisher.writesHeld!()).toBe(true);

    await api.removeToxic('broker', 'stop-reading');
    await Promise.all(held);
    await eventually(() => !publisher.writesHeld!(), 5000, "rascal's 'ready'");
  }, 30_000);

  it("tells a deleted queue's cancel, then the 404s of its re-subscription, and consumes again once the queue is back", async () => {
    const connection = await connect('normalised', [directUrl]);
    const { faults, signals } = recordOf(connection);
    const received: string[] = [];
    await connection.consume(queue, { ack: 'auto' }, (delivery) => received.push(delivery.body.toString()));
    await channel.deleteQueue(queue);
    await eventually(() => signals.some((signal) => signal.kind === 'channel_closed'), 10_000, 'a 404 of the re-subscription');
    expect(signals[0]!.kind).toBe('consumer_cancelled');
    expect(signals.find((signal) => signal.kind === 'channel_closed')!.message).toMatch(/404/);

    await channel.assertQueue(queue, { durable: false, autoDelete: false });
    // rascal's subscription retry (100 ms doubling to 1 s here) finds the queue again by itself.
    await eventually(
      () => channel.sendToQueue(queue, Buffer.from('back')) && received.includes('back'),
      10_000,
      'a delivery after the queue came back',
    );
    expect(faults).toEqual([]);
    expect(connection.state).toBe('up');
  }, 30_000);

  it('closes within its bound with deliveries left unacked, and leaves nothing on the broker', async () => {
    const connection = await connect('defaults', [directUrl]);
    const deliveries: Delivery[] = [];
    await connection.consume(queue, { ack: 'manual', prefetch: 5 }, (delivery) => deliveries.push(delivery));
    for (let i = 0; i < 5; i += 1) channel.sendToQueue(queue, Buffer.from(`unacked ${i}`));
    await eventually(() => deliveries.length === 5, 10_000, 'the deliveries');
    const startedNs = nowNs();
    await connection.close();
    expect(elapsedMs(startedNs, nowNs())).toBeLessThan(4000);
    // The broker counts the closed channel's deliveries back as ready a moment after the close.
    let state = await channel.checkQueue(queue);
    for (let waited = 0; waited < 5000 && (state.consumerCount > 0 || state.messageCount < 5); waited += 100) {
      await sleep(100);
      state = await channel.checkQueue(queue);
    }
    expect(state).toMatchObject({ consumerCount: 0, messageCount: 5 });
  }, 30_000);
});
