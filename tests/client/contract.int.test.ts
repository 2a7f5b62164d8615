/**
 * The contract every client adapter keeps, for every registered client in both profiles,
 * against the real broker and the embedded proxy over real sockets: connect, consume (auto and
 * manual ack with prefetch), publish plain and with confirms, several publishers and consumers on
 * one connection, a network fault reported as a typed fault, recovery (publishers and consumers
 * work again), a close that leaves nothing behind, and a word for every typed signal.
 */
import { randomUUID } from 'node:crypto';
import amqp, { type Channel, type ChannelModel } from 'amqplib';
import { SIGNAL_KINDS, type ClientConnection, type ClientFault, type ClientSpec, type Delivery } from '../../src/client/api';
import { FAULT_KINDS } from '../../src/client/faults';
import { allClientSpecs, clientInfo, connectClient } from '../../src/client/registry';
import { getConfig, proxiedAmqpUrl } from '../../src/config';
import { listBrokerConnections } from '../../src/faults/brokerConnections';
import { nowNs, sleep } from '../../src/measure/clock';
import { ToxiproxyClient } from '../../src/faults';
import { startProxyServer, type ProxyServer } from '../../src/proxy';
import { freePort } from '../support/ports';

const directUrl = getConfig().amqpUrl;
const specs = allClientSpecs().map((spec): [string, ClientSpec] => [`${spec.name} (${spec.profile})`, spec]);

