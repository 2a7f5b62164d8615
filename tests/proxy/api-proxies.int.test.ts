/**
 * Conformance of the proxy endpoints with Toxiproxy 2.x over real HTTP: status codes, bodies,
 * error messages, defaults and check order, as in Toxiproxy's api.go.
 */
import {
  addToxic,
  call,
  connect,
  createProxy,
  goWording,
  ownProxies,
  pn,
  portOf,
  Resources,
  startApi,
  startPeer,
  withoutLogger,
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

describe('GET /proxies', () => {
  it('answers 200 {} as JSON when there is no proxy', async () => {
    const answer = await call(api.url, 'GET', '/proxies');
    expect(answer.status).toBe(200);
    expect(answer.contentType).toBe('application/json');
    expect(ownProxies(answer.json)).toEqual({});
  }, 10_000);

  it('lists proxies keyed by name, each with its toxics', async () => {
    await createProxy(api.url, pn('one'), upstream.address);
    await addToxic(api.url, pn('one'), { type: 'noop' });
    const answer = await call(api.url, 'GET', '/proxies');
    expect(Object.keys(ownProxies(answer.json))).toEqual([pn('one')]);
    expect(answer.json[pn('one')]).toMatchObject({ name: pn('one'), upstream: upstream.address, enabled: true });
    expect(answer.json[pn('one')].toxics).toEqual([
      { name: 'noop_downstream', type: 'noop', stream: 'downstream', toxicity: 1, attributes: {} },
    ]);
  }, 10_000);
});

describe('POST /proxies', () => {
  it('creates and starts a proxy: 201, the real bound address, enabled by default', async () => {
    const answer = await call(api.url, 'POST', '/proxies', { name: pn('rabbit'), listen: '127.0.0.1:0', upstream: upstream.address });
    expect(answer.status).toBe(201);
    expect(answer.contentType).toBe('application/json');
    expect(withoutLogger(answer.json)).toEqual({
      name: pn('rabbit'),
      listen: expect.stringMatching(/^127\.0\.0\.1:\d+$/),
      upstream: upstream.address,
      enabled: true,
      toxics: [],
    });
    expect(portOf(answer.json.listen)).toBeGreaterThan(0);
    expect(await isListening(portOf(answer.json.listen))).toBe(true);
  }, 10_000);

  it('listens on every interface and a free port when listen is omitted, as Go does', async () => {
    const answer = await call(api.url, 'POST', '/proxies', { name: pn('anywhere'), upstream: upstream.address });
    expect(answer.status).toBe(201);
    expect(answer.json.listen).toMatch(/^(\[::\]|0\.0\.0\.0):\d+$/);
    expect(await isListening(portOf(answer.json.listen))).toBe(true);
  }, 10_000);

  it('keeps a disabled proxy unbound, with listen as given', async () => {
    const answer = await call(api.url, 'POST', '/proxies', {
      name: pn('off'),
      listen: '127.0.0.1:0',
      upstream: upstream.address,
      enabled: false,
    });
    expect(answer.status).toBe(201);
    expect(answer.json).toMatchObject({ listen: '127.0.0.1:0', enabled: false });
  }, 10_000);

  it('ignores unknown fields and matches field names case-insensitively, as Go does', async () => {
    const answer = await call(api.url, 'POST', '/proxies', {
      NAME: pn('caps'),
      Listen: '127.0.0.1:0',
      upstream: upstream.address,
      colour: 'blue',
    });
    expect(answer.status).toBe(201);
    expect(answer.json).toMatchObject({ name: pn('caps') });
    expect(answer.json).not.toHaveProperty('colour');
  }, 10_000);

  it.each([
    ['an empty body', '', 'bad request body: EOF'],
    [
      'a number for name',
      { name: 5, upstream: 'x:1' },
      'bad request body: json: cannot unmarshal number 5 into Go struct field Proxy.name of type string',
    ],
    [
      'a string for enabled',
      { name: 'a', upstream: 'x:1', enabled: 'yes' },
      'bad request body: json: cannot unmarshal string into Go struct field Proxy.enabled of type bool',
    ],
    ['an array body', [], 'bad request body: json: cannot unmarshal array into Go value of type toxiproxy.Proxy'],
    ['no name', { upstream: 'x:1' }, 'missing required field: name'],
    ['no upstream', { name: 'a' }, 'missing required field: upstream'],
    ['an empty name', { name: '', upstream: 'x:1' }, 'missing required field: name'],
  ])(
    'answers 400 for %s',
    async (_case, body, message) => {
      const answer = await call(api.url, 'POST', '/proxies', body);
      expect(answer.status).toBe(400);
      expect(answer.json).toEqual({ error: goWording(message), status: 400 });
    },
    10_000,
  );

  it('answers 400 "bad request body: ..." for malformed JSON', async () => {
    const answer = await call(api.url, 'POST', '/proxies', '{"name": ');
    expect(answer.status).toBe(400);
    expect(answer.json.error).toMatch(/^bad request body: /);
  }, 10_000);

  it('checks the body, name and upstream before the duplicate (409)', async () => {
    await createProxy(api.url, pn('dup'), upstream.address);
    expect((await call(api.url, 'POST', '/proxies', { name: pn('dup') })).json.error).toBe('missing required field: upstream');
    const duplicate = await call(api.url, 'POST', '/proxies', { name: pn('dup'), listen: '127.0.0.1:0', upstream: upstream.address });
    expect(duplicate.status).toBe(409);
    expect(duplicate.json).toEqual({ error: 'proxy already exists', status: 409 });
  }, 10_000);

  it('answers 500 with the system message when it cannot listen, and does not add the proxy', async () => {
    const taken = await call(api.url, 'POST', '/proxies', { name: pn('clash'), listen: upstream.address, upstream: upstream.address });
    expect(taken.status).toBe(500);
    expect(taken.json).toEqual({ error: `listen tcp ${upstream.address}: bind: address already in use`, status: 500 });
    expect((await call(api.url, 'GET', `/proxies/${pn('clash')}`)).status).toBe(404);

    const noPort = await call(api.url, 'POST', '/proxies', { name: pn('bad'), listen: 'localhost', upstream: upstream.address });
    expect(noPort.json).toEqual({ error: goWording('listen tcp localhost: address localhost: missing port in address'), status: 500 });
  }, 10_000);
});

describe('GET /proxies/{proxy}', () => {
  it('answers 200 with the proxy, 404 "proxy not found" otherwise', async () => {
    await createProxy(api.url, pn('shown'), upstream.address);
    const found = await call(api.url, 'GET', `/proxies/${pn('shown')}`);
    expect(found.status).toBe(200);
    expect(found.json).toMatchObject({ name: pn('shown'), enabled: true, toxics: [] });
    const missing = await call(api.url, 'GET', `/proxies/${pn('absent')}`);
    expect(missing.status).toBe(404);
    expect(missing.json).toEqual({ error: 'proxy not found', status: 404 });
  }, 10_000);
});

describe('POST and PATCH /proxies/{proxy}', () => {
  it.each(['POST', 'PATCH'])(
    '%s enabled=false closes the listener and every open connection; true listens again on the same port',
    async (method) => {
      const port = await createProxy(api.url, pn('flip'), upstream.address);
      const client = await connect(resources, port);
      const disabled = await call(api.url, method, `/proxies/${pn('flip')}`, { enabled: false });
      expect(disabled.status).toBe(200);
      expect(disabled.json).toMatchObject({ name: pn('flip'), enabled: false, listen: `127.0.0.1:${port}`, upstream: upstream.address });
      await client.waitForClose();
      expect(await isListening(port)).toBe(false);

      const enabled = await call(api.url, method, `/proxies/${pn('flip')}`, { enabled: true });
      expect(enabled.json).toMatchObject({ enabled: true, listen: `127.0.0.1:${port}` });
      expect(await isListening(port)).toBe(true);
    },
    15_000,
  );

  it('keeps omitted fields, and restarts (closing connections) when the upstream changes', async () => {
    const port = await createProxy(api.url, pn('moving'), upstream.address);
    const client = await connect(resources, port);
    const other = await startPeer(resources);
    const kept = await call(api.url, 'PATCH', `/proxies/${pn('moving')}`, {});
    expect(kept.json).toMatchObject({ listen: `127.0.0.1:${port}`, upstream: upstream.address, enabled: true });
    const moved = await call(api.url, 'PATCH', `/proxies/${pn('moving')}`, { upstream: other.address });
    expect(moved.status).toBe(200);
    expect(moved.json).toMatchObject({ upstream: other.address, enabled: true, listen: `127.0.0.1:${port}` });
    await client.waitForClose();
    const again = await connect(resources, port);
    again.socket.write('x');
    await other.nextSocket();
  }, 15_000);

  it('answers 404 for an unknown proxy (before reading the body) and 400 for a bad body', async () => {
    expect((await call(api.url, 'PATCH', `/proxies/${pn('absent')}`, '{bad')).json).toEqual({ error: 'proxy not found', status: 404 });
    await createProxy(api.url, pn('typed'), upstream.address);
    const answer = await call(api.url, 'PATCH', `/proxies/${pn('typed')}`, { enabled: 1 });
    expect(answer.json).toEqual({
      error: goWording('bad request body: json: cannot unmarshal number 1 into Go struct field Proxy.enabled of type bool'),
      status: 400,
    });
  }, 10_000);

  it('answers 500 when the new listen address cannot be bound, leaving the proxy disabled', async () => {
    await createProxy(api.url, pn('rebind'), upstream.address);
    const answer = await call(api.url, 'PATCH', `/proxies/${pn('rebind')}`, { listen: upstream.address });
    expect(answer).toMatchObject({ status: 500, json: { error: `listen tcp ${upstream.address}: bind: address already in use` } });
    expect((await call(api.url, 'GET', `/proxies/${pn('rebind')}`)).json).toMatchObject({ enabled: false, listen: upstream.address });
  }, 10_000);
});

describe('DELETE /proxies/{proxy}', () => {
  it('stops and removes it: 204 with no body, then 404', async () => {
    const port = await createProxy(api.url, pn('gone'), upstream.address);
    const client = await connect(resources, port);
    const answer = await call(api.url, 'DELETE', `/proxies/${pn('gone')}`);
    expect(answer.status).toBe(204);
    expect(answer.text).toBe('');
    await client.waitForClose();
    expect(await isListening(port)).toBe(false);
    expect((await call(api.url, 'GET', `/proxies/${pn('gone')}`)).status).toBe(404);
    expect((await call(api.url, 'DELETE', `/proxies/${pn('gone')}`)).json).toEqual({ error: 'proxy not found', status: 404 });
  }, 10_000);
});
