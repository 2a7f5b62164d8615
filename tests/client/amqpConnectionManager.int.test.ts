/**
 * What amqp-connection-manager does on its own, measured through its adapter against the real
 * broker and the embedded proxy: the settings each profile really gives it (the negotiated
 * heartbeat, the fixed reconnect delay timed on a recovery), what it reports for a FIN and for a
 * broker's forced close, publishes queued while disconnected, a confirmed publish lost in flight,
 * stale acks after a reconnection, failover across a URL list, and a bounded close.
 */
import { randomUUID } from 'node:crypto';
import amqp, { type Channel, type ChannelModel } from 'amqplib';
import { sharedBrokerActions } from '../../src/broker/actions';
import type { ClientConnection, ClientFault, ClientProfile, Delivery } from '../../src/client/api';
import type { AcmConnection } from '../../src/client/amqpConnectionManager/connection';
import { clientInfo, connectClient } from '../../src/client/registry';
import { ClientFaultError } from '../../src/client/types';
import { getConfig, proxiedAmqpUrl } from '../../src/config';
import { ToxiproxyClient } from '../../src/faults';
import { elapsedMs, nowNs, sleep } from '../../src/measure/clock';
import { startProxyServer, type ProxyServer } from '../../src/proxy';
import { freePort } from '../support/ports';
import { eventually } from './support/signals';

const directUrl = getConfig().amqpUrl;
const CLIENT = 'amqp-connection-manager';

/** Waits (bounded) until `predicate` holds. */

/** Has the broker close the connection named `connectionName` (AMQP connection.close, 320 CONNECTION_FORCED). */
async function closeFromBroker(connectionName: string): Promise<void> {
  const actions = sharedBrokerActions(directUrl);
  try {
    const closed = await actions.closeConnections(connectionName, 'closed by the amqp-connection-manager test');
    if (closed.length !== 1) throw new Error(`the broker closed ${closed.length} connections named ${connectionName}*, not 1`);
  } finally {
    await actions.close();
  }
}

