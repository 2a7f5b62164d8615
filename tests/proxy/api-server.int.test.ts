/**
 * Conformance of /reset, /version, /populate, routing (404/405/403) and hostile input with
 * Toxiproxy 2.x over real HTTP, and the server's own lifecycle.
 */
import net from 'node:net';
import {
  addToxic,
  call,
  connect,
  createProxy,
  describeEmbeddedOnly,
  embeddedOnly,
  EXCLUSIVE,
  EXTERNAL,
  freePort,
  ownProxies,
  pn,
  Resources,
  startApi,
  startEmbeddedApi,
  startPeer,
  type ConformanceApi,
  type TcpPeer,
} from './helpers';
import { isListening } from '../support/ports';

const resources = new Resources();
let api: ConformanceApi;
let upstream: TcpPeer;

beforeEach(async () => {
  api = await startApi(resources);
  upstream = await startPeer(resources);
});
afterEach(() => resources.closeAll());

// /reset acts on every proxy of the server: on a shared external server it would strip other people's toxics.
const resetCheck =
  EXTERNAL && !EXCLUSIVE
    ? embeddedOnly('POST /reset touches every proxy of a shared server; set TOXIPROXY_CONFORMANCE_EXCLUSIVE=1 for a server of your own')
    : it;

describe('POST /reset', () => {
  resetCheck(
    'enables every proxy again and removes all toxics: 204',
    async () => {
      await createProxy(api.url, pn('a'), upstream.address);
      const port = await createProxy(api.url, pn('b'), upstream.address);
      await addToxic(api.url, pn('a'), { type: 'latency', attributes: { latency: 100 } });
      await addToxic(api.url, pn('a'), { type: 'timeout', stream: 'upstream' });
      await call(api.url, 'POST', `/proxies/${pn('b')}`, { enabled: false });
      const answer = await call(api.url, 'POST', '/reset');
      expect(answer.status).toBe(204);
      expect(answer.text).toBe('');
      const proxies = (await call(api.url, 'GET', '/proxies')).json;
      expect(proxies[pn('a')]).toMatchObject({ enabled: true, toxics: [] });
      expect(proxies[pn('b')]).toMatchObject({ enabled: true, listen: `127.0.0.1:${port}` });
      expect(await isListening(port)).toBe(true);
    },
    10_000,
  );
});

describe('GET /version', () => {
  it('answers 200 {"version": ...} as JSON', async () => {
    const answer = await call(api.url, 'GET', '/version');
    expect(answer.status).toBe(200);
    expect(answer.contentType).toMatch(/^application\/json\b/);
    expect(answer.json.version).toMatch(/^2\.\d+\.\d+$/);
  }, 10_000);

  embeddedOnly('extension: the embedded proxy announces its timeline endpoints')(
    'lists the extensions it serves',
    async () => {
      expect((await call(api.url, 'GET', '/version')).json.extensions).toEqual(['events', 'connections']);
    },
    10_000,
  );
});

