/**
 * AMQP through the embedded proxy against the real RabbitMQ, with amqplib: the faults the
 * recovery benchmarks rely on, seen the way the client under test sees them.
 */
import { randomUUID } from 'node:crypto';
import amqp from 'amqplib';
import { formatHostPort, getConfig } from '../../src/config';
import {
  addToxic,
  call,
  connect,
  createProxy,
  embeddedOnly,
  pn,
  Resources,
  sleep,
  startApi,
  withTimeout,
  type ConformanceApi,
} from './helpers';

const resources = new Resources();
let api: ConformanceApi;
let proxiedUrl: string;
let proxiedPort: number;

/** The broker URL with the host and port of the proxy. */
function throughProxy(port: number): string {
  const url = new URL(getConfig().amqpUrl);
  url.hostname = '127.0.0.1';
  url.port = String(port);
  return url.toString();
}

async function open(url: string): Promise<amqp.ChannelModel> {
  // `timeout` covers connect + handshake: through a proxy the TCP connect succeeds at once.
  const connection = await amqp.connect(url, { timeout: 5000, noDelay: true });
  connection.on('error', () => undefined); // each test listens for what it expects
  resources.add(() => connection.close().catch(() => undefined));
  return connection;
}

beforeEach(async () => {
  api = await startApi(resources);
  const broker = new URL(getConfig().amqpUrl);
  const upstream = formatHostPort({ host: broker.hostname, port: Number(broker.port || 5672) });
  proxiedPort = await createProxy(api.url, pn('rabbitmq'), upstream);
  proxiedUrl = throughProxy(proxiedPort);
});
afterEach(() => resources.closeAll());

async function roundTripMs(connection: amqp.ChannelModel): Promise<number> {
  const channel = await connection.createChannel();
  const { queue } = await channel.assertQueue(`proxy-test-${randomUUID()}`, { exclusive: true, autoDelete: true });
  const body = Buffer.from(randomUUID());
  const startedMs = performance.now();
  const received = new Promise<Buffer>((resolve) => {
    void channel.consume(queue, (message) => message && resolve(message.content), { noAck: true });
  });
  channel.sendToQueue(queue, body);
  expect((await withTimeout(received, 10_000, 'message not received')).equals(body)).toBe(true);
  const elapsedMs = performance.now() - startedMs;
  await channel.close();
  return elapsedMs;
}