describe('amqp-connection-manager adapter (real broker, embedded proxy)', () => {
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
  /** Collects the faults of `connection`. */
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
    queue = `test.acm.${randomUUID()}`;
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

  it("reports each profile in the library's own option names, with its defaults from the source", () => {
    const defaults = clientInfo({ name: CLIENT, profile: 'defaults' });
    expect(defaults).toMatchObject({ library: 'amqp-connection-manager', multipleHosts: true, recovery: 'library' });
    expect(defaults.version).toMatch(/^5\./);
    expect(defaults.settings).toMatchObject({
      heartbeatIntervalInSeconds: 'default (5)',
      'connectionOptions.timeout': expect.stringMatching(/^default \(none/),
      publish_while_disconnected: expect.stringMatching(/^queued/),
    });
    expect(defaults.settings.reconnectTimeInSeconds).toMatch(/^default \(heartbeatIntervalInSeconds, 5;/);
    const normalised = clientInfo({ name: CLIENT, profile: 'normalised' });
    expect(normalised.settings).toMatchObject({
      heartbeatIntervalInSeconds: 5,
      reconnectTimeInSeconds: 0.1,
      'connectionOptions.timeout': 2000,
      'connectionOptions.noDelay': true,
    });
  });

  it.each(['defaults', 'normalised'] as const)('negotiates a 5 s heartbeat with the broker (%s)', async (profile) => {
    const connection = (await connect(profile, [directUrl])) as AcmConnection;
    const negotiated = connection.manager.connection?.connection as unknown as { heartbeat?: number };
    expect(negotiated.heartbeat).toBe(5);
  });

  it.each([
    ['defaults', 4900, 7000],
    ['normalised', 90, 1500],
  ] as const)(
    'reconnects after a reset once its fixed delay has passed (%s: %i-%i ms), on a new socket the proxy saw reset',
    async (profile, lowMs, highMs) => {
      const connection = await connect(profile, [proxiedUrl]);
      const faults = faultsOf(connection);
      const firstPort = connection.localPort;
      const publisher = await connection.publisher({ confirms: true });
      const sinceNs = nowNs();
      await api.addToxic('broker', { type: 'reset_peer', name: 'reset', stream: 'downstream', attributes: { timeout: 0 } });
      // The broker's confirm is the data towards the client that meets the reset.
      const lost = await publisher.publish('', queue, Buffer.from('meets the reset')).catch((error: unknown) => error);
      expect(lost).toBeInstanceOf(ClientFaultError);
      expect((lost as ClientFaultError).kind).toBe('reset');
      await api.removeToxic('broker', 'reset');
      const ensured = await connection.ensureConnected(15_000);

      expect(faults.map((fault) => fault.kind)).toEqual(['reset']);
      const delayMs = elapsedMs(faults[0]!.detectedNs, ensured.connectedNs);
      expect(delayMs).toBeGreaterThanOrEqual(lowMs);
      expect(delayMs).toBeLessThan(highMs);
      expect(ensured.attempts).toBe(1);
      const resets = ((await api.events('broker', sinceNs)) ?? []).filter((event) => event.kind === 'reset_sent');
      expect(resets.map((event) => event.client)).toEqual([`127.0.0.1:${firstPort}`]);
      expect(connection.localPort).not.toBe(firstPort);
    },
    30_000,
  );

  it('reports a FIN as closed and a broker forced close as broker_closed, recovering after each', async () => {
    const connectionName = `test-acm-${randomUUID()}`;
    const connection = await connect('normalised', [proxiedUrl], connectionName);
    const faults = faultsOf(connection);
    const received: string[] = [];
    await connection.consume(queue, { ack: 'auto' }, (delivery) => received.push(delivery.body.toString()));

    await api.addToxic('broker', { type: 'limit_data', name: 'fin', stream: 'downstream', attributes: { bytes: 0 } });
    channel.sendToQueue(queue, Buffer.from('meets the FIN'));
    await eventually(() => faults.length === 1, 10_000, 'the FIN');
    await api.removeToxic('broker', 'fin');
    await connection.ensureConnected(10_000);

    await closeFromBroker(connectionName);
    await eventually(() => faults.length === 2, 10_000, 'the broker close');
    await connection.ensureConnected(10_000);
    expect(faults.map((fault) => fault.kind)).toEqual(['closed', 'broker_closed']);
    expect(faults[1]!.message).toMatch(/320 \(CONNECTION-FORCED\)/);

    channel.sendToQueue(queue, Buffer.from('after both'));
    await eventually(() => received.includes('after both'), 10_000, 'a delivery after recovery');
  }, 60_000);

  it('queues a publish made while disconnected and sends it once the library is back', async () => {
    const connection = await connect('normalised', [proxiedUrl]);
    const faults = faultsOf(connection);
    const received: string[] = [];
    await connection.consume(queue, { ack: 'auto' }, (delivery) => received.push(delivery.body.toString()));
    const publisher = await connection.publisher({ confirms: true });

    // Disabling the proxy closes its connections and refuses new ones: the library keeps retrying.
    await api.updateProxy('broker', { enabled: false });
    await eventually(() => connection.state === 'down', 10_000, 'the fault');
    let settled = false;
    const queued = publisher.publish('', queue, Buffer.from('queued')).finally(() => {
      settled = true;
    });
    await sleep(500);
    expect(settled).toBe(false);

    await api.updateProxy('broker', { enabled: true });
    const ensured = await connection.ensureConnected(10_000);
    await queued;
    await eventually(() => received.includes('queued'), 10_000, 'the queued message');
    expect(ensured.attempts).toBeGreaterThan(1);
    expect(faults.map((fault) => fault.kind)).toEqual(['closed']);
  }, 30_000);

  it('acks nothing on the new channel for a delivery of the old one (delivery tags restart at 1)', async () => {
    const connection = await connect('normalised', [proxiedUrl]);
    const deliveries: Delivery[] = [];
    const consumer = await connection.consume(queue, { ack: 'manual', prefetch: 1 }, (delivery) => deliveries.push(delivery));
    const publisher = await connection.publisher({ confirms: true });
    await publisher.publish('', queue, Buffer.from('only'));
    await eventually(() => deliveries.length === 1, 5000, 'the first delivery');

    await api.addToxic('broker', { type: 'reset_peer', name: 'reset', stream: 'downstream', attributes: { timeout: 0 } });
    // The consumer's window is full: the publisher's confirm is what meets the reset.
    await publisher.publish('', queue, Buffer.from('meets the reset')).catch(() => undefined);
    expect(connection.state).toBe('down');
    await api.removeToxic('broker', 'reset');
    await connection.ensureConnected(10_000);
    await eventually(() => deliveries.length === 2, 5000, 'the redelivery');
    expect(deliveries[1]!.body.toString()).toBe('only');
    expect(deliveries[1]!.redelivered).toBe(true);

    // Tag 1 of the old channel is tag 1 of the redelivered message on the new one: acking it would lose that message.
    deliveries[0]!.ack();
    await consumer.cancel();
    const deadline = Date.now() + 5000;
    let ready = (await channel.checkQueue(queue)).messageCount;
    while (ready < 2 && Date.now() < deadline) {
      await sleep(50);
      ready = (await channel.checkQueue(queue)).messageCount;
    }
    expect(ready).toBe(2);
  }, 30_000);

  it('fails at once, without the password, when the broker refuses the login (the library would retry forever)', async () => {
    const wrongUrl = new URL(directUrl);
    wrongUrl.password = 'not-the-password';
    const startedNs = nowNs();
    const failure = await connect('defaults', [wrongUrl.toString()]).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Error);
    expect((failure as Error).message).toMatch(/ACCESS.REFUSED.*check the user name and password/);
    expect((failure as Error).message).not.toContain('not-the-password');
    expect(elapsedMs(startedNs, nowNs())).toBeLessThan(4000);
  }, 30_000);

  it('fails over across its URL list, from the first connection on', async () => {
    const deadUrl = proxiedAmqpUrl({ amqpUrl: directUrl, proxyListen: { host: '127.0.0.1', port: await freePort() } });
    const connection = await connect('normalised', [deadUrl, proxiedUrl]);
    expect(connection.state).toBe('up');
    const received: string[] = [];
    await connection.consume(queue, { ack: 'auto' }, (delivery) => received.push(delivery.body.toString()));
    connection.destroy('test kill');
    // Round robin: the next attempt goes to the dead URL (refused), the one after to the live one.
    const ensured = await connection.ensureConnected(10_000);
    expect(ensured.attempts).toBe(2);
    channel.sendToQueue(queue, Buffer.from('after failover'));
    await eventually(() => received.includes('after failover'), 10_000, 'a delivery after failover');
  }, 30_000);

  it('closes within its bound when the peer is dead, and while the library is retrying', async () => {
    const partitioned = await connect('defaults', [proxiedUrl]);
    await partitioned.publisher({ confirms: true });
    await api.addToxic('broker', { type: 'timeout', name: 'partition-down', stream: 'downstream', attributes: { timeout: 0 } });
    await api.addToxic('broker', { type: 'timeout', name: 'partition-up', stream: 'upstream', attributes: { timeout: 0 } });
    let startedNs = nowNs();
    await partitioned.close();
    expect(elapsedMs(startedNs, nowNs())).toBeLessThan(2500);
    expect(partitioned.state).toBe('closed');
    for (const toxic of await api.listToxics('broker')) await api.removeToxic('broker', toxic.name);

    const retrying = await connect('normalised', [proxiedUrl]);
    await api.updateProxy('broker', { enabled: false });
    await eventually(() => retrying.state === 'down', 10_000, 'the fault');
    await sleep(300);
    startedNs = nowNs();
    await retrying.close();
    await retrying.close();
    expect(elapsedMs(startedNs, nowNs())).toBeLessThan(1500);
    expect(retrying.state).toBe('closed');
  }, 30_000);
});