/** Waits (bounded) until `predicate` holds. */
async function eventually(predicate: () => boolean, boundMs: number, what: string): Promise<void> {
  const deadline = Date.now() + boundMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

describe.each(specs)('client %s (real broker, embedded proxy)', (_label, spec) => {
  let admin: ChannelModel;
  let channel: Channel;
  let proxy: ProxyServer;
  let api: ToxiproxyClient;
  let proxiedUrl: string;
  let queue: string;
  const connections: ClientConnection[] = [];
  const connect = async (url: string, connectionName?: string): Promise<ClientConnection> => {
    const connection = await connectClient(spec, { urls: [url], connectionName, startBoundMs: 10_000 });
    connections.push(connection);
    return connection;
  };

  beforeAll(async () => {
    admin = await amqp.connect(directUrl);
    admin.on('error', () => undefined);
    channel = await admin.createChannel();
    proxy = await startProxyServer({ host: '127.0.0.1', port: 0 });
    const listenPort = await freePort();
    const upstream = new URL(directUrl);
    api = new ToxiproxyClient(proxy.url);
    await api.createProxy({
      name: 'broker',
      listen: `127.0.0.1:${listenPort}`,
      upstream: `${upstream.hostname}:${upstream.port || 5672}`,
      enabled: true,
    });
    proxiedUrl = proxiedAmqpUrl({ amqpUrl: directUrl, proxyListen: { host: '127.0.0.1', port: listenPort } });
  });

  beforeEach(async () => {
    queue = `test.contract.${randomUUID()}`;
    await channel.assertQueue(queue, { durable: false, autoDelete: false });
  });

  afterEach(async () => {
    await Promise.all(connections.splice(0).map((connection) => connection.close()));
    await channel.deleteQueue(queue).catch(() => undefined);
    for (const toxic of await api.listToxics('broker')) await api.removeToxic('broker', toxic.name);
  });

  afterAll(async () => {
    await proxy.close();
    await admin.close().catch(() => undefined);
  });

  it('says what it is: library, version, settings', () => {
    const info = clientInfo(spec);
    expect(info.name).toBe(spec.name);
    expect(info.profile).toBe(spec.profile);
    expect(info.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(Object.keys(info.settings).length).toBeGreaterThan(0);
  });

  it('says, for every typed signal, how its library gives it (or `none: ...`)', () => {
    const { signals } = clientInfo(spec);
    expect(Object.keys(signals).sort()).toEqual([...SIGNAL_KINDS].sort());
    for (const kind of SIGNAL_KINDS) expect(signals[kind].trim()).not.toBe('');
  });

  it('publishes plain and with confirms, and consumes with automatic ack', async () => {
    const connection = await connect(directUrl);
    expect(connection.info.signals).toEqual(clientInfo(spec).signals);
    const received: string[] = [];
    await connection.consume(queue, { ack: 'auto' }, (delivery) => received.push(delivery.body.toString()));
    const plain = await connection.publisher({ confirms: false });
    const confirmed = await connection.publisher({ confirms: true });
    await plain.publish('', queue, Buffer.from('plain'));
    await plain.flush(5000);
    await confirmed.publish('', queue, Buffer.from('confirmed'), { persistent: true });
    await eventually(() => received.length === 2, 5000, 'two deliveries');
    expect(received.sort()).toEqual(['confirmed', 'plain']);
  }, 30_000);

  it('consumes with manual ack within the prefetch window, on several consumers', async () => {
    const connection = await connect(directUrl);
    const pending: Delivery[] = [];
    for (let consumer = 0; consumer < 2; consumer += 1)
      await connection.consume(queue, { ack: 'manual', prefetch: 2 }, (delivery) => pending.push(delivery));
    const publisher = await connection.publisher({ confirms: true });
    await Promise.all(Array.from({ length: 10 }, (_, n) => publisher.publish('', queue, Buffer.from(`m${n}`))));
    // Two consumers, two unacked each: four, then nothing more until acks.
    await eventually(() => pending.length === 4, 5000, 'four deliveries');
    await sleep(200);
    expect(pending.length).toBe(4);
    let acked = 0;
    while (acked < 10) {
      const next = pending.shift();
      if (next) {
        next.ack();
        acked += 1;
      } else await sleep(5);
    }
    expect((await channel.checkQueue(queue)).messageCount).toBe(0);
  }, 30_000);

  // A consumer that (re)starts on a backlog gets a prefetch window of deliveries at once, in the
  // same socket read as its consume-ok: acking them must work too, or it stalls with its
  // connection up (what a failover does to every consumer that moves to a busy node).
  it('acks the deliveries that arrive with its consume-ok, and drains a backlog larger than its prefetch', async () => {
    // Confirmed: the 200 are in the queue before anyone consumes.
    const backlog = await admin.createConfirmChannel();
    for (let n = 0; n < 200; n += 1) backlog.sendToQueue(queue, Buffer.from(`backlog-${n}`));
    await backlog.waitForConfirms();
    await backlog.close();
    const connection = await connect(directUrl);
    let received = 0;
    await connection.consume(queue, { ack: 'manual', prefetch: 20 }, (delivery) => {
      received += 1;
      delivery.ack();
    });
    await eventually(() => received >= 200, 10_000, '200 deliveries').catch(() => undefined);
    expect(received).toBe(200);
  }, 30_000);

  it('reports a reset as a typed fault, timed when it happened, and recovers publishers and consumers', async () => {
    const connectionName = `test-contract-${randomUUID()}`;
    const connection = await connect(proxiedUrl, connectionName);
    const faults: ClientFault[] = [];
    connection.onFault((fault) => faults.push(fault));
    const received: string[] = [];
    await connection.consume(queue, { ack: 'auto' }, (delivery) => received.push(delivery.body.toString()));
    const publisher = await connection.publisher({ confirms: true });
    await publisher.publish('', queue, Buffer.from('before'));
    await eventually(() => received.includes('before'), 5000, 'the first delivery');

    const injectedNs = nowNs();
    await api.addToxic('broker', { type: 'reset_peer', name: 'reset', stream: 'downstream', toxicity: 1, attributes: { timeout: 0 } });
    // Data towards the client triggers the reset.
    channel.sendToQueue(queue, Buffer.from('trigger'));
    await eventually(() => faults.length > 0, 10_000, 'a fault');
    expect(FAULT_KINDS).toContain(faults[0]!.kind);
    expect(faults[0]!.kind).toBe('reset');
    expect(faults[0]!.detectedNs).toBeGreaterThanOrEqual(injectedNs);
    expect(connection.state).toBe('down');

    await api.removeToxic('broker', 'reset');
    const ensured = await connection.ensureConnected(30_000);
    expect(ensured.attempts).toBeGreaterThanOrEqual(1);
    expect(connection.state).toBe('up');
    await publisher.publish('', queue, Buffer.from('after'));
    await eventually(() => received.includes('after'), 10_000, 'a delivery after recovery');
    expect(faults).toHaveLength(1);
  }, 60_000);

  it('closes politely, twice, leaving no connection on the broker', async () => {
    const connectionName = `test-contract-close-${randomUUID()}`;
    const connection = await connect(directUrl, connectionName);
    await connection.publisher({ confirms: false });
    await connection.close();
    await connection.close();
    expect(connection.state).toBe('closed');
    const deadline = Date.now() + 10_000;
    let names = (await listBrokerConnections(directUrl)).names;
    while (names.includes(connectionName) && Date.now() < deadline) {
      await sleep(250);
      names = (await listBrokerConnections(directUrl)).names;
    }
    expect(names).not.toContain(connectionName);
  }, 30_000);
});
