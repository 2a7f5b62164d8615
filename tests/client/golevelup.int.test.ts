/**
 * What @golevelup/nestjs-rabbitmq does on its own, measured through its adapter (a Nest
 * application context per connection, the module's AmqpConnection) against the real broker and
 * the embedded proxy: the heartbeat each profile negotiates, per-consumer prefetch and acks
 * through the handler's promise, a reset and a broker's forced close (each recovered by the
 * library, consumers back), a publish queued while disconnected, a consumer the broker cancelled
 * (no signal; it stays cancelled with the connection up), and two connections of one process
 * closed one at a time (the module's registry is static).
 */
import { randomUUID } from 'node:crypto';
import amqp, { type Channel, type ChannelModel } from 'amqplib';
import { sharedBrokerActions } from '../../src/broker/actions';
import type { ClientConnection, ClientFault, ClientProfile, ClientSignal, Delivery } from '../../src/client/api';
import type { GolevelupConnection } from '../../src/client/golevelup/connection';
import { clientInfo, connectClient } from '../../src/client/registry';
import { ClientFaultError } from '../../src/client/types';
import { getConfig, proxiedAmqpUrl } from '../../src/config';
import { ToxiproxyClient } from '../../src/faults';
import { elapsedMs, nowNs, sleep } from '../../src/measure/clock';
import { startProxyServer, type ProxyServer } from '../../src/proxy';
import { freePort } from '../support/ports';
import { eventually } from './support/signals';

const directUrl = getConfig().amqpUrl;
const CLIENT = 'golevelup';

