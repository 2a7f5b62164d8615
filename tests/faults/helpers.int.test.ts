import http from 'node:http';
import net from 'node:net';
import amqp from 'amqplib';
import { ProxyError } from '../../src/errors';
import {
  armResetPeer,
  ProxyCallTimeoutError,
  removeActiveToxics,
  removeAllToxics,
  removeToxicSafely,
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
import { startEmbeddedProxyEntry } from '../support/embeddedProxy';

describe('fault helpers against the embedded proxy and the real broker', () => {
  let server: ProxyServer;
  let proxy: ProxyTarget;
  let proxiedUrl: string;

  beforeAll(async () => {
    const entry = await startEmbeddedProxyEntry('helpers');
    server = entry.server;
    proxy = entry.proxy;
    proxiedUrl = entry.proxiedUrl;
  });
  afterEach(async () => {
    await removeActiveToxics();
  });
  afterAll(async () => {
    await server?.close();
  });

  it('injects each fault under the Toxiproxy names and attributes the helpers document, and removes it', async () => {
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
    const removals = await Promise.all([reset.remove(), partition.remove(), latency.remove()]);
    // A toxic that holds data is set to pass it through before it is deleted (Toxiproxy #558).
    expect(removals.map((removal) => removal.method)).toEqual(['deleted', 'deleted', 'passthrough_then_deleted']);
    expect(await proxy.client.listToxics(proxy.name)).toEqual([]);
    // Removing twice is harmless and returns the same result.
    expect(await reset.remove()).toBe(await reset.remove());
    expect(reset.injection).toBe('added');
  });

  it('arms reset_peer at toxicity 0 (nothing happens), then fires it (toxicity 1): amqplib sees ECONNRESET', async () => {
    const armed = await armResetPeer(proxy, 0);
    expect(await proxy.client.listToxics(proxy.name)).toEqual([
      { name: 'reset_peer_downstream', type: 'reset_peer', stream: 'downstream', toxicity: 0, attributes: { timeout: 0 } },
    ]);
    const connection = await amqp.connect(proxiedUrl, { timeout: 5000 });
    const channel = await connection.createChannel();
    const { queue } = await channel.assertQueue('', { exclusive: true }); // traffic passes while armed
    const failed = new Promise<Error>((resolve) => connection.on('error', resolve));
    connection.on('close', () => undefined);
    const fired = await armed.fire();
    expect(fired.injection).toBe('armed');
    expect(fired.injected.startedNs).toBeGreaterThan(armed.armed.completedNs);
    expect((await proxy.client.listToxics(proxy.name))[0]).toMatchObject({ toxicity: 1 });
    channel.sendToQueue(queue, Buffer.from('trigger'));
    await channel.checkQueue(queue).catch(() => undefined);
    expect((await failed).message).toMatch(/ECONNRESET/);
    expect(await armed.fire()).toBe(fired); // once
    expect((await fired.remove()).method).toBe('deleted');
    expect(await proxy.client.listToxics(proxy.name)).toEqual([]);
  }, 20_000);

  it('identifies the embedded proxy by the extensions its /version announces', async () => {
    expect(await proxy.client.identify()).toEqual({ kind: 'embedded', version: '2.12.0', extensions: ['events', 'connections'] });
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
      { log: (line) => lines.push(line) },
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

/**
 * A scripted Toxiproxy API on a free port, stuck the way a wedged Toxiproxy 2.12 is (#558):
 * `/version` answers, `GET /proxies` and the toxic deletion never do; `stuck` lists other paths
 * that never answer. Every hanging request is dropped when the server closes.
 */
async function startWedgedApi(stuck: readonly string[] = []): Promise<{ url: string; calls: string[]; close(): Promise<void> }> {
  const calls: string[] = [];
  const server = http.createServer((request, response) => {
    const call = `${request.method} ${request.url}`;
    calls.push(call);
    const json = (status: number, body?: unknown) =>
      response.writeHead(status, { 'Content-Type': 'application/json' }).end(body === undefined ? undefined : JSON.stringify(body));
    if (stuck.includes(call)) return; // never answers
    if (call === 'GET /version') return json(200, { version: '2.12.0' });
    if (call === 'GET /proxies/p')
      return json(200, { name: 'p', listen: '127.0.0.1:9', upstream: '127.0.0.1:5672', enabled: true, toxics: [] });
    if (call === 'PATCH /proxies/p/toxics/lag')
      return json(200, { name: 'lag', type: 'latency', stream: 'downstream', toxicity: 1, attributes: {} });
    if (call === 'DELETE /proxies/p') return json(204);
    if (call === 'POST /proxies')
      return json(201, { name: 'p', listen: '127.0.0.1:9', upstream: '127.0.0.1:5672', enabled: true, toxics: [] });
    // GET /proxies and DELETE /proxies/p/toxics/lag: wedged.
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    calls,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('a wedged Toxiproxy (answers /version, not /proxies)', () => {
  it('re-creates the entry when a toxic deletion gets no answer in time', async () => {
    const api = await startWedgedApi();
    try {
      const client = new ToxiproxyClient(api.url);
      await client.getProxy('p');
      const method = await removeToxicSafely({ client, name: 'p' }, 'lag', 'latency');
      expect(method).toBe('entry_recreated');
      expect(api.calls).toEqual(
        expect.arrayContaining([
          'PATCH /proxies/p/toxics/lag',
          'DELETE /proxies/p/toxics/lag',
          'GET /version',
          'GET /proxies',
          'DELETE /proxies/p',
          'POST /proxies',
        ]),
      );
    } finally {
      await api.close();
    }
  }, 30_000);

  it('says in one line that it is wedged, naming the upstream issue, when nothing else works either', async () => {
    const api = await startWedgedApi(['DELETE /proxies/p']);
    try {
      const client = new ToxiproxyClient(api.url);
      await client.getProxy('p');
      const error = await removeToxicSafely({ client, name: 'p' }, 'lag', 'latency').catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ProxyCallTimeoutError);
      expect((error as ProxyCallTimeoutError).diagnosis).toBe('wedged');
      expect((error as Error).message).toMatch(
        new RegExp(
          `^fault proxy at ${api.url.replace(/\./g, '\\.')} is wedged: it answers /version but not /proxies \\(DELETE /proxies/p got no answer in 3000 ms; .*Shopify/toxiproxy#558.*\\); restart it$`,
        ),
      );
      expect((error as Error).message).not.toContain('\n');
      expect((error as Error).message).not.toMatch(/npm run proxy/);
    } finally {
      await api.close();
    }
  }, 30_000);
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
        { log: (line) => lines.push(line) },
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
