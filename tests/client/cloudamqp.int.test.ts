/**
 * What the contract does not check of the `cloudamqp` adapter (@cloudamqp/amqp-client's
 * AMQPSession), against the real broker and the embedded proxy: the session's first reconnect
 * delay (the other settings: cloudamqpSettings.int.test.ts), how it words a FIN, a broker close and a partition, that nothing is queued while it
 * is down, unacked deliveries over a reconnection, and a close in the middle of a reconnect.
 */
import { randomUUID } from 'node:crypto';
import { execFile } from 'node:child_process';
import net, { type AddressInfo, type Socket } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import amqp, { type Channel, type ChannelModel } from 'amqplib';
import type { ClientConnection, ClientFault, ClientProfile, Delivery } from '../../src/client/api';
import { AMQPClient, AMQPSession } from '../../src/client/cloudamqp/amqpClient';
import { connectClient } from '../../src/client/registry';
import { ClientFaultError } from '../../src/client/types';
import { getConfig, proxiedAmqpUrl } from '../../src/config';
import { ToxiproxyClient } from '../../src/faults';
import { listBrokerConnections } from '../../src/faults/brokerConnections';
import { elapsedMs, nowNs, sleep } from '../../src/measure/clock';
import { startProxyServer, type ProxyServer } from '../../src/proxy';
import { freePort } from '../support/ports';
import { closeFromBroker, findBrokerConnection } from './support/brokerAdmin';
import { eventually } from './support/signals';

const directUrl = getConfig().amqpUrl;
const run = promisify(execFile);

