/**
 * What rabbitmq-client does that the shared contract does not pin down, against the real broker
 * and the embedded proxy: the fault kind it reports for a FIN, a broker close and a silent link
 * (missed heartbeats), its default first reconnection delay (1–2 s) against the normalised one,
 * manual acks pending across a reset, publishes while disconnected (queued by the library),
 * failover over a host list, first-connection failures (a refused login fails at once), and a
 * close that stays bounded when the peer is silent.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import amqp, { type Channel, type ChannelModel } from 'amqplib';
import type { ClientConnection, ClientFault, ClientProfile, Delivery } from '../../src/client/api';
import { connectClient } from '../../src/client/registry';
import { ClientFaultError } from '../../src/client/types';
import { getConfig, proxiedAmqpUrl } from '../../src/config';
import { ToxiproxyClient } from '../../src/faults';
import { elapsedMs, nowNs, sleep } from '../../src/measure/clock';
import { startProxyServer, type ProxyServer } from '../../src/proxy';
import { freePort } from '../support/ports';
import { eventually } from './support/signals';

const run = promisify(execFile);
const directUrl = getConfig().amqpUrl;

describe('rabbitmq-client adapter (real broker, embedded proxy)', () => {
  let admin: ChannelModel;
  let channel: Channel;
  let proxy: ProxyServer;
  let api: ToxiproxyClient;
  let proxiedUrl: string;
  let queue: string;
  const connections: ClientConnection[] = [];

  const connect = async (profile: ClientProfile, urls: string[] = [proxiedUrl]): Promise<ClientConnection> => {
    const connection = await connectClient(
      { name: 'rabbitmq-client', profile },
      { urls, connectionName: `test-rabbitmq-client-${randomUUID()}`, startBoundMs: 10_000 },
    );
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
    queue = `test.rabbitmq-client.${randomUUID()}`;
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

  it('reports a FIN from the peer as `closed` and recovers', async () => {
    const connection = await connect('normalised');
    const faults = faultsOf(connection);
    const received: string[] = [];
    await connection.consume(queue, { ack: 'auto' }, (delivery) => received.push(delivery.body.toString()));
    await api.addToxic('broker', { type: 'limit_data', name: 'fin', stream: 'downstream', toxicity: 1, attributes: { bytes: 0 } });
    channel.sendToQueue(queue, Buffer.from('trigger'));
    await eventually(() => faults.length > 0, 10_000, 'a fault');
    expect(faults[0]).toMatchObject({ kind: 'closed', message: 'socket closed unexpectedly by server' });
    await api.removeToxic('broker', 'fin');
    await connection.ensureConnected(10_000);
    channel.sendToQueue(queue, Buffer.from('after'));
    await eventually(() => received.includes('after'), 10_000, 'a delivery after recovery');
  }, 30_000);

  it('reports a broker close (rabbitmqctl close_connection) as `broker_closed` and recovers', async () => {
    const connection = await connect('normalised', [directUrl]);
    const faults = faultsOf(connection);
    const broker = new URL(directUrl);
    const name = `127.0.0.1:${connection.localPort} -> ${broker.hostname}:${broker.port || 5672}`;
    // close_connection takes the connection's pid; the tab-separated listing pairs pid and name.
    const { stdout } = await run('rabbitmqctl', ['list_connections', 'pid', 'name', '-q'], { timeout: 30_000 });
    const pid = stdout
      .split('\n')
      .map((line) => line.split('\t'))
      .find(([, listed]) => listed === name)?.[0];
    if (!pid) throw new Error(`the broker lists no connection ${name}`);
    await run('rabbitmqctl', ['close_connection', pid, 'amqp-bench test'], { timeout: 30_000 });
    await eventually(() => faults.length > 0, 10_000, 'a fault');
    expect(faults[0]!.kind).toBe('broker_closed');
    expect(faults[0]!.message).toMatch(/CONNECTION_FORCED/);
    await connection.ensureConnected(10_000);
    const publisher = await connection.publisher({ confirms: true });
    await publisher.publish('', queue, Buffer.from('after'));
  }, 60_000);

  it('notices a silent link by missed heartbeats (normalised: 5 s, so 2–2.5 heartbeats after the last frame) as `heartbeat`', async () => {
    const connection = await connect('normalised');
    const faults = faultsOf(connection);
    // Nothing from the broker reaches the client any more; its own heartbeats still go out.
    const silencedNs = nowNs();
    await api.addToxic('broker', { type: 'timeout', name: 'silence', stream: 'downstream', toxicity: 1, attributes: { timeout: 0 } });
    await eventually(() => faults.length > 0, 20_000, 'a fault');
    expect(faults[0]).toMatchObject({ kind: 'heartbeat', message: 'socket timed out (no heartbeat)' });
    // The broker heartbeats every 2.5 s: the last frame came at most that long before the silence.
    const detectionMs = elapsedMs(silencedNs, faults[0]!.detectedNs);
    expect(detectionMs).toBeGreaterThanOrEqual(7000);
    expect(detectionMs).toBeLessThan(13_500);
    await api.removeToxic('broker', 'silence');
    await connection.ensureConnected(10_000);
  }, 40_000);

  it.each([
    ['defaults', 1000, 2000],
    ['normalised', 100, 200],
  ] as const)(
    'first reconnection in the %s profile waits retryLow..2×retryLow (%i–%i ms)',
    async (profile, lowMs, highMs) => {
      const connection = await connect(profile);
      const faults = faultsOf(connection);
      await connection.consume(queue, { ack: 'auto' }, () => undefined);
      await api.addToxic('broker', { type: 'reset_peer', name: 'reset', stream: 'downstream', toxicity: 1, attributes: { timeout: 0 } });
      channel.sendToQueue(queue, Buffer.from('trigger'));
      await eventually(() => faults.length > 0, 10_000, 'a fault');
      await api.removeToxic('broker', 'reset');
      const { connectedNs } = await connection.ensureConnected(10_000);
      const recoveryMs = elapsedMs(faults[0]!.detectedNs, connectedNs);
      expect(recoveryMs).toBeGreaterThanOrEqual(lowMs);
      // The delay, then connect + handshake + the consumer's setup (a few round trips on a shared machine).
      expect(recoveryMs).toBeLessThan(highMs + 1000);
    },
    30_000,
  );

  it('rejects a confirm pending at a reset with a typed fault, queues a publish made while down and sends it after recovery', async () => {
    const connection = await connect('normalised');
    const faults = faultsOf(connection);
    const publisher = await connection.publisher({ confirms: true });
    await publisher.publish('', queue, Buffer.from('before'));
    // The next publish (client to broker) triggers the reset: its confirm never comes.
    await api.addToxic('broker', { type: 'reset_peer', name: 'reset', stream: 'upstream', toxicity: 1, attributes: { timeout: 0 } });
    const pending = publisher.publish('', queue, Buffer.from('lost'));
    await expect(pending).rejects.toBeInstanceOf(ClientFaultError);
    await expect(pending).rejects.toMatchObject({ kind: 'reset' });
    expect(faults).toHaveLength(1);

    // Down now: the library holds this publish until it has reconnected.
    expect(connection.state).toBe('down');
    const queued = publisher.publish('', queue, Buffer.from('queued'));
    await sleep(50);
    await api.removeToxic('broker', 'reset');
    await queued;
    const message = await channel.get(queue, { noAck: true });
    const bodies: string[] = [];
    for (let next = message; next; next = await channel.get(queue, { noAck: true })) bodies.push(next.content.toString());
    expect(bodies).toContain('queued');
    await publisher.flush(5000);
  }, 30_000);

  it('recovers consumers whose manual acks were pending at the reset; the broker redelivers those messages', async () => {
    const connection = await connect('normalised');
    const faults = faultsOf(connection);
    const pending: Delivery[] = [];
    await connection.consume(queue, { ack: 'manual', prefetch: 3 }, (delivery) => pending.push(delivery));
    for (const body of ['a', 'b', 'c']) channel.sendToQueue(queue, Buffer.from(body));
    await eventually(() => pending.length === 3, 5000, 'three unacked deliveries');
    const stale = pending.splice(0);

    // Prefetch is full, so nothing flows towards the client: the client's own publish triggers the reset.
    const publisher = await connection.publisher({ confirms: false });
    await publisher.publish('', `${queue}.nowhere`, Buffer.from('opens the channel'));
    await api.addToxic('broker', { type: 'reset_peer', name: 'reset', stream: 'upstream', toxicity: 1, attributes: { timeout: 0 } });
    // Written to the socket, or rejected if the reset comes first: either way the broker never gets it.
    await publisher.publish('', `${queue}.nowhere`, Buffer.from('trigger')).catch(() => undefined);
    await eventually(() => faults.length > 0, 10_000, 'a fault');
    await api.removeToxic('broker', 'reset');
    // The library waits for pending handlers before re-consuming: the adapter released them.
    await connection.ensureConnected(10_000);
    for (const delivery of stale) delivery.ack(); // no-op: their channel is gone

    await eventually(() => pending.length === 3, 10_000, 'redeliveries');
    expect(pending.map((delivery) => [delivery.body.toString(), delivery.redelivered])).toEqual([
      ['a', true],
      ['b', true],
      ['c', true],
    ]);
    for (const delivery of pending) delivery.ack();
    await sleep(100);
    const left = await channel.checkQueue(queue);
    expect(left.messageCount).toBe(0);
  }, 30_000);

  it('fails over to the next URL of a list', async () => {
    const deadPort = await freePort();
    const dead = new URL(proxiedUrl);
    dead.port = String(deadPort);
    const connection = await connect('normalised', [dead.toString(), proxiedUrl]);
    expect(connection.state).toBe('up');
    expect(connection.info.multipleHosts).toBe(true);
    const publisher = await connection.publisher({ confirms: true });
    await publisher.publish('', queue, Buffer.from('via the second host'));
  }, 30_000);

  it('tells a client-side destroy as `deadline`, reconnects on a new socket', async () => {
    const connection = await connect('normalised');
    const faults = faultsOf(connection);
    const firstPort = connection.localPort;
    expect(firstPort).toBeGreaterThan(0);
    connection.destroy('test deadline');
    expect(faults).toMatchObject([{ kind: 'deadline' }]);
    await connection.ensureConnected(10_000);
    expect(connection.localPort).toBeGreaterThan(0);
    expect(connection.localPort).not.toBe(firstPort);
    expect(faults).toHaveLength(1);
  }, 30_000);

  it('fails the first connection at once when the broker refuses the login, without showing the password', async () => {
    const wrong = new URL(directUrl);
    wrong.password = 'not-the-password-42';
    const startedNs = nowNs();
    const attempt = connectClient({ name: 'rabbitmq-client', profile: 'defaults' }, { urls: [wrong.toString()], startBoundMs: 10_000 });
    await expect(attempt).rejects.toThrow(/refused rabbitmq-client .*ACCESS_REFUSED.*check the user name, password and vhost/);
    await expect(attempt).rejects.not.toThrow(/not-the-password-42/);
    expect(elapsedMs(startedNs, nowNs())).toBeLessThan(5000);
  }, 30_000);

  it('gives up on the first connection at its bound, naming what failed', async () => {
    const nowhere = new URL(directUrl);
    nowhere.port = String(await freePort());
    const attempt = connectClient({ name: 'rabbitmq-client', profile: 'normalised' }, { urls: [nowhere.toString()], startBoundMs: 500 });
    await expect(attempt).rejects.toThrow(/did not connect to .* within 500 ms \(.*connect ECONNREFUSED/);
    await expect(attempt).rejects.not.toThrow(new RegExp(`:${new URL(directUrl).password}@`));
  }, 30_000);

  it('closes during an outage at once: stops the reconnection, fails the publish waiting for it', async () => {
    const connection = await connect('defaults');
    const faults = faultsOf(connection);
    await connection.consume(queue, { ack: 'manual', prefetch: 1 }, () => undefined);
    const publisher = await connection.publisher({ confirms: true });
    await api.addToxic('broker', { type: 'reset_peer', name: 'reset', stream: 'downstream', toxicity: 1, attributes: { timeout: 0 } });
    channel.sendToQueue(queue, Buffer.from('trigger'));
    await eventually(() => faults.length > 0, 10_000, 'a fault');
    // The library's first retry is 1-2 s away: this publish waits for it.
    const waiting = publisher.publish('', queue, Buffer.from('never sent'));
    const startedNs = nowNs();
    await connection.close();
    // Nothing to wait for: no broker to tell, no channel to close.
    expect(elapsedMs(startedNs, nowNs())).toBeLessThan(500);
    await expect(waiting).rejects.toBeInstanceOf(ClientFaultError);
  }, 30_000);

  it('closes within its bound when the peer has gone silent', async () => {
    const connection = await connect('defaults');
    const publisher = await connection.publisher({ confirms: true });
    await publisher.publish('', queue, Buffer.from('before'));
    await connection.consume(queue, { ack: 'manual', prefetch: 1 }, () => undefined);
    // From now on nothing reaches the broker and nothing comes back.
    await api.addToxic('broker', { type: 'timeout', name: 'silence', stream: 'upstream', toxicity: 1, attributes: { timeout: 0 } });
    const startedNs = nowNs();
    await connection.close();
    expect(elapsedMs(startedNs, nowNs())).toBeLessThan(3000);
    expect(connection.state).toBe('closed');
  }, 30_000);
});
