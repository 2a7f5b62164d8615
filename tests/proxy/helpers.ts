/**
 * Test helpers for the proxy suite: local TCP peers on port 0, a client socket that records
 * what it saw, an HTTP caller, and one place that closes everything after each test (even
 * when the test failed). Never ports 8474/25672: other people run things there.
 *
 * The suite is a conformance suite: with TOXIPROXY_CONFORMANCE_URL set it checks that server
 * (e.g. a real Toxiproxy) instead of an embedded one started per test. Proxy names then get a
 * prefix of this process (`pn('p')`), only those proxies are listed, touched and deleted, and
 * the checks that do not apply to real Toxiproxy (the embedded proxy's extensions and its
 * documented deliberate differences) are skipped with the reason in their title.
 */
import net, { type AddressInfo, type Socket } from 'node:net';
export { freePort } from '../support/ports';
export { eventually, sleep } from './waits';
import { startProxyServer, type ProxyServer, type ProxyServerOptions } from '../../src/proxy';
import { withTimeout } from './waits';
export { withTimeout };

/** The external server under test, if any (`TOXIPROXY_CONFORMANCE_URL`). */
export const EXTERNAL_URL: string | undefined = process.env.TOXIPROXY_CONFORMANCE_URL?.trim().replace(/\/+$/, '') || undefined;
export const EXTERNAL = EXTERNAL_URL !== undefined;
/** TOXIPROXY_CONFORMANCE_EXCLUSIVE=1: the external server is this run's alone, so server-wide calls (`/reset`) may be checked. */
export const EXCLUSIVE = process.env.TOXIPROXY_CONFORMANCE_EXCLUSIVE === '1';

/** Every HTTP call of the suite has a bound. */
const CALL_TIMEOUT_MS = 10_000;

/**
 * A proxy name for this test: as given against an embedded server, prefixed with this process
 * against an external one (shared with others: never touch their proxies).
 */
export function pn(name: string): string {
  return EXTERNAL ? `${OWN_PREFIX}${name}` : name;
}
const OWN_PREFIX = `conformance-${process.pid}-`;

/** Only this run's proxies out of a `GET /proxies` answer (all of them against an embedded server). */
export function ownProxies<T>(proxies: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(proxies).filter(([name]) => !EXTERNAL || name.startsWith(OWN_PREFIX)));
}

/** Real Toxiproxy 2.12 serializes each proxy's logger as `"Logger": {}`; documented, left out of comparisons. */
export function withoutLogger<T>(proxy: T): T {
  if (!proxy || typeof proxy !== 'object') return proxy;
  const { Logger: _logger, ...rest } = proxy as Record<string, unknown>;
  return rest as T;
}

/**
 * A Go error message as the embedded proxy words it. Against an external server the wording of
 * other Go releases is accepted too: Go's encoding/json and net errors changed between releases
 * (the reference Toxiproxy built here with Go 1.19 writes `number` without the literal, the field
 * path through `attributes.`, and `listen tcp:` without the address).
 */
export function goWording(message: string): unknown {
  if (!EXTERNAL) return message;
  const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const pattern = escape(message)
    .replace(/number [-\d]+(?:\\\.\d+)?/g, 'number(?: [-\\d.]+)?')
    .replace(/Go struct field (\w+)\\\.(\w+)/g, 'Go struct field $1\\.(?:attributes\\.)?$2')
    .replace(/^listen tcp [^:]+:/, 'listen tcp(?: \\S+)?:');
  return expect.stringMatching(new RegExp(`^${pattern}$`));
}

type TestFn = (name: string, fn: () => Promise<unknown>, timeout?: number) => void;

/**
 * `it` against the embedded server; against an external one the test is skipped with the reason
 * in its title (an extension of the embedded proxy, or a documented deliberate difference).
 */
