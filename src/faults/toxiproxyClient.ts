/**
 * A small Toxiproxy HTTP client (axios). Works against real Toxiproxy 2.x and against the
 * embedded proxy alike; the fault timeline (`events`) is an extension only the embedded one has.
 *
 * Every call has a bound (`timeoutMs`, or a shorter one per call). A call that gets no answer in
 * time is diagnosed before it is reported: a server that still answers `GET /version` but not
 * `GET /proxies` is wedged (real Toxiproxy deadlocks on some toxic removals,
 * Shopify/toxiproxy#558 and #412), which is said in one line instead of "start the proxy".
 */
import http from 'node:http';
import axios, { AxiosError, type AxiosInstance } from 'axios';
import { ProxyError } from '../errors';
import type { ConnectionJson, FaultEvent, ProxyConnection, ProxyInfo, ProxyServerIdentity, Toxic, ToxicSpec } from './proxyApiTypes';

export { describeProxyServer } from './proxyApiTypes';
export type { FaultEvent, ProxyConnection, ProxyInfo, ProxyServerIdentity, Stream, Toxic, ToxicSpec } from './proxyApiTypes';

export interface ToxiproxyClientOptions {
  /** Bound on every call that does not name its own. @default 5000 */
  readonly timeoutMs?: number;
}

/** How a server that did not answer a call in time answers a short probe. */
export type UnansweredDiagnosis = 'answers' | 'wedged' | 'unreachable';

/** A call got no answer within its bound; `diagnosis` says what the server still answers. */
export class ProxyCallTimeoutError extends ProxyError {
  readonly diagnosis: UnansweredDiagnosis;

  constructor(message: string, diagnosis: UnansweredDiagnosis, options?: { cause?: unknown }) {
    super('PROXY_UNREACHABLE', message, undefined, options);
    this.diagnosis = diagnosis;
  }
}

/** Bound of the two probes that tell a wedged server from a gone one. */
const PROBE_TIMEOUT_MS = 1000;

type Method = 'get' | 'post' | 'patch' | 'delete';

export class ToxiproxyClient {
  readonly apiUrl: string;
  readonly timeoutMs: number;
  private readonly http: AxiosInstance;
  private identity: Promise<ProxyServerIdentity> | undefined;
  /** listen/upstream of every entry seen in an answer: what re-creating an entry needs when the server no longer lists it. */
  private readonly entries = new Map<string, { readonly listen: string; readonly upstream: string }>();

  constructor(apiUrl: string, options: ToxiproxyClientOptions = {}) {
    this.apiUrl = apiUrl.replace(/\/+$/, '');
    this.timeoutMs = options.timeoutMs ?? 5000;
    this.http = axios.create({
      baseURL: this.apiUrl,
      timeout: this.timeoutMs,
      headers: { 'Content-Type': 'application/json', 'User-Agent': 'amqp-bench' },
      // Keep-alive would hold a socket open past the test; each call is cheap on loopback.
      httpAgent: new http.Agent({ keepAlive: false }),
    });
  }

  version(): Promise<string> {
    return this.call('get', '/version').then((body) => String((body as { version?: unknown }).version ?? body));
  }

  /** Which server this is (asked once per client; `/version` with or without the extensions list). */
  identify(): Promise<ProxyServerIdentity> {
    this.identity ??= this.call<{ version?: unknown; extensions?: unknown }>('get', '/version').then((body) => {
      const extensions = Array.isArray(body.extensions) ? body.extensions.map(String) : [];
      return { kind: extensions.includes('events') ? 'embedded' : 'toxiproxy', version: String(body.version ?? 'unknown'), extensions };
    });
    this.identity.catch(() => (this.identity = undefined));
    return this.identity;
  }

  async listProxies(): Promise<Record<string, ProxyInfo>> {
    const proxies = await this.call<Record<string, ProxyInfo>>('get', '/proxies');
    for (const proxy of Object.values(proxies)) this.remember(proxy);
    return proxies;
  }

  async getProxy(name: string, timeoutMs?: number): Promise<ProxyInfo> {
    return this.remember(await this.call('get', `/proxies/${encodeURIComponent(name)}`, undefined, timeoutMs));
  }

  async createProxy(body: { name: string; listen: string; upstream: string; enabled?: boolean }, timeoutMs?: number): Promise<ProxyInfo> {
    return this.remember(await this.call('post', '/proxies', body, timeoutMs));
  }

  async updateProxy(name: string, body: Partial<{ listen: string; upstream: string; enabled: boolean }>): Promise<ProxyInfo> {
    return this.remember(await this.call('patch', `/proxies/${encodeURIComponent(name)}`, body));
  }

  async deleteProxy(name: string, timeoutMs?: number): Promise<void> {
    await this.call('delete', `/proxies/${encodeURIComponent(name)}`, undefined, timeoutMs);
  }

  /** listen and upstream of an entry as last seen in an answer of this client, if any. */
  knownEntry(name: string): { readonly listen: string; readonly upstream: string } | undefined {
    return this.entries.get(name);
  }

  addToxic(proxy: string, spec: ToxicSpec): Promise<Toxic> {
    return this.call('post', `/proxies/${encodeURIComponent(proxy)}/toxics`, spec);
  }

  /**
   * Toxiproxy's update: attributes merged, toxicity replaced when given. PATCH, which Toxiproxy
   * 2.12 prefers (it logs POST as deprecated); the embedded proxy takes both.
   */
  updateToxic(
    proxy: string,
    toxic: string,
    change: { readonly toxicity?: number; readonly attributes?: Readonly<Record<string, number>> },
    timeoutMs?: number,
  ): Promise<Toxic> {
    return this.call('patch', `/proxies/${encodeURIComponent(proxy)}/toxics/${encodeURIComponent(toxic)}`, change, timeoutMs);
  }