describe('POST /populate', () => {
  it('creates proxies: 201 {"proxies": [...]}, enabled by default', async () => {
    const answer = await call(api.url, 'POST', '/populate', [
      { name: pn('p1'), listen: '127.0.0.1:0', upstream: upstream.address },
      { name: pn('p2'), listen: '127.0.0.1:0', upstream: upstream.address, enabled: false },
    ]);
    expect(answer.status).toBe(201);
    expect(answer.json.proxies).toHaveLength(2);
    expect(answer.json.proxies[0]).toMatchObject({ name: pn('p1'), enabled: true, toxics: [] });
    expect(answer.json.proxies[1]).toMatchObject({ name: pn('p2'), enabled: false });
  }, 10_000);

  it('keeps an identical proxy as it is (toxics, connections) and replaces a different one', async () => {
    const port = await createProxy(api.url, pn('same'), upstream.address);
    await addToxic(api.url, pn('same'), { type: 'noop' });
    const client = await connect(resources, port);
    await createProxy(api.url, pn('changed'), upstream.address);
    await addToxic(api.url, pn('changed'), { type: 'noop' });
    const other = await startPeer(resources);
    const answer = await call(api.url, 'POST', '/populate', [
      { name: pn('same'), listen: `127.0.0.1:${port}`, upstream: upstream.address },
      { name: pn('changed'), listen: '127.0.0.1:0', upstream: other.address },
    ]);
    expect(answer.status).toBe(201);
    expect(answer.json.proxies[0]).toMatchObject({ name: pn('same'), listen: `127.0.0.1:${port}`, toxics: [{ name: 'noop_downstream' }] });
    expect(answer.json.proxies[1]).toMatchObject({ name: pn('changed'), upstream: other.address, toxics: [] });
    client.socket.write('still open');
    await client.waitForBytes(10);
  }, 10_000);

  it('checks every entry first: 400 naming the entry, nothing created', async () => {
    const answer = await call(api.url, 'POST', '/populate', [
      { name: pn('ok'), listen: '127.0.0.1:0', upstream: upstream.address },
      { name: pn('no-upstream') },
    ]);
    expect(answer.status).toBe(400);
    expect(answer.json).toMatchObject({ error: 'missing required field: upstream at proxy 2', status: 400 });
    expect(ownProxies((await call(api.url, 'GET', '/proxies')).json)).toEqual({});
    expect((await call(api.url, 'POST', '/populate', [{ upstream: 'x:1' }])).json.error).toBe('missing required field: name at proxy 1');
  }, 10_000);

  it('answers 400 for a body that is not an array', async () => {
    const answer = await call(api.url, 'POST', '/populate', { name: pn('x') });
    expect(answer.status).toBe(400);
    expect(answer.json.error).toBe(
      'bad request body: json: cannot unmarshal object into Go value of type []struct { toxiproxy.Proxy; Enabled *bool "json:\\"enabled\\"" }',
    );
  }, 10_000);

  it('stops at a bind failure: that status and error, with the proxies handled before it', async () => {
    const answer = await call(api.url, 'POST', '/populate', [
      { name: pn('first'), listen: '127.0.0.1:0', upstream: upstream.address },
      { name: pn('second'), listen: upstream.address, upstream: upstream.address },
      { name: pn('third'), listen: '127.0.0.1:0', upstream: upstream.address },
    ]);
    expect(answer.status).toBe(500);
    expect(answer.json).toMatchObject({ error: `listen tcp ${upstream.address}: bind: address already in use`, status: 500 });
    expect(answer.json.proxies.map((proxy: { name: string }) => proxy.name)).toEqual([pn('first')]);
    expect(Object.keys(ownProxies((await call(api.url, 'GET', '/proxies')).json))).toEqual([pn('first')]);
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
      expect((await call(api.url, method, path)).status).toBe(404);
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
      expect((await call(api.url, method, path)).status).toBe(405);
    },
    10_000,
  );

  embeddedOnly('deliberate difference 4: Toxiproxy answers routing errors in plain text')(
    'answers 404, 405 and 403 with a JSON error body',
    async () => {
      expect((await call(api.url, 'GET', '/nothing-here')).json).toEqual({ error: '404 page not found', status: 404 });
      expect((await call(api.url, 'PUT', '/proxies')).json).toEqual({ error: '405 method not allowed', status: 405 });
      const browser = await call(api.url, 'GET', '/proxies', undefined, { 'User-Agent': 'Mozilla/5.0 (X11; Linux x86_64)' });
      expect(browser.json).toEqual({ error: 'User agent not allowed', status: 403 });
    },
    10_000,
  );

  it('refuses a browser (User-Agent starting Mozilla/) with 403', async () => {
    const answer = await call(api.url, 'GET', '/proxies', undefined, { 'User-Agent': 'Mozilla/5.0 (X11; Linux x86_64)' });
    expect(answer.status).toBe(403);
    expect(answer.text).toMatch(/User agent not allowed/);
  }, 10_000);

  embeddedOnly('deliberate difference 6: Toxiproxy sets no limit on request bodies')(
    'refuses a body over 1 MiB with 400',
    async () => {
      expect((await call(api.url, 'POST', '/proxies', 'x'.repeat(2 * 1024 * 1024))).json.error).toBe(
        'bad request body: http: request body too large',
      );
    },
    10_000,
  );

  it('survives garbage: bad escapes, deep JSON, not HTTP at all, then still answers', async () => {
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
        call(api.url, 'POST', '/proxies', { name: pn('race'), listen: '127.0.0.1:0', upstream: upstream.address }),
      ),
    );
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 409, 409, 409, 409]);
  }, 10_000);
});

describeEmbeddedOnly("the embedded server's own lifecycle (started in this process)")('server lifecycle', () => {
  it('close() is safe twice and frees the API port and every proxy port', async () => {
    const own = await startEmbeddedApi(resources);
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
    await expect(startEmbeddedApi(resources, { port: api.port })).rejects.toThrow(
      /cannot start the embedded proxy API: .*address already in use/,
    );
    await expect(startEmbeddedApi(resources, { port: 70000 })).rejects.toThrow('port must be an integer from 0 to 65535');
    expect(await freePort()).toBeGreaterThan(0);
  }, 10_000);
});
