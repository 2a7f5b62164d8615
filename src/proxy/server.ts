/**
 * The embedded Toxiproxy-compatible server: the HTTP API (node:http) over a collection of
 * proxies. Options are resolved once here; `close()` stops every proxy, socket and timer and
 * may be called any number of times.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConfigError, ProxyError } from '../errors';
import { listenErrorMessage } from './address';
import { decodeAttributes } from './api/decoders';
import { createApiListener } from './api/http';
import { ProxyCollection } from './collection';
import { LINK_DEFAULTS } from './link';
import { TIMELINE_DEFAULTS } from './timeline';

/** The Toxiproxy release whose behaviour is reproduced (reported by `GET /version`). */
export const TOXIPROXY_COMPATIBLE_VERSION = '2.12.0';

export interface ProxyServerOptions {
  /** Address the HTTP API binds to. @default '127.0.0.1' */
  readonly host?: string;
  /** API port; 0 picks a free one (the handle reports it). @default 8474 */
  readonly port?: number;
  /** Bytes the toxics of one connection direction may hold before its source is paused. @default 8388608 (8 MiB) */
  readonly maxHeldBytesPerLink?: number;
  /** Events kept per proxy (oldest dropped first). @default 10000 */
  readonly maxEventsPerProxy?: number;
  /** Closed connection records kept per proxy. @default 1000 */
  readonly maxClosedConnectionsPerProxy?: number;
  /** Source of randomness for toxicity and jitter. @default Math.random */
  readonly random?: () => number;
}

export type ResolvedProxyServerOptions = Required<ProxyServerOptions>;

export const PROXY_SERVER_DEFAULTS: ResolvedProxyServerOptions = Object.freeze({
  host: '127.0.0.1',
  port: 8474,
  maxHeldBytesPerLink: LINK_DEFAULTS.maxHeldBytes,
  maxEventsPerProxy: TIMELINE_DEFAULTS.maxEvents,
  maxClosedConnectionsPerProxy: TIMELINE_DEFAULTS.maxClosedConnections,
  random: Math.random,
});

/** Fills defaults and checks ranges. @throws ConfigError naming the bad option */
export function resolveProxyServerOptions(input: ProxyServerOptions = {}): ResolvedProxyServerOptions {
  const resolved = { ...PROXY_SERVER_DEFAULTS, ...Object.fromEntries(Object.entries(input).filter(([, value]) => value !== undefined)) };
  if (!Number.isInteger(resolved.port) || resolved.port < 0 || resolved.port > 65535) {
    throw new ConfigError('port', 'an integer from 0 to 65535 (0 picks a free port)', String(resolved.port));
  }
  for (const name of ['maxHeldBytesPerLink', 'maxEventsPerProxy', 'maxClosedConnectionsPerProxy'] as const) {
    if (!Number.isInteger(resolved[name]) || resolved[name] < 1) throw new ConfigError(name, 'a positive integer', String(resolved[name]));
  }
  return Object.freeze(resolved);
}

export interface ProxyServer {
  /** Base URL of the API, e.g. `http://127.0.0.1:8474` (a wildcard bind shows as 127.0.0.1). */
  readonly url: string;
  readonly host: string;
  /** The port actually bound (useful with port 0). */
  readonly port: number;
  /** The proxies, for in-process use (tests, benchmarks). */
  readonly collection: ProxyCollection;
  readonly state: 'running' | 'closed';
  /** Stops the API and every proxy, connection and timer. Safe to call twice. */
  close(): Promise<void>;
}

/**
 * Starts the HTTP API and returns once it listens.
 * @throws ProxyError (PROXY_API) when the address cannot be bound, e.g. the port is taken
 * @example
 * const server = await startProxyServer({ port: 0 });
 * await fetch(`${server.url}/proxies`, { method: 'POST', body: JSON.stringify({ name: 'rabbitmq', listen: '127.0.0.1:0', upstream: '127.0.0.1:5672' }) });
 * await server.close();
 */
export async function startProxyServer(options: ProxyServerOptions = {}): Promise<ProxyServer> {
  const resolved = resolveProxyServerOptions(options);
  let connectionIds = 0;
  const collection = new ProxyCollection({
    linkOptions: { maxHeldBytes: resolved.maxHeldBytesPerLink, random: resolved.random },
    timelineLimits: { maxEvents: resolved.maxEventsPerProxy, maxClosedConnections: resolved.maxClosedConnectionsPerProxy },
    decodeAttributes,
    nextConnectionId: () => (connectionIds += 1),
  });
  const httpServer = http.createServer(createApiListener({ collection, version: TOXIPROXY_COMPATIBLE_VERSION }));
  try {
    await new Promise<void>((resolve, reject) => {
      httpServer.once('error', reject);
      httpServer.listen({ host: resolved.host, port: resolved.port }, () => {
        httpServer.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    const where = `${resolved.host}:${resolved.port}`;
    throw new ProxyError(
      'PROXY_API',
      `cannot start the embedded proxy API: ${listenErrorMessage(where, error)} (is Toxiproxy already running there? pick another port)`,
      undefined,
      { cause: error },
    );
  }
  httpServer.on('error', () => undefined);
  const port = (httpServer.address() as AddressInfo).port;
  const urlHost = ['0.0.0.0', '::', ''].includes(resolved.host)
    ? '127.0.0.1'
    : resolved.host.includes(':')
      ? `[${resolved.host}]`
      : resolved.host;
  let closing: Promise<void> | undefined;
  let state: ProxyServer['state'] = 'running';
  return {
    url: `http://${urlHost}:${port}`,
    host: resolved.host,
    port,
    collection,
    get state() {
      return state;
    },
    close() {
      closing ??= (async () => {
        state = 'closed';
        const stopped = new Promise<void>((resolve) => httpServer.close(() => resolve()));
        httpServer.closeAllConnections();
        await collection.closeAll();
        await stopped;
      })();
      return closing;
    },
  };
}