describe('AMQP through the proxy', () => {
  it('round-trips a message with no toxic', async () => {
    const connection = await open(proxiedUrl);
    expect(await roundTripMs(connection)).toBeLessThan(2000);
  }, 20_000);

  embeddedOnly('deliberate difference 1: Toxiproxy closes connections opened before a reset_peer toxic with a FIN')(
    'makes amqplib see ECONNRESET (connection "error") under a reset_peer added to an open connection',
    async () => {
      const connection = await open(proxiedUrl);
      const channel = await connection.createChannel();
      const failed = new Promise<NodeJS.ErrnoException>((resolve) => connection.on('error', resolve));
      const closed = new Promise<void>((resolve) => connection.on('close', () => resolve()));
      await addToxic(api.url, pn('rabbitmq'), { type: 'reset_peer', attributes: { timeout: 0 } });
      // The toxic acts on the next downstream data: ask the broker something.
      channel.checkQueue(`absent-${randomUUID()}`).catch(() => undefined);
      const error = await withTimeout(failed, 10_000, 'amqplib saw no error');
      expect(error.code).toBe('ECONNRESET');
      expect(error.message).toMatch(/ECONNRESET/);
      await withTimeout(closed, 5000, 'amqplib did not report the close');
    },
    20_000,
  );

  it('makes amqplib see ECONNRESET under a reset_peer armed before it connected (toxicity 0), then raised to 1', async () => {
    // The benchmarks' flow: a link that starts with a reset_peer in its chain closes with an RST (SO_LINGER 0) on Toxiproxy too.
    await addToxic(api.url, pn('rabbitmq'), { type: 'reset_peer', toxicity: 0, attributes: { timeout: 0 } });
    const connection = await open(proxiedUrl);
    const channel = await connection.createChannel();
    expect(await roundTripMs(connection)).toBeLessThan(2000); // armed at toxicity 0: nothing happens
    const failed = new Promise<NodeJS.ErrnoException>((resolve) => connection.on('error', resolve));
    const raised = await call(api.url, 'POST', `/proxies/${pn('rabbitmq')}/toxics/reset_peer_downstream`, { toxicity: 1 });
    expect(raised.json).toMatchObject({ toxicity: 1, attributes: { timeout: 0 } });
    channel.checkQueue(`absent-${randomUUID()}`).catch(() => undefined);
    const error = await withTimeout(failed, 10_000, 'amqplib saw no error');
    expect(error.code).toBe('ECONNRESET');
  }, 20_000);

  it('closes an idle connection under a timeout toxic (FIN: "Unexpected close")', async () => {
    const connection = await open(proxiedUrl);
    const closed = new Promise<{ error: unknown; atMs: number }>((resolve) =>
      connection.on('close', (error) => resolve({ error, atMs: performance.now() })),
    );
    const startedMs = performance.now();
    await addToxic(api.url, pn('rabbitmq'), { type: 'timeout', attributes: { timeout: 500 } });
    const { error, atMs } = await withTimeout(closed, 10_000, 'connection not closed');
    expect(atMs - startedMs).toBeGreaterThanOrEqual(450);
    expect(atMs - startedMs).toBeLessThan(3000);
    expect(String(error)).toMatch(/Unexpected close/);
  }, 20_000);

  it('delays a round trip under latency (200 ms each way -> >= 380 ms)', async () => {
    const connection = await open(proxiedUrl);
    const baselineMs = await roundTripMs(connection);
    await addToxic(api.url, pn('rabbitmq'), { type: 'latency', stream: 'upstream', attributes: { latency: 200 } });
    await addToxic(api.url, pn('rabbitmq'), { type: 'latency', stream: 'downstream', attributes: { latency: 200 } });
    const delayedMs = await roundTripMs(connection);
    // createChannel, assertQueue, consume, the message: several round trips, each >= 400 ms.
    expect(delayedMs).toBeGreaterThanOrEqual(380);
    expect(delayedMs).toBeGreaterThan(baselineMs);
    expect(delayedMs).toBeLessThan(8000);
  }, 30_000);

  /** A protocol header the broker does not speak: it answers with its own and closes its socket at once. */
  const UNSUPPORTED_HEADER = Buffer.from([0x41, 0x4d, 0x51, 0x50, 0, 0, 8, 0]);

  it("passes the broker's close on at once under a plain timeout toxic (what Toxiproxy does)", async () => {
    const client = await connect(resources, proxiedPort);
    await addToxic(api.url, pn('rabbitmq'), { type: 'timeout', attributes: { timeout: 0 } });
    client.socket.write(UNSUPPORTED_HEADER); // upstream has no toxic: the broker reads it and closes
    const closed = await client.waitForClose(5000);
    expect(closed.hadError).toBe(false);
    expect(client.received.length).toBe(0); // its answer was dropped, its FIN was not
  }, 20_000);

  embeddedOnly('hold_end is the embedded proxy’s own attribute; Toxiproxy ignores it and passes the close')(
    "holds the broker's close under a timeout toxic with hold_end until the toxic is removed (a partition)",
    async () => {
      const client = await connect(resources, proxiedPort);
      await addToxic(api.url, pn('rabbitmq'), { type: 'timeout', attributes: { timeout: 0, hold_end: 1 } });
      const listed = await call(api.url, 'GET', `/proxies/${pn('rabbitmq')}/toxics/timeout_downstream`);
      expect(listed.json).toMatchObject({ attributes: { timeout: 0, hold_end: 1 } });
      const sentNs = process.hrtime.bigint();
      client.socket.write(UNSUPPORTED_HEADER);
      await sleep(1500);
      // The broker closed its side long ago (the event says when); the client saw nothing.
      const events = (await call(api.url, 'GET', `/proxies/${pn('rabbitmq')}/events?since=${sentNs}`)).json as {
        events: { kind: string; stream: string }[];
      };
      expect(events.events.filter((event) => event.kind === 'end_held')).toEqual([expect.objectContaining({ stream: 'downstream' })]);
      expect(client.endedAtMs).toBeUndefined();
      expect(client.socket.destroyed).toBe(false);
      expect(client.received.length).toBe(0);
      const removedMs = performance.now();
      await call(api.url, 'DELETE', `/proxies/${pn('rabbitmq')}/toxics/timeout_downstream`);
      const closed = await client.waitForClose(2000);
      expect(closed.atMs).toBeGreaterThanOrEqual(removedMs);
      expect(closed.hadError).toBe(false);
    },
    20_000,
  );
});