describe('cloudamqp adapter: library behaviour (real broker, embedded proxy)', () => {
  let admin: ChannelModel;
  let channel: Channel;
  let proxy: ProxyServer;
  let api: ToxiproxyClient;
  let proxiedUrl: string;
  let queue: string;
  const connections: ClientConnection[] = [];
  const connect = async (profile: ClientProfile, url: string, connectionName?: string): Promise<ClientConnection> => {
    const connection = await connectClient({ name: 'cloudamqp', profile }, { urls: [url], connectionName, startBoundMs: 10_000 });
    connections.push(connection);
    return connection;
  };
  /** A connection consuming `queue` (auto ack) into `received`, with its faults in `faults`. */
  const consuming = async (profile: ClientProfile, url: string, connectionName?: string) => {
    const connection = await connect(profile, url, connectionName);
    const faults: ClientFault[] = [];
    connection.onFault((fault) => faults.push(fault));
    const received: string[] = [];
    await connection.consume(queue, { ack: 'auto' }, (delivery) => received.push(delivery.body.toString()));
    return { connection, faults, received };
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
    queue = `test.cloudamqp.${randomUUID()}`;
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

  it.each([
    ['defaults', 1000, 4000],
    // Bounds: the delay is a timer (never early); above is generous for a loaded machine, below the other profile's delay.
    ['normalised', 100, 1000],
  ] as const)(
    'reconnects after the session reconnectInterval (%s: %i ms)',
    async (profile, firstRetryMs, boundMs) => {
      const { connection, faults, received } = await consuming(profile, directUrl);
      const firstPort = connection.localPort;
      expect(firstPort).toBeGreaterThan(0);
      connection.destroy('test: time the first reconnect');
      const ensured = await connection.ensureConnected(10_000);
      const recoveryMs = elapsedMs(faults[0]!.detectedNs, ensured.connectedNs);
      expect(recoveryMs).toBeGreaterThanOrEqual(firstRetryMs);
      expect(recoveryMs).toBeLessThan(boundMs);
      expect(ensured.attempts).toBe(1);
      expect(connection.localPort).not.toBe(firstPort);
      channel.sendToQueue(queue, Buffer.from('after'));
      await eventually(() => received.includes('after'), 5000, 'a delivery to the re-consumed subscription');
    },
    30_000,
  );

  it('reports a FIN as `closed` (the library says "Socket closed") and recovers', async () => {
    const { connection, faults, received } = await consuming('normalised', proxiedUrl);
    // The proxy lets nothing more through towards the client and ends that side (FIN) on the next data.
    await api.addToxic('broker', { type: 'limit_data', name: 'fin', stream: 'downstream', toxicity: 1, attributes: { bytes: 0 } });
    channel.sendToQueue(queue, Buffer.from('trigger'));
    await eventually(() => faults.length > 0, 10_000, 'a fault');
    expect(faults[0]).toMatchObject({ kind: 'closed', message: expect.stringMatching(/Socket closed/) as unknown });
    await api.removeToxic('broker', 'fin');
    await connection.ensureConnected(20_000);
    channel.sendToQueue(queue, Buffer.from('after'));
    await eventually(() => received.includes('after'), 10_000, 'a delivery after recovery');
    expect(faults).toHaveLength(1);
  }, 60_000);

  it('reports a broker close as `broker_closed` (320 CONNECTION_FORCED) and recovers', async () => {
    const connectionName = `test-cloudamqp-forced-${randomUUID()}`;
    const { connection, faults, received } = await consuming('normalised', directUrl, connectionName);
    await closeFromBroker(directUrl, await findBrokerConnection(directUrl, connectionName), 'test: an operator closes it');
    await eventually(() => faults.length > 0, 20_000, 'a fault');
    expect(faults[0]).toMatchObject({ kind: 'broker_closed', message: expect.stringMatching(/CONNECTION_FORCED.*\(320\)/) as unknown });
    await connection.ensureConnected(20_000);
    channel.sendToQueue(queue, Buffer.from('after'));
    await eventually(() => received.includes('after'), 10_000, 'a delivery after recovery');
    expect(faults).toHaveLength(1);
  }, 60_000);

  it('notices a partition only through its heartbeat (normalised: 5 s of silence), then recovers', async () => {
    const { connection, faults, received } = await consuming('normalised', proxiedUrl);
    const partitionedNs = nowNs();
    for (const stream of ['downstream', 'upstream'] as const)
      await api.addToxic('broker', { type: 'timeout', name: `partition-${stream}`, stream, toxicity: 1, attributes: { timeout: 0 } });
    await eventually(() => faults.length > 0, 15_000, 'a fault');
    expect(faults[0]!.kind).toBe('heartbeat');
    // 5 s without reading or writing; the last heartbeat (the broker sends one every 2.5 s) may have come just before the partition.
    const detectionMs = elapsedMs(partitionedNs, faults[0]!.detectedNs);
    expect(detectionMs).toBeGreaterThanOrEqual(2000);
    expect(detectionMs).toBeLessThan(9000);
    for (const stream of ['downstream', 'upstream']) await api.removeToxic('broker', `partition-${stream}`);
    await connection.ensureConnected(20_000);
    channel.sendToQueue(queue, Buffer.from('after'));
    await eventually(() => received.includes('after'), 10_000, 'a delivery after recovery');
    expect(faults).toHaveLength(1);
  }, 60_000);

  it('rejects publishes at once while down, queues nothing, and rejects an unconfirmed publish when the link dies', async () => {
    const { connection, received } = await consuming('defaults', proxiedUrl);
    const publisher = await connection.publisher({ confirms: true });
    // A confirm that never comes: the proxy drops everything towards the client, then the client gives up on the link.
    await api.addToxic('broker', { type: 'timeout', name: 'silence', stream: 'downstream', toxicity: 1, attributes: { timeout: 0 } });
    const pending = publisher.publish('', queue, Buffer.from('unconfirmed'));
    await sleep(100);
    connection.destroy('test: give up on the link');
    await expect(pending).rejects.toBeInstanceOf(ClientFaultError);
    await api.removeToxic('broker', 'silence');

    const startedNs = nowNs();
    await expect(publisher.publish('', queue, Buffer.from('during'))).rejects.toMatchObject({ kind: 'deadline' });
    // At once: well before the session's 1 s reconnect delay (nothing waits for a reconnection).
    expect(elapsedMs(startedNs, nowNs())).toBeLessThan(200);
    await connection.ensureConnected(10_000);
    await publisher.publish('', queue, Buffer.from('after'));
    await eventually(() => received.includes('after'), 5000, 'the publish after recovery');
    await sleep(300);
    expect(received).not.toContain('during');
  }, 30_000);

  it('redelivers, flagged, a delivery left unacked over a reconnection; the stale ack is harmless', async () => {
    const connection = await connect('normalised', directUrl);
    const deliveries: Delivery[] = [];
    await connection.consume(queue, { ack: 'manual', prefetch: 1 }, (delivery) => deliveries.push(delivery));
    channel.sendToQueue(queue, Buffer.from('once'));
    await eventually(() => deliveries.length === 1, 5000, 'the first delivery');
    connection.destroy('test: drop it unacked');
    await connection.ensureConnected(10_000);
    deliveries[0]!.ack();
    await eventually(() => deliveries.length === 2, 5000, 'the redelivery');
    expect(deliveries[1]).toMatchObject({ redelivered: true });
    deliveries[1]!.ack();
    await sleep(200);
    expect((await channel.checkQueue(queue)).messageCount).toBe(0);
  }, 30_000);

  it('says which consumer the session could not re-establish (its queue is gone) instead of reporting back', async () => {
    const { connection } = await consuming('defaults', directUrl);
    connection.destroy('test: lose the queue while down');
    // Within the session's 1 s reconnect delay: the session re-consumes only, it does not redeclare.
    await channel.deleteQueue(queue);
    await expect(connection.ensureConnected(3000)).rejects.toThrow(/not re-established.*NOT_FOUND/);
    expect(connection.state).toBe('down');
  }, 30_000);

  it("cannot use the library's default declaration on the harness's queue (durable: true), hence passive", async () => {
    const session = await AMQPSession.connect(directUrl, { logger: null });
    try {
      await expect(session.queue(queue)).rejects.toThrow(/PRECONDITION_FAILED/);
      await expect(session.queue(queue, { passive: true })).resolves.toMatchObject({ name: queue });
    } finally {
      await session.stop();
    }
  }, 30_000);

  it('finding: a handshake that times out is rejected but its socket is left open (the adapter destroys it on close)', async () => {
    // A peer that accepts TCP and never speaks AMQP: the library's handshake read timeout is the heartbeat (1 s here).
    const held: Socket[] = [];
    const blackHole = net.createServer((socket) => held.push(socket));
    await new Promise<void>((resolve) => blackHole.listen(0, '127.0.0.1', resolve));
    const client = new AMQPClient(
      `amqp://guest:guest@127.0.0.1:${(blackHole.address() as AddressInfo).port}/?heartbeat=1`,
      undefined,
      null,
    );
    try {
      await expect(client.connect()).rejects.toThrow(/^timeout$/);
      expect(client.socket?.destroyed).toBe(false);
      await sleep(300);
      expect(held.filter((socket) => !socket.destroyed)).toHaveLength(1);
    } finally {
      client.socket?.destroy();
      for (const socket of held) socket.destroy();
      await new Promise((resolve) => blackHole.close(resolve));
    }
  }, 30_000);

  it('finding: confirmed publishes still in the write buffer when the link dies become unhandled rejections', async () => {
    // basicPublish chains the confirm's promise only once the write succeeded; when the write
    // fails, that promise is rejected later (channel closed) with no handler. Node's default for
    // an unhandled rejection is to throw, and Jest fails the test that saw one: counted in a child process.
    const fixture = path.join(__dirname, 'fixtures', 'cloudamqp-unhandled-rejections.js');
    // A slow link towards the broker: the publishes pile up in the client's write buffer.
    await api.addToxic('broker', { type: 'bandwidth', name: 'slow', stream: 'upstream', toxicity: 1, attributes: { rate: 100 } });
    const { stdout } = await run(process.execPath, [fixture], { env: { ...process.env, AMQP_URL: proxiedUrl }, timeout: 20_000 });
    const outcome = JSON.parse(stdout) as { rejected: number; unhandled: number; unhandled_messages: string[] };
    expect(outcome.rejected).toBe(200);
    expect(outcome.unhandled).toBeGreaterThan(0);
    expect(outcome.unhandled_messages).toEqual(['the link dies']);
  }, 30_000);

  it("stops the session's reconnection when closed in its backoff, leaving no connection", async () => {
    const connectionName = `test-cloudamqp-close-${randomUUID()}`;
    const { connection } = await consuming('defaults', directUrl, connectionName);
    connection.destroy('test: close while the session waits to reconnect');
    await sleep(200);
    await connection.close();
    expect(connection.state).toBe('closed');
    // Past the session's 1 s reconnect delay: had it reconnected, the broker would list it.
    await sleep(1500);
    expect((await listBrokerConnections(directUrl)).names).not.toContain(connectionName);
  }, 30_000);
});