export function embeddedOnly(reason: string): TestFn & { each: typeof it.each } {
  if (!EXTERNAL) return it;
  const label = (name: string) => `${name} [not checked against ${EXTERNAL_URL}: ${reason}]`;
  const skip: TestFn = (name, fn, timeout) => it.skip(label(name), fn, timeout);
  const each = ((table: readonly unknown[]) => (name: string, fn: (...args: never[]) => unknown, timeout?: number) =>
    it.skip.each(table as unknown[][])(label(name), fn as never, timeout)) as unknown as typeof it.each;
  return Object.assign(skip, { each });
}

/** `describe` against the embedded server, `describe.skip` (reason in the title) against an external one. */
export function describeEmbeddedOnly(reason: string): (name: string, body: () => void) => void {
  return EXTERNAL ? (name, body) => describe.skip(`${name} [not checked against ${EXTERNAL_URL}: ${reason}]`, body) : describe;
}

/** The server a conformance test talks to. */
export interface ConformanceApi {
  readonly url: string;
  readonly port: number;
}

type Closer = () => Promise<void> | void;

/** Everything a test opened; `closeAll()` in afterEach releases it in reverse order. */
export class Resources {
  private closers: Closer[] = [];

  add(closer: Closer): void {
    this.closers.push(closer);
  }

  async closeAll(): Promise<void> {
    const closers = this.closers.reverse();
    this.closers = [];
    for (const closer of closers) await Promise.resolve(closer()).catch(() => undefined);
  }
}

/**
 * The server under test: a fresh embedded one on port 0, or the external one (whose proxies of
 * this process are deleted after the test). Options are for the embedded server only.
 */
export async function startApi(resources: Resources, options: ProxyServerOptions = {}): Promise<ConformanceApi> {
  if (!EXTERNAL_URL) return startEmbeddedApi(resources, options);
  if (Object.keys(options).length > 0) throw new Error('embedded-server options cannot apply to an external server: use embeddedOnly()');
  const url = EXTERNAL_URL;
  resources.add(() => deleteOwnProxies(url));
  return { url, port: Number(new URL(url).port || 80) };
}

/** Always an embedded server (its own lifecycle and options are what the test checks). */
export async function startEmbeddedApi(resources: Resources, options: ProxyServerOptions = {}): Promise<ProxyServer> {
  const server = await startProxyServer({ host: '127.0.0.1', port: 0, ...options });
  resources.add(() => server.close());
  return server;
}

async function deleteOwnProxies(baseUrl: string): Promise<void> {
  const answer = await call(baseUrl, 'GET', '/proxies');
  for (const name of Object.keys(ownProxies(answer.json ?? {}))) await call(baseUrl, 'DELETE', `/proxies/${encodeURIComponent(name)}`);
}

export interface ApiAnswer {
  readonly status: number;
  readonly contentType: string | null;
  readonly text: string;
  /** The parsed body (undefined when empty). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are checked field by field against literals
  readonly json: any;
}

/** One HTTP call; a string body is sent as is (to test malformed JSON). */
export async function call(
  baseUrl: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<ApiAnswer> {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { 'Content-Type': 'application/json', ...headers },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
  });
  const text = await response.text();
  return { status: response.status, contentType: response.headers.get('content-type'), text, json: parseJson(text) };
}