  listToxics(proxy: string): Promise<Toxic[]> {
    return this.call('get', `/proxies/${encodeURIComponent(proxy)}/toxics`);
  }

  async removeToxic(proxy: string, toxic: string, timeoutMs?: number): Promise<void> {
    await this.call('delete', `/proxies/${encodeURIComponent(proxy)}/toxics/${encodeURIComponent(toxic)}`, undefined, timeoutMs);
  }

  async reset(): Promise<void> {
    await this.call('post', '/reset');
  }

  /** The fault timeline since `sinceNs`; `null` when the API has no timeline (real Toxiproxy). */
  async events(proxy: string, sinceNs?: bigint): Promise<FaultEvent[] | null> {
    const base = `/proxies/${encodeURIComponent(proxy)}`;
    try {
      const query = sinceNs === undefined ? '' : `?since=${sinceNs}`;
      const [timeline, connections] = await Promise.all([
        this.call<{ events: FaultEvent[] }>('get', `${base}/events${query}`),
        this.call<{ connections: ConnectionJson[] } | ConnectionJson[]>('get', `${base}/connections`).catch(() => []),
      ]);
      const list = Array.isArray(connections) ? connections : (connections.connections ?? []);
      const clientById = new Map(list.map((connection) => [connection.id, connection.client]));
      return timeline.events.map((event) => ({
        ...event,
        client: event.connection_id === undefined ? undefined : clientById.get(event.connection_id),
      }));
    } catch (error) {
      if (error instanceof ProxyError && (error.status === 404 || error.status === 405)) return null;
      throw error;
    }
  }

  /**
   * What a server that left a call unanswered still answers: `wedged` when `/version` answers
   * and `/proxies` does not (each probe bounded by 1 s).
   */
  async diagnoseUnanswered(): Promise<UnansweredDiagnosis> {
    const answers = (path: string) =>
      this.http
        .get(path, { timeout: PROBE_TIMEOUT_MS })
        .then(() => true)
        .catch((error: unknown) => error instanceof AxiosError && error.response !== undefined);
    if (!(await answers('/version'))) return 'unreachable';
    return (await answers('/proxies')) ? 'answers' : 'wedged';
  }

  private remember(proxy: ProxyInfo): ProxyInfo {
    if (proxy && typeof proxy.name === 'string') this.entries.set(proxy.name, { listen: proxy.listen, upstream: proxy.upstream });
    return proxy;
  }

  /** Connections through `proxy`, closed ones first; `null` when the API has no such list (real Toxiproxy). */
  async connections(proxy: string): Promise<ProxyConnection[] | null> {
    try {
      const body = await this.call<{ connections: ProxyConnection[] } | ProxyConnection[]>(
        'get',
        `/proxies/${encodeURIComponent(proxy)}/connections`,
      );
      return Array.isArray(body) ? body : (body.connections ?? []);
    } catch (error) {
      if (error instanceof ProxyError && (error.status === 404 || error.status === 405)) return null;
      throw error;
    }
  }

  private async call<T>(method: Method, path: string, body?: unknown, timeoutMs?: number): Promise<T> {
    const boundMs = timeoutMs ?? this.timeoutMs;
    try {
      const response = await this.http.request<T>({ method, url: path, data: body, timeout: boundMs });
      return response.data;
    } catch (error) {
      if (isTimeout(error) && path !== '/version') {
        const diagnosis = await this.diagnoseUnanswered();
        throw new ProxyCallTimeoutError(unansweredMessage(this.apiUrl, method, path, boundMs, diagnosis), diagnosis, { cause: error });
      }
      throw toProxyError(this.apiUrl, method, path, error);
    }
  }
}

function isTimeout(error: unknown): boolean {
  return error instanceof AxiosError && error.response === undefined && (error.code === 'ECONNABORTED' || error.code === 'ETIMEDOUT');
}

/** One line per case; a wedged server is named as such, with the upstream issue. */
export function unansweredMessage(apiUrl: string, method: string, path: string, boundMs: number, diagnosis: UnansweredDiagnosis): string {
  const call = `${method.toUpperCase()} ${path}`;
  switch (diagnosis) {
    case 'wedged':
      return `fault proxy at ${apiUrl} is wedged: it answers /version but not /proxies (${call} got no answer in ${boundMs} ms; a known Toxiproxy deadlock when a toxic holding data is removed, Shopify/toxiproxy#558 and #412); restart it`;
    case 'answers':
      return `fault proxy at ${apiUrl} did not answer ${call} within ${boundMs} ms, though it answers /version and /proxies`;
    case 'unreachable':
      return `fault proxy API at ${apiUrl} stopped answering (${call} got no answer in ${boundMs} ms, nor did /version)`;
  }
}

function toProxyError(apiUrl: string, method: string, path: string, error: unknown): ProxyError {
  if (error instanceof AxiosError && error.response) {
    const data = error.response.data as { error?: string } | string | undefined;
    const message = (typeof data === 'object' ? data?.error : data?.trim()) || error.message;
    return new ProxyError(
      'PROXY_API',
      `${method.toUpperCase()} ${path} failed with ${error.response.status}: ${message}`,
      error.response.status,
      {
        cause: error,
      },
    );
  }
  const reason = error instanceof Error ? error.message : String(error);
  return new ProxyError(
    'PROXY_UNREACHABLE',
    `fault proxy API at ${apiUrl} did not answer (${reason}); start it with \`npm run proxy\` or \`docker compose -f compose.yaml up -d toxiproxy\`, or set TOXIPROXY_URL`,
    undefined,
    { cause: error },
  );
}
