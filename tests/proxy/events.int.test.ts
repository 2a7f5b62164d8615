/**
 * The fault timeline extension: `GET/DELETE /proxies/{p}/events` and `GET /proxies/{p}/connections`.
 * Times are process.hrtime.bigint() nanoseconds as decimal strings.
 */
import type { ProxyServer } from '../../src/proxy';
import {
  describeEmbeddedOnly,
  addToxic,
  call,
  connect,
  createProxy,
  eventually,
  Resources,
  sleep,
  startEmbeddedApi,
  startPeer,
  type ApiAnswer,
  type TcpPeer,
} from './helpers';

const resources = new Resources();
let api: ProxyServer;
let echo: TcpPeer;
let port: number;

beforeEach(async () => {
  api = await startEmbeddedApi(resources);
  echo = await startPeer(resources);
  port = await createProxy(api.url, 'p', echo.address);
});
afterEach(() => resources.closeAll());

async function events(query = ''): Promise<ApiAnswer['json'][]> {
  const answer = await call(api.url, 'GET', `/proxies/p/events${query}`);
  expect(answer.status).toBe(200);
  return answer.json.events;
}

const extensionOnly = describeEmbeddedOnly('extension of the embedded proxy (the fault timeline); Toxiproxy answers 404');

extensionOnly('GET /proxies/{proxy}/events', () => {
  it('starts empty, with the current time of the proxy clock', async () => {
    const before = process.hrtime.bigint();
    const answer = await call(api.url, 'GET', '/proxies/p/events');
    expect(answer.json).toEqual({ proxy: 'p', now_ns: expect.stringMatching(/^\d+$/), dropped_events: 0, events: [] });
    expect(BigInt(answer.json.now_ns)).toBeGreaterThan(before);
  }, 10_000);

  it('records when reset_peer really sent the RST, bracketed by the client seeing it', async () => {
    const client = await connect(resources, port);
    await addToxic(api.url, 'p', { type: 'reset_peer' });
    const injectedAt = process.hrtime.bigint();
    client.socket.write('trigger');
    await client.waitForClose();
    const seenAt = process.hrtime.bigint();
    const [event] = await events();
    expect(event).toEqual({
      seq: 1,
      at_ns: expect.stringMatching(/^\d+$/),
      proxy: 'p',
      toxic: 'reset_peer_downstream',
      toxic_type: 'reset_peer',
      stream: 'downstream',
      connection_id: expect.any(Number),
      kind: 'reset_sent',
      detail: {},
    });
    expect(BigInt(event.at_ns)).toBeGreaterThan(injectedAt);
    expect(BigInt(event.at_ns)).toBeLessThan(seenAt);
  }, 10_000);

  it('records timeout closes, limits, slow closes and the first dropped data', async () => {
    await addToxic(api.url, 'p', { type: 'limit_data', stream: 'upstream', attributes: { bytes: 3 } });
    const limited = await connect(resources, port);
    limited.socket.write('abcdef');
    await limited.waitForClose();
    await call(api.url, 'DELETE', '/proxies/p/toxics/limit_data_upstream');

    await addToxic(api.url, 'p', { type: 'timeout', attributes: { timeout: 200 } });
    const partitioned = await connect(resources, port);
    partitioned.socket.write('dropped');
    await partitioned.waitForClose();
    await call(api.url, 'DELETE', '/proxies/p/toxics/timeout_downstream');

    const closer = await startPeer(resources, (socket) => socket.end());
    const closerPort = await createProxy(api.url, 'closer', closer.address);
    await addToxic(api.url, 'closer', { type: 'slow_close', attributes: { delay: 100 } });
    await (await connect(resources, closerPort)).waitForClose();

    const kinds = (await events()).map((event) => `${event.toxic_type}:${event.kind}`);
    expect(kinds).toEqual(['limit_data:limit_reached', 'timeout:data_dropped', 'timeout:timeout_closed']);
    const closerEvents = (await call(api.url, 'GET', '/proxies/closer/events')).json.events;
    expect(closerEvents.map((event: { kind: string }) => event.kind)).toEqual(['slow_close_fired']);
    expect(closerEvents[0].detail).toEqual({ delay_ms: 100 });
  }, 15_000);

  it('records the close caused by removing a timeout toxic', async () => {
    const client = await connect(resources, port);
    await addToxic(api.url, 'p', { type: 'timeout' });
    await sleep(50);
    await call(api.url, 'DELETE', '/proxies/p/toxics/timeout_downstream');
    await client.waitForClose();
    expect((await events()).map((event) => event.kind)).toEqual(['timeout_removed_closed']);
  }, 10_000);

  it('filters with ?since=<ns> (events at or after), and refuses a bad since with 400', async () => {
    await addToxic(api.url, 'p', { type: 'reset_peer' });
    await (async () => {
      const client = await connect(resources, port);
      client.socket.write('x');
      await client.waitForClose();
    })();
    const middle = process.hrtime.bigint();
    const client = await connect(resources, port);
    client.socket.write('y');
    await client.waitForClose();
    const all = await events();
    expect(all).toHaveLength(2);
    const recent = await events(`?since=${middle}`);
    expect(recent.map((event) => event.seq)).toEqual([2]);
    expect(await events(`?since=${all[0].at_ns}`)).toHaveLength(2);
    const bad = await call(api.url, 'GET', '/proxies/p/events?since=yesterday');
    expect(bad.status).toBe(400);
    expect(bad.json.error).toMatch(/^bad request: since must be nanoseconds/);
  }, 10_000);

  it('DELETE clears them (204), sequence numbers keep increasing; unknown proxy is 404', async () => {
    await addToxic(api.url, 'p', { type: 'reset_peer' });
    const first = await connect(resources, port);
    first.socket.write('x');
    await first.waitForClose();
    expect(await events()).toHaveLength(1);
    const cleared = await call(api.url, 'DELETE', '/proxies/p/events');
    expect(cleared.status).toBe(204);
    expect(await events()).toEqual([]);
    const second = await connect(resources, port);
    second.socket.write('x');
    await second.waitForClose();
    expect((await events()).map((event) => event.seq)).toEqual([2]);
    expect((await call(api.url, 'GET', '/proxies/absent/events')).json).toEqual({ error: 'proxy not found', status: 404 });
    expect((await call(api.url, 'DELETE', '/proxies/absent/events')).status).toBe(404);
    expect((await call(api.url, 'POST', '/proxies/p/events')).status).toBe(405);
  }, 10_000);

  it('keeps events when toxics are reset, and bounds the stored number', async () => {
    const small = await startEmbeddedApi(resources, { maxEventsPerProxy: 2 });
    const smallPort = await createProxy(small.url, 'q', echo.address);
    await addToxic(small.url, 'q', { type: 'reset_peer' });
    for (let i = 0; i < 3; i += 1) {
      const client = await connect(resources, smallPort);
      client.socket.write('x');
      await client.waitForClose();
    }
    await call(small.url, 'POST', '/reset');
    const answer = (await call(small.url, 'GET', '/proxies/q/events')).json;
    expect(answer.events.map((event: { seq: number }) => event.seq)).toEqual([2, 3]);
    expect(answer.dropped_events).toBe(1);
  }, 15_000);
});

