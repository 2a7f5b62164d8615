/**
 * Conformance of /reset, /version, /populate, routing (404/405/403) and hostile input with
 * Toxiproxy 2.x over real HTTP, and the server's own lifecycle.
 */
import net from 'node:net';
import type { ProxyServer } from '../../src/proxy';
import { addToxic, call, connect, createProxy, freePort, Resources, startApi, startPeer, type TcpPeer } from './helpers';
import { isListening } from '../support/ports';

const resources = new Resources();
let api: ProxyServer;
let upstream: TcpPeer;

beforeEach(async () => {
  api = await startApi(resources);
  upstream = await startPeer(resources);
});
afterEach(() => resources.closeAll());

describe('POST /reset', () => {
  it('enables every proxy again and removes all toxics: 204', async () => {
    await createProxy(api.url, 'a', upstream.address);
    const port = await createProxy(api.url, 'b', upstream.address);
    await addToxic(api.url, 'a', { type: 'latency', attributes: { latency: 100 } });
    await addToxic(api.url, 'a', { type: 'timeout', stream: 'upstream' });
    await call(api.url, 'POST', '/proxies/b', { enabled: false });
    const answer = await call(api.url, 'POST', '/reset');
    expect(answer.status).toBe(204);
    expect(answer.text).toBe('');
    const proxies = (await call(api.url, 'GET', '/proxies')).json;
    expect(proxies.a).toMatchObject({ enabled: true, toxics: [] });
    expect(proxies.b).toMatchObject({ enabled: true, listen: `127.0.0.1:${port}` });
    expect(await isListening(port)).toBe(true);
  }, 10_000);
});

describe('GET /version', () => {
  it('answers 200 {"version": ...} as JSON', async () => {
    const answer = await call(api.url, 'GET', '/version');
    expect(answer.status).toBe(200);
    expect(answer.contentType).toBe('application/json');
    expect(answer.json.version).toMatch(/^2\.\d+\.\d+$/);
  }, 10_000);
});

describe('POST /populate', () => {
  it('creates proxies: 201 {"proxies": [...]}, enabled by default', async () => {
    const answer = await call(api.url, 'POST', '/populate', [
      { name: 'p1', listen: '127.0.0.1:0', upstream: upstream.address },
      { name: 'p2', listen: '127.0.0.1:0', upstream: upstream.address, enabled: false },
    ]);
    expect(answer.status).toBe(201);
    expect(answer.json.proxies).toHaveLength(2);
    expect(answer.json.proxies[0]).toMatchObject({ name: 'p1', enabled: true, toxics: [] });
    expect(answer.json.proxies[1]).toMatchObject({ name: 'p2', enabled: false });
  }, 10_000);

  it('keeps an identical proxy as it is (toxics, connections) and replaces a different one', async () => {
    const port = await createProxy(api.url, 'same', upstream.address);
    await addToxic(api.url, 'same', { type: 'noop' });
    const client = await connect(resources, port);
    await createProxy(api.url, 'changed', upstream.address);
    await addToxic(api.url, 'changed', { type: 'noop' });
    const other = await startPeer(resources);
    const answer = await call(api.url, 'POST', '/populate', [
      { name: 'same', listen: `127.0.0.1:${port}`, upstream: upstream.address },
      { name: 'changed', listen: '127.0.0.1:0', upstream: other.address },
    ]);
    expect(answer.status).toBe(201);
    expect(answer.json.proxies[0]).toMatchObject({ name: 'same', listen: `127.0.0.1:${port}`, toxics: [{ name: 'noop_downstream' }] });
    expect(answer.json.proxies[1]).toMatchObject({ name: 'changed', upstream: other.address, toxics: [] });
    client.socket.write('still open');
    await client.waitForBytes(10);
  }, 10_000);

  it('checks every entry first: 400 naming the entry, nothing created', async () => {
    const answer = await call(api.url, 'POST', '/populate', [
      { name: 'ok', listen: '127.0.0.1:0', upstream: upstream.address },
      { name: 'no-upstream' },
    ]);
    expect(answer.status).toBe(400);
    expect(answer.json).toMatchObject({ error: 'missing required field: upstream at proxy 2', status: 400 });
    expect((await call(api.url, 'GET', '/proxies')).json).toEqual({});
    expect((await call(api.url, 'POST', '/populate', [{ upstream: 'x:1' }])).json.error).toBe('missing required field: name at proxy 1');
  }, 10_000);

  it('answers 400 for a body that is not an array', async () => {
    const answer = await call(api.url, 'POST', '/populate', { name: 'x' });
    expect(answer.status).toBe(400);
    expect(answer.json.error).toBe('bad request body: json: cannot unmarshal object into Go value of type []toxiproxy.Proxy');
  }, 10_000);

  it('stops at a bind failure: that status and error, with the proxies handled before it', async () => {
    const answer = await call(api.url, 'POST', '/populate', [
      { name: 'first', listen: '127.0.0.1:0', upstream: upstream.address },
      { name: 'second', listen: upstream.address, upstream: upstream.address },
      { name: 'third', listen: '127.0.0.1:0', upstream: upstream.address },
    ]);
    expect(answer.status).toBe(500);
    expect(answer.json).toMatchObject({ error: `listen tcp ${upstream.address}: bind: address already in use`, status: 500 });
    expect(answer.json.proxies.map((proxy: { name: string }) => proxy.name)).toEqual(['first']);
    expect(Object.keys((await call(api.url, 'GET', '/proxies')).json)).toEqual(['first']);
  }, 10_000);
});

