import net from 'node:net';
import amqp from 'amqplib';
import { ProxyError } from '../../src/errors';
import {
  removeActiveToxics,
  removeAllToxics,
  toxicLatency,
  toxicResetPeer,
  toxicTimeout,
  ToxiproxyClient,
  withToxic,
  type ProxyTarget,
} from '../../src/faults';
import { checkBroker } from '../../src/faults/brokerCheck';
import { ensureProxyEntry } from '../../src/faults/proxyEntry';
import { startProxyServer, type ProxyServer } from '../../src/proxy';

describe('fault helpers against the embedded proxy and the real broker', () => {
  let server: ProxyServer;
  let proxy: ProxyTarget;
  let proxiedUrl: string;

  beforeAll(async () => {
    server = await startProxyServer({ host: '127.0.0.1', port: 0 });
    const client = new ToxiproxyClient(server.url);
    const entry = await ensureProxyEntry(client, {
      proxyName: 'helpers',
      proxyListen: { host: '127.0.0.1', port: 0 },
      proxyUpstream: { host: '127.0.0.1', port: 5672 },
    });
    proxy = entry.target;
    proxiedUrl = `amqp://guest:guest@${entry.listen}`;
  });
  afterEach(async () => {
    await removeActiveToxics();
  });
  afterAll(async () => {
    await server?.close();
  });

  it('injects each fault under the names and attributes the seed uses, and removes it', async () => {
    const reset = await toxicResetPeer(proxy);
    const partition = await toxicTimeout(proxy);
    const latency = await toxicLatency(proxy);
    const toxics = await proxy.client.listToxics(proxy.name);
    expect(toxics.map((toxic) => [toxic.name, toxic.type, toxic.stream, toxic.attributes])).toEqual([
      ['timeout_upstream', 'timeout', 'upstream', { timeout: 100 }],
      ['reset_peer_downstream', 'reset_peer', 'downstream', { timeout: 0 }],
      ['timeout_downstream', 'timeout', 'downstream', { timeout: 100 }],
      ['latency_downstream', 'latency', 'downstream', { latency: 200, jitter: 100 }],
    ]);
    expect(reset.injected.completedNs).toBeGreaterThanOrEqual(reset.injected.startedNs);
    await Promise.all([reset.remove(), partition.remove(), latency.remove()]);
    expect(await proxy.client.listToxics(proxy.name)).toEqual([]);
    // Removing twice is harmless and returns the same bracket.
    expect(await reset.remove()).toBe(await reset.remove());
  });

  it('removes the toxic even when the body throws (withToxic)', async () => {
    await expect(withToxic(toxicResetPeer(proxy), async () => Promise.reject(new Error('test failed')))).rejects.toThrow('test failed');
    expect(await proxy.client.listToxics(proxy.name)).toEqual([]);
  });

  it('tracks every active toxic so per-test cleanup removes forgotten ones', async () => {
    await toxicLatency(proxy, 10, 0);
    await toxicResetPeer(proxy, 5);
    expect(await removeActiveToxics()).toEqual([]);
    expect(await proxy.client.listToxics(proxy.name)).toEqual([]);
  });

  it('amqplib sees ECONNRESET under reset_peer, and the timeline records the RST before it', async () => {
    const connection = await amqp.connect(proxiedUrl, { timeout: 5000 });
    const channel = await connection.createChannel();
    const { queue } = await channel.assertQueue('', { exclusive: true });
    const failed = new Promise<{ error: Error; atNs: bigint }>((resolve) =>
      connection.on('error', (error: Error) => resolve({ error, atNs: process.hrtime.bigint() })),
    );
    connection.on('close', () => undefined);
    const toxic = await toxicResetPeer(proxy, 0);
    channel.sendToQueue(queue, Buffer.from('trigger')); // the broker's answer is the next downstream data
    await channel.consume(queue, () => undefined).catch(() => undefined);
    const { error, atNs } = await failed;
    expect(error.message).toMatch(/ECONNRESET/);
    const events = await proxy.client.events(proxy.name, toxic.injected.startedNs);
    const reset = events?.find((event) => event.kind === 'reset_sent');
    expect(reset).toBeDefined();
    expect(BigInt(reset!.at_ns)).toBeLessThanOrEqual(atNs);
  }, 20_000);

  it('removes leftover toxics and re-enables a disabled entry (fixture setup)', async () => {
    await proxy.client.addToxic(proxy.name, { type: 'latency', name: 'leftover', attributes: { latency: 1 } });
    await proxy.client.updateProxy(proxy.name, { enabled: false });
    const lines: string[] = [];
    const state = await ensureProxyEntry(
      proxy.client,
      { proxyName: proxy.name, proxyListen: { host: '127.0.0.1', port: 1 }, proxyUpstream: { host: '127.0.0.1', port: 5672 } },
      (line) => lines.push(line),
    );
    expect(state.created).toBe(false);
    expect(state.leftoverToxicsRemoved).toBe(1);
    expect((await proxy.client.getProxy(proxy.name)).enabled).toBe(true);
    expect(lines.join('\n')).toMatch(/enabled it[\s\S]*removed 1 leftover toxic/);
    expect(await removeAllToxics(proxy)).toBe(0);
  });

  it('names the API and the way out when the proxy API does not answer', async () => {
    const dead = new ToxiproxyClient('http://127.0.0.1:1', { timeoutMs: 500 });
    const error = await dead.listProxies().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ProxyError);
    expect((error as ProxyError).message).toMatch(/fault proxy API at http:\/\/127\.0\.0\.1:1 did not answer .*npm run proxy/);
  });

  it('passes the API error through with its status (Toxiproxy error body)', async () => {
    const error = await proxy.client.removeToxic(proxy.name, 'nope').catch((caught: unknown) => caught);
    expect((error as ProxyError).status).toBe(404);
    expect((error as ProxyError).message).toMatch(/404: toxic not found/);
  });
});

