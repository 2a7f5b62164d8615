/**
 * A small Toxiproxy HTTP client (axios). Works against real Toxiproxy 2.x and against the
 * embedded proxy alike; the fault timeline (`events`) is an extension only the embedded one has.
 */
import http from 'node:http';
import axios, { AxiosError, type AxiosInstance } from 'axios';
import { ProxyError } from '../errors';

export type Stream = 'upstream' | 'downstream';

export interface ToxicSpec {
  readonly type: string;
  readonly name?: string;
  readonly stream?: Stream;
  readonly toxicity?: number;
  readonly attributes?: Readonly<Record<string, number>>;
}

export interface Toxic {
  readonly name: string;
  readonly type: string;
  readonly stream: Stream;
  readonly toxicity: number;
  readonly attributes: Record<string, number>;
}

export interface ProxyInfo {
  readonly name: string;
  readonly listen: string;
  readonly upstream: string;
  readonly enabled: boolean;
  readonly toxics: Toxic[];
}

/**
 * One entry of the embedded proxy's fault timeline (`GET /proxies/{name}/events`), joined
 * with the connection it happened on (`GET /proxies/{name}/connections`).
 */
export interface FaultEvent {
  /** `process.hrtime.bigint()` of the moment the toxic acted, as a decimal string. */
  readonly at_ns: string;
  /** e.g. `reset_sent`, `data_dropped`, `timeout_closed`, `limit_reached`. */
  readonly kind: string;
  readonly toxic?: string;
  readonly toxic_type?: string;
  readonly stream?: Stream;
  readonly connection_id?: number;
  /** `host:port` of the client side of the proxied connection. */
  readonly client?: string;
}

interface ConnectionJson {
  readonly id: number;
  readonly client: string;
}

/** One connection through a proxy entry (`GET /proxies/{name}/connections`, an embedded-proxy extension). */
export interface ProxyConnection extends ConnectionJson {
  /** `process.hrtime.bigint()` as a decimal string; null while open. */
  readonly closed_at_ns: string | null;
}

export interface ToxiproxyClientOptions {
  /** @default 5000 */
  readonly timeoutMs?: number;
}

export class ToxiproxyClient {
  readonly apiUrl: string;
  private readonly http: AxiosInstance;

  constructor(apiUrl: string, options: ToxiproxyClientOptions = {}) {
    this.apiUrl = apiUrl.replace(/\/+$/, '');
    this.http = axios.create({
      baseURL: this.apiUrl,
      timeout: options.timeoutMs ?? 5000,
      headers: { 'Content-Type': 'application/json', 'User-Agent': 'amqp-bench' },
      // Keep-alive would hold a socket open past the test; each call is cheap on loopback.
      httpAgent: new http.Agent({ keepAlive: false }),
    });
  }

  version(): Promise<string> {
    return this.call('get', '/version').then((body) => String((body as { version?: unknown }).version ?? body));
  }

  listProxies(): Promise<Record<string, ProxyInfo>> {
    return this.call('get', '/proxies');
  }

  getProxy(name: string): Promise<ProxyInfo> {
    return this.call('get', `/proxies/${encodeURIComponent(name)}`);
  }

  createProxy(body: { name: string; listen: string; upstream: string; enabled?: boolean }): Promise<ProxyInfo> {
    return this.call('post', '/proxies', body);
  }

  updateProxy(name: string, body: Partial<{ listen: string; upstream: string; enabled: boolean }>): Promise<ProxyInfo> {
    return this.call('post', `/proxies/${encodeURIComponent(name)}`, body);
  }

  async deleteProxy(name: string): Promise<void> {
    await this.call('delete', `/proxies/${encodeURIComponent(name)}`);
  }

  addToxic(proxy: string, spec: ToxicSpec): Promise<Toxic> {
    return this.call('post', `/proxies/${encodeURIComponent(proxy)}/toxics`, spec);
  }

  listToxics(proxy: string): Promise<Toxic[]> {
    return this.call('get', `/proxies/${encodeURIComponent(proxy)}/toxics`);
  }

  async removeToxic(proxy: string, toxic: string): Promise<void> {
    await this.call('delete', `/proxies/${encodeURIComponent(proxy)}/toxics/${encodeURIComponent(toxic)}`);
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

  private async call<T>(method: 'get' | 'post' | 'delete', path: string, body?: unknown): Promise<T> {
    try {
      const response = await this.http.request<T>({ method, url: path, data: body });
      return response.data;
    } catch (error) {
      throw toProxyError(this.apiUrl, method, path, error);
    }
  }
}

function toProxyError(apiUrl: string, method: string, path: string, error: unknown): ProxyError {
  if (error instanceof AxiosError && error.response) {
    const data = error.response.data as { error?: string } | undefined;
    const message = data?.error ?? error.message;
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