describe('@golevelup/nestjs-rabbitmq adapter (real broker, embedded proxy)', () => {
  let admin: ChannelModel;
  let channel: Channel;
  let proxy: ProxyServer;
  let api: ToxiproxyClient;
  let proxiedUrl: string;
  let queue: string;
  const connections: ClientConnection[] = [];
  const connect = async (profile: ClientProfile, urls: string[], connectionName?: string): Promise<ClientConnection> => {
    const connection = await connectClient({ name: CLIENT, profile }, { urls, connectionName, startBoundMs: 10_000 });
    connections.push(connection);
    return connection;
  };
  const faultsOf = (connection: ClientConnection): ClientFault[] => {
    const faults: ClientFault[] = [];
    connection.onFault((fault) => faults.push(fault));
    return faults;
  };

  beforeAll(async () => {
    admin = await amqp.connect(directUrl);
    admin.on('error', () => undefined);
    channel = await admin.createChannel();
    proxy = await startProxyServer({ host: '127.0.0.1', port: 0 });
    const listenPort = await freePort();
    const upstream = new URL(directUrl);
    api = new ToxiproxyClient(proxy.url);
    await api.createProxy({ name: 'broker', listen: `127.0.0.1:${listenPort}`, upstream: `${upstream.hostname}:${upstream.port || 5672}` });
    proxiedUrl = proxiedAmqpUrl({ amqpUrl: directUrl, proxyListen: { host: '127.0.0.1', port: listenPort } });
  });

  beforeEach(async () => {
    queue = `test.golevelup.${randomUUID()}`;
    await channel.assertQueue(queue, { durable: false, autoDelete: false });
  });

  afterEach(async () => {
    await Promise.all(connections.splice(0).map((connection) => connection.close()));
    await channel.deleteQueue(queue).catch(() => undefined);
    await api.updateProxy('broker', { enabled: true });
    for (const toxic of await api.listToxics('broker')) await api.removeToxic('broker', toxic.name);
  });

  afterAll(async () => {
    await proxy.close();
    await admin.close().catch(() => undefined);
  });

  it("reports each profile in the module's own option names", () => {
    const defaults = clientInfo({ name: CLIENT, profile: 'defaults' });
    expect(defaults).toMatchObject({ library: '@golevelup/nestjs-rabbitmq', multipleHosts: true, recovery: 'library' });
    expect(defaults.version).toMatch(/^9\./);
    expect(defaults.settings['connectionManagerOptions.heartbeatIntervalInSeconds']).toBe('default (5)');
    const normalised = clientInfo({ name: CLIENT, profile: 'normalised' });
    expect(normalised.settings).toMatchObject({
      'connectionManagerOptions.heartbeatIntervalInSeconds': 5,
      'connectionManagerOptions.reconnectTimeInSeconds': 0.1,
      'connectionManagerOptions.connectionOptions.timeout': 2000,
      'connectionManagerOptions.connectionOptions.noDelay': true,
    });
  });

  it.each(['defaults', 'normalised'] as const)(
    'negotiates a 5 s heartbeat with the broker (%s)',
    async (profile) => {
      const connection = (await connect(profile, [directUrl])) as GolevelupConnection;
      const negotiated = connection.amqp.managedConnection.connection?.connection as unknown as { heartbeat?: number };
      expect(negotiated.heartbeat).toBe(5);
    },
    20_000,
  );

  it("holds each consumer to its own prefetch and acks through the handler's promise", async () => {
    const connection = await connect('defaults', [directUrl]);
    const pending: Delivery[] = [];
    for (let consumer = 0; consumer < 2; consumer += 1)
      await connection.consume(queue, { ack: 'manual', prefetch: 2 }, (delivery) => pending.push(delivery));
    for (let n = 0; n < 10; n += 1) channel.sendToQueue(queue, Buffer.from(`m${n}`));
    await eventually(() => pending.length === 4, 5000, 'four deliveries');
    await sleep(300);
    expect(pending.length).toBe(4);
    let acked = 0;
    await eventually(
      () => {
        for (let next = pending.shift(); next; next = pending.shift()) {
          next.ack();
          acked += 1;
        }
        return acked === 10;
      },
      10_000,
      'every delivery',
    );
    // Acks reach the broker once each handler's promise has settled: nothing stays in the queue.
    const deadline = Date.now() + 5000;
    while ((await channel.checkQueue(queue)).messageCount > 0 && Date.now() < deadline) await sleep(50);
    expect((await channel.checkQueue(queue)).messageCount).toBe(0);
  }, 30_000);

  it.each([
    ['defaults', 4900, 7500],
    ['normalised', 90, 1500],
  ] as const)(
    'recovers from a reset after its fixed delay (%s: %i-%i ms), its consumer back',
    async (profile, lowMs, highMs) => {
      const connection = await connect(profile, [proxiedUrl]);
      const faults = faultsOf(connection);
      const received: string[] = [];
      await connection.consume(queue, { ack: 'auto' }, (delivery) => received.push(delivery.body.toString()));
      const publisher = await connection.publisher({ confirms: true });
      await api.addToxic('broker', { type: 'reset_peer', name: 'reset', stream: 'downstream', attributes: { timeout: 0 } });
      const lost = await publisher.publish('', queue, Buffer.from('meets the reset')).catch((error: unknown) => error);
      expect(lost).toBeInstanceOf(ClientFaultError);
      await api.removeToxic('broker', 'reset');
      const ensured = await connection.ensureConnected(15_000);
      expect(faults.map((fault) => fault.kind)).toEqual(['reset']);
      const delayMs = elapsedMs(faults[0]!.detectedNs, ensured.connectedNs);
      expect(delayMs).toBeGreaterThanOrEqual(lowMs);
      expect(delayMs).toBeLessThan(highMs);
      await publisher.publish('', queue, Buffer.from('after'));
      await eventually(() => received.includes('after'), 10_000, 'a delivery after recovery');
    },
    30_000,
  );

  it("reports a broker's forced close as broker_closed and queues a publish made while down", async () => {
    const connectionName = `test-golevelup-${randomUUID()}`;
    const connection = await connect('normalised', [proxiedUrl], connectionName);
    const faults = faultsOf(connection);
    const received: string[] = [];
    await connection.consume(queue, { ack: 'manual', prefetch: 10 }, (delivery) => {
      received.push(delivery.body.toString());
      delivery.ack();
    });
    const actions = sharedBrokerActions(directUrl);
    try {
      expect(await actions.closeConnections(connectionName, 'closed by the golevelup test')).toHaveLength(1);
    } finally {
      await actions.close();
    }
    await eventually(() => faults.length === 1, 10_000, 'the broker close');
    expect(faults[0]).toMatchObject({ kind: 'broker_closed' });
    await connection.ensureConnected(10_000);

    const publisher = await connection.publisher({ confirms: false });
    await api.updateProxy('broker', { enabled: false });
    await eventually(() => connection.state === 'down', 10_000, 'the second fault');
    let settled = false;
    const queued = publisher.publish('', queue, Buffer.from('queued')).finally(() => {
      settled = true;
    });
    await sleep(500);
    expect(settled).toBe(false);
    await api.updateProxy('broker', { enabled: true });
    await connection.ensureConnected(10_000);
    await queued;
    await eventually(() => received.includes('queued'), 10_000, 'the queued message');
  }, 40_000);

  it('gives no signal when the broker cancels its consumer, which stays cancelled with the connection up', async () => {
    const connection = await connect('normalised', [directUrl]);
    const signals: ClientSignal[] = [];
    connection.onSignal((signal) => signals.push(signal));
    const faults = faultsOf(connection);
    const received: string[] = [];
    await connection.consume(queue, { ack: 'auto' }, (delivery) => received.push(delivery.body.toString()));
    await channel.deleteQueue(queue);
    await sleep(200);
    await channel.assertQueue(queue, { durable: false, autoDelete: false });
    channel.sendToQueue(queue, Buffer.from('after the cancel'));
    await sleep(1500);
    expect({ received, signals: signals.length, faults: faults.length, state: connection.state }).toEqual({
      received: [],
      signals: 0,
      faults: 0,
      state: 'up',
    });
    expect((await channel.checkQueue(queue)).consumerCount).toBe(0);
  }, 20_000);

  it('closes one connection of a process without closing another', async () => {
    const first = await connect('normalised', [directUrl]);
    const second = await connect('normalised', [directUrl]);
    const received: string[] = [];
    await second.consume(queue, { ack: 'auto' }, (delivery) => received.push(delivery.body.toString()));
    const startedNs = nowNs();
    await first.close();
    expect(elapsedMs(startedNs, nowNs())).toBeLessThan(2500);
    expect(first.state).toBe('closed');
    channel.sendToQueue(queue, Buffer.from('still here'));
    await eventually(() => received.includes('still here'), 5000, 'a delivery on the other connection');
    expect(second.state).toBe('up');
  }, 20_000);

  it('closes within its bound when the peer is dead', async () => {
    const connection = await connect('defaults', [proxiedUrl]);
    await connection.consume(queue, { ack: 'manual', prefetch: 1 }, () => undefined);
    channel.sendToQueue(queue, Buffer.from('held'));
    await sleep(200);
    await api.addToxic('broker', { type: 'timeout', name: 'partition-down', stream: 'downstream', attributes: { timeout: 0 } });
    await api.addToxic('broker', { type: 'timeout', name: 'partition-up', stream: 'upstream', attributes: { timeout: 0 } });
    const startedNs = nowNs();
    await connection.close();
    expect(elapsedMs(startedNs, nowNs())).toBeLessThan(3500);
    expect(connection.state).toBe('closed');
  }, 20_000);
});