describe('broker check (globalSetup)', () => {
  it('fails fast with one line naming the URL (password masked) and how to start RabbitMQ', async () => {
    const startedAt = Date.now();
    const error = await checkBroker('amqp://guest:secret@127.0.0.1:1', 3000).catch((caught: unknown) => caught as Error);
    expect(Date.now() - startedAt).toBeLessThan(10_000);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(
      /^RabbitMQ did not answer at amqp:\/\/guest@127\.0\.0\.1:1 \(.*ECONNREFUSED.*\); start it with `rabbitmq-server -detached`/,
    );
    expect((error as Error).message).not.toContain('secret');
  });

  it('answers with the broker version when it is up', async () => {
    await expect(checkBroker('amqp://guest:guest@127.0.0.1:5672')).resolves.toMatch(/^3\./);
  });
});

describe('proxy entry when the configured listen port is taken', () => {
  it("listens on a free port instead and says so (25672 is RabbitMQ's inter-node port here)", async () => {
    const server = await startProxyServer({ host: '127.0.0.1', port: 0 });
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const takenPort = (blocker.address() as net.AddressInfo).port;
    try {
      const lines: string[] = [];
      const state = await ensureProxyEntry(
        new ToxiproxyClient(server.url),
        { proxyName: 'taken', proxyListen: { host: '127.0.0.1', port: takenPort }, proxyUpstream: { host: '127.0.0.1', port: 5672 } },
        (line) => lines.push(line),
      );
      expect(state.created).toBe(true);
      expect(state.listen).toMatch(/^127\.0\.0\.1:\d+$/);
      expect(state.listen).not.toBe(`127.0.0.1:${takenPort}`);
      expect(lines).toEqual([
        expect.stringMatching(new RegExp(`^fault proxy: 127\\.0\\.0\\.1:${takenPort} is taken .*listens on ${state.listen} instead`)),
      ]);
    } finally {
      blocker.close();
      await server.close();
    }
  });
});