extensionOnly('GET /proxies/{proxy}/connections', () => {
  it('lists each connection with open/close times, reason and bytes', async () => {
    const before = process.hrtime.bigint();
    const client = await connect(resources, port);
    client.socket.write('12345');
    await client.waitForBytes(5);
    let [open] = (await call(api.url, 'GET', '/proxies/p/connections')).json.connections;
    expect(open).toMatchObject({
      id: expect.any(Number),
      client: expect.stringMatching(/^127\.0\.0\.1:\d+$/),
      upstream: echo.address,
      closed_at_ns: null,
      close_reason: null,
      bytes_upstream: 5,
      bytes_downstream: 5,
    });
    expect(BigInt(open.opened_at_ns)).toBeGreaterThan(before);
    expect(BigInt(open.upstream_connected_at_ns)).toBeGreaterThanOrEqual(BigInt(open.opened_at_ns));
    client.socket.end();
    await client.waitForClose();
    await eventually(async () => {
      [open] = (await call(api.url, 'GET', '/proxies/p/connections')).json.connections;
      return open.closed_at_ns !== null;
    });
    expect(open.close_reason).toBe('client_closed');
    expect(BigInt(open.closed_at_ns)).toBeGreaterThan(BigInt(open.opened_at_ns));
  }, 10_000);
});
