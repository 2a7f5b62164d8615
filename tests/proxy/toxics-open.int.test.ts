/**
 * Toxics reaching connections that are already open: added, updated, removed (removal
 * flushes what they hold), chained in insertion order, one stream at a time.
 */
import type { Socket } from 'node:net';
import {
  addToxic,
  call,
  connect,
  createProxy,
  pn,
  Resources,
  roundTripMs,
  sleep,
  startApi,
  startPeer,
  type ConformanceApi,
  type TcpPeer,
} from './helpers';

const resources = new Resources();
let api: ConformanceApi;
let echo: TcpPeer;
let port: number;

beforeEach(async () => {
  api = await startApi(resources);
  echo = await startPeer(resources);
  port = await createProxy(api.url, pn('p'), echo.address);
});
afterEach(() => resources.closeAll());

describe('toxics on open connections', () => {
  it('an added toxic applies to an open connection; its removal restores it', async () => {
    const client = await connect(resources, port);
    expect(await roundTripMs(client, 'a')).toBeLessThan(300);
    await addToxic(api.url, pn('p'), { type: 'latency', attributes: { latency: 300 } });
    expect(await roundTripMs(client, 'b')).toBeGreaterThanOrEqual(280);
    await call(api.url, 'DELETE', `/proxies/${pn('p')}/toxics/latency_downstream`);
    expect(await roundTripMs(client, 'c')).toBeLessThan(300);
  }, 15_000);

  it('an update changes an open connection at once', async () => {
    await addToxic(api.url, pn('p'), { type: 'latency', attributes: { latency: 50 } });
    const client = await connect(resources, port);
    expect(await roundTripMs(client, 'a')).toBeLessThan(400);
    await call(api.url, 'PATCH', `/proxies/${pn('p')}/toxics/latency_downstream`, { attributes: { latency: 400 } });
    expect(await roundTripMs(client, 'b')).toBeGreaterThanOrEqual(380);
  }, 15_000);

  it('an update releases what a latency toxic holds under the new latency (5 s, set to 0 after 200 ms)', async () => {
    await addToxic(api.url, pn('p'), { type: 'latency', attributes: { latency: 5000 } });
    const client = await connect(resources, port);
    const startedMs = performance.now();
    client.socket.write('held');
    await sleep(200);
    client.socket.write('also held');
    await sleep(100);
    expect(client.received.length).toBe(0);
    await call(api.url, 'POST', `/proxies/${pn('p')}/toxics/latency_downstream`, { attributes: { latency: 0 } });
    await client.waitForBytes(13, 2000);
    expect(client.received.toString()).toBe('heldalso held');
    expect(performance.now() - startedMs).toBeLessThan(1500);
  }, 15_000);

  it('removal flushes what a toxic holds at once (latency 5 s, removed after 200 ms)', async () => {
    await addToxic(api.url, pn('p'), { type: 'latency', attributes: { latency: 5000 } });
    const client = await connect(resources, port);
    const startedMs = performance.now();
    client.socket.write('held');
    await sleep(200);
    expect(client.received.length).toBe(0);
    await call(api.url, 'DELETE', `/proxies/${pn('p')}/toxics/latency_downstream`);
    await client.waitForBytes(4, 2000);
    expect(performance.now() - startedMs).toBeLessThan(1500);
  }, 15_000);

  it('removal of a bandwidth toxic releases the queued bytes at once', async () => {
    await addToxic(api.url, pn('p'), { type: 'bandwidth', attributes: { rate: 1 } });
    const client = await connect(resources, port);
    client.socket.write(Buffer.alloc(50_000, 3));
    await sleep(300);
    expect(client.received.length).toBeLessThan(50_000);
    await call(api.url, 'DELETE', `/proxies/${pn('p')}/toxics/bandwidth_downstream`);
    await client.waitForBytes(50_000, 2000);
  }, 15_000);

  it('toxics chain in insertion order within a direction', async () => {
    await addToxic(api.url, pn('p'), { type: 'limit_data', attributes: { bytes: 5 } });
    await addToxic(api.url, pn('p'), { type: 'latency', attributes: { latency: 200 } });
    const client = await connect(resources, port);
    const startedMs = performance.now();
    client.socket.write('0123456789');
    const closed = await client.waitForClose();
    expect(client.received.toString()).toBe('01234');
    expect(closed.atMs - startedMs).toBeGreaterThanOrEqual(180); // the close waits behind the delayed bytes
  }, 15_000);

  it('a toxic on one stream leaves the other alone', async () => {
    const sink: Socket[] = [];
    const upstream = await startPeer(resources, (socket) => {
      sink.push(socket);
      socket.on('data', () => undefined);
    });
    const sinkPort = await createProxy(api.url, pn('sink'), upstream.address);
    await addToxic(api.url, pn('sink'), { type: 'timeout', stream: 'upstream' });
    const client = await connect(resources, sinkPort);
    await upstream.nextSocket();
    sink[0]!.write('downstream still flows');
    await client.waitForBytes(22);
  }, 15_000);
});