describe('routing and hostile input', () => {
  it.each([
    ['GET', '/nothing-here'],
    ['GET', '/proxies/a/b/c/d/e'],
    ['GET', '/proxies/'],
  ])(
    '%s %s is 404',
    async (method, path) => {
      const answer = await call(api.url, method, path);
      expect(answer.status).toBe(404);
      expect(answer.json.status).toBe(404);
    },
    10_000,
  );

  it.each([
    ['PUT', '/proxies'],
    ['DELETE', '/version'],
    ['GET', '/reset'],
    ['GET', '/populate'],
    ['PUT', '/proxies/x/toxics/y'],
  ])(
    '%s %s is 405',
    async (method, path) => {
      const answer = await call(api.url, method, path);
      expect(answer.status).toBe(405);
      expect(answer.json.status).toBe(405);
    },
    10_000,
  );

  it('refuses a browser (User-Agent starting Mozilla/) with 403', async () => {
    const answer = await call(api.url, 'GET', '/proxies', undefined, { 'User-Agent': 'Mozilla/5.0 (X11; Linux x86_64)' });
    expect(answer.status).toBe(403);
    expect(answer.json).toEqual({ error: 'User agent not allowed', status: 403 });
  }, 10_000);

  it('survives garbage: huge bodies, bad escapes, deep JSON, then still answers', async () => {
    expect((await call(api.url, 'POST', '/proxies', 'x'.repeat(2 * 1024 * 1024))).json.error).toBe(
      'bad request body: http: request body too large',
    );
    expect((await call(api.url, 'GET', '/proxies/%E0%A4%A')).status).toBe(400);
    expect((await call(api.url, 'POST', '/proxies', '['.repeat(100_000))).status).toBe(400);
    expect((await call(api.url, 'POST', '/proxies', 'null')).json.error).toBe('missing required field: name');
    expect((await call(api.url, 'POST', '/populate', 'null')).status).toBe(201);
    const raw = await new Promise<string>((resolve) => {
      const socket = net.connect(api.port, '127.0.0.1', () => socket.end('NOT HTTP AT ALL\r\n\r\n'));
      let text = '';
      socket.on('data', (data) => (text += data.toString()));
      socket.on('close', () => resolve(text));
      socket.on('error', () => resolve(text));
    });
    expect(raw).toMatch(/^HTTP\/1\.1 400/);
    expect((await call(api.url, 'GET', '/version')).status).toBe(200);
  }, 15_000);

  it('serves the same proxy name only once under concurrent creation', async () => {
    const answers = await Promise.all(
      Array.from({ length: 5 }, () =>
        call(api.url, 'POST', '/proxies', { name: 'race', listen: '127.0.0.1:0', upstream: upstream.address }),
      ),
    );
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 409, 409, 409, 409]);
  }, 10_000);
});

describe('server lifecycle', () => {
  it('close() is safe twice and frees the API port and every proxy port', async () => {
    const own = await startApi(resources);
    const port = await createProxy(own.url, 'p', upstream.address);
    const client = await connect(resources, port);
    await Promise.all([own.close(), own.close()]);
    await own.close();
    expect(own.state).toBe('closed');
    await client.waitForClose();
    expect(await isListening(port)).toBe(false);
    expect(await isListening(own.port)).toBe(false);
  }, 10_000);

  it('reports the real port when started on port 0, and refuses a taken port with a clear error', async () => {
    expect(api.port).toBeGreaterThan(0);
    expect(api.url).toBe(`http://127.0.0.1:${api.port}`);
    await expect(startApi(resources, { port: api.port })).rejects.toThrow(/cannot start the embedded proxy API: .*address already in use/);
    await expect(startApi(resources, { port: 70000 })).rejects.toThrow('port must be an integer from 0 to 65535');
    expect(await freePort()).toBeGreaterThan(0);
  }, 10_000);
});