/** JSON bodies whatever their Content-Type (real Toxiproxy sends its JSON errors as text/plain); undefined for plain text. */
function parseJson(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export interface TcpPeer {
  readonly port: number;
  readonly address: string;
  /** Server-side sockets accepted so far. */
  readonly sockets: Socket[];
  /** Resolves with the next accepted socket (or one already accepted and not yet taken). */
  nextSocket(timeoutMs?: number): Promise<Socket>;
}

/** A TCP server on 127.0.0.1:0; `onSocket` scripts its behaviour (default: echo). */
export async function startPeer(
  resources: Resources,
  onSocket: (socket: Socket) => void = (socket) => socket.pipe(socket),
): Promise<TcpPeer> {
  const sockets: Socket[] = [];
  let taken = 0;
  const waiters: Array<(socket: Socket) => void> = [];
  const server = net.createServer({ allowHalfOpen: true }, (socket) => {
    socket.on('error', () => undefined); // resets are what several tests provoke
    sockets.push(socket);
    onSocket(socket);
    waiters.shift()?.(sockets[taken++]!);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  resources.add(
    () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  );
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    address: `127.0.0.1:${port}`,
    sockets,
    nextSocket: (timeoutMs = 5000) =>
      taken < sockets.length
        ? Promise.resolve(sockets[taken++]!)
        : withTimeout(new Promise<Socket>((resolve) => waiters.push(resolve)), timeoutMs, 'no connection reached the upstream'),
  };
}

/** A client socket that keeps what it received and how it ended. */
export class Client {
  received = Buffer.alloc(0);
  dataEvents = 0;
  error: NodeJS.ErrnoException | undefined;
  endedAtMs: number | undefined;
  readonly closed: Promise<{ readonly hadError: boolean; readonly atMs: number }>;

  constructor(readonly socket: Socket) {
    socket.on('data', (data: Buffer) => {
      this.received = Buffer.concat([this.received, data]);
      this.dataEvents += 1;
    });
    socket.on('end', () => (this.endedAtMs = performance.now()));
    socket.on('error', (error) => (this.error = error));
    this.closed = new Promise((resolve) => socket.on('close', (hadError) => resolve({ hadError, atMs: performance.now() })));
  }

  /** Resolves when at least `bytes` bytes have arrived in total. */
  waitForBytes(bytes: number, timeoutMs = 5000): Promise<Buffer> {
    return withTimeout(
      new Promise<Buffer>((resolve) => {
        const check = (): void => {
          if (this.received.length < bytes) return;
          this.socket.off('data', check);
          resolve(this.received);
        };
        this.socket.on('data', check);
        check();
      }),
      timeoutMs,
      `expected ${bytes} bytes, got ${this.received.length}`,
    );
  }

  waitForClose(timeoutMs = 5000): Promise<{ readonly hadError: boolean; readonly atMs: number }> {
    return withTimeout(this.closed, timeoutMs, 'the connection did not close');
  }
}

export async function connect(resources: Resources, port: number, host = '127.0.0.1'): Promise<Client> {
  const socket = net.connect({ port, host }); // like real clients: a FIN received ends our side too
  resources.add(() => void socket.destroy());
  const client = new Client(socket);
  await withTimeout(new Promise((resolve, reject) => socket.once('connect', resolve).once('error', reject)), 5000, 'connect timed out');
  return client;
}

/** Port of a proxy's `listen` (`127.0.0.1:41234`). */
export function portOf(listen: string): number {
  return Number(listen.slice(listen.lastIndexOf(':') + 1));
}

/** Creates a proxy on a free port in front of `upstream`; returns its listen port. */
export async function createProxy(baseUrl: string, name: string, upstream: string): Promise<number> {
  const answer = await call(baseUrl, 'POST', '/proxies', { name, listen: '127.0.0.1:0', upstream });
  if (answer.status !== 201) throw new Error(`proxy creation failed: ${answer.status} ${answer.text}`);
  return portOf(answer.json.listen);
}

export async function addToxic(baseUrl: string, proxy: string, toxic: Record<string, unknown>): Promise<ApiAnswer> {
  const answer = await call(baseUrl, 'POST', `/proxies/${proxy}/toxics`, toxic);
  if (answer.status !== 200) throw new Error(`toxic creation failed: ${answer.status} ${answer.text}`);
  return answer;
}

/** Echo round trip through a connected client: ms from write to the last byte back. */
export async function roundTripMs(client: Client, payload: Buffer | string, timeoutMs = 5000): Promise<number> {
  const data = Buffer.from(payload);
  const expected = client.received.length + data.length;
  const startedMs = performance.now();
  client.socket.write(data);
  await client.waitForBytes(expected, timeoutMs);
  return performance.now() - startedMs;
}
