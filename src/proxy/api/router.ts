/**
 * The route table: Toxiproxy's routes, then the extension's. Matching follows gorilla/mux as
 * Toxiproxy uses it: an unknown path is 404, a known path with another method is 405, and
 * only a matched route passes the browser check (403), as mux runs middleware after a match.
 */
import { apiErrors } from '../apiErrors';
import { connectionIndex, eventClear, eventIndex } from './extension';
import * as toxiproxy from './handlers';
import type { Handler } from './types';

interface Route {
  /** Literal segments, or `{name}` for a variable matching one non-empty segment. */
  readonly path: readonly string[];
  readonly methods: Readonly<Partial<Record<string, Handler>>>;
}

const ROUTES: readonly Route[] = [
  { path: ['reset'], methods: { POST: toxiproxy.resetState } },
  { path: ['proxies'], methods: { GET: toxiproxy.proxyIndex, POST: toxiproxy.proxyCreate } },
  { path: ['populate'], methods: { POST: toxiproxy.populate } },
  {
    path: ['proxies', '{proxy}'],
    methods: { GET: toxiproxy.proxyShow, POST: toxiproxy.proxyUpdate, PATCH: toxiproxy.proxyUpdate, DELETE: toxiproxy.proxyDelete },
  },
  { path: ['proxies', '{proxy}', 'toxics'], methods: { GET: toxiproxy.toxicIndex, POST: toxiproxy.toxicCreate } },
  {
    path: ['proxies', '{proxy}', 'toxics', '{toxic}'],
    methods: { GET: toxiproxy.toxicShow, POST: toxiproxy.toxicUpdate, PATCH: toxiproxy.toxicUpdate, DELETE: toxiproxy.toxicDelete },
  },
  { path: ['version'], methods: { GET: toxiproxy.version } },
  // Extension (see extension.ts).
  { path: ['proxies', '{proxy}', 'events'], methods: { GET: eventIndex, DELETE: eventClear } },
  { path: ['proxies', '{proxy}', 'connections'], methods: { GET: connectionIndex } },
];

export interface RouteMatch {
  readonly handler: Handler;
  readonly params: Readonly<Record<string, string>>;
}

function matchPath(route: Route, segments: readonly string[]): Record<string, string> | undefined {
  if (route.path.length !== segments.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < segments.length; i += 1) {
    const pattern = route.path[i]!;
    const segment = segments[i]!;
    if (pattern.startsWith('{')) {
      if (segment === '') return undefined;
      params[pattern.slice(1, -1)] = segment;
    } else if (pattern !== segment) return undefined;
  }
  return params;
}

/**
 * The handler for a request path (not decoded yet) and method.
 * @throws ProxyError 404 (no such path), 405 (path known, method not), 400 (malformed escape)
 */
export function matchRoute(rawPath: string, method: string): RouteMatch {
  let segments: string[];
  try {
    segments = rawPath.replace(/^\//, '').split('/').map(decodeURIComponent);
  } catch {
    throw apiErrors.badQuery(`malformed escape in path ${JSON.stringify(rawPath)}`);
  }
  let pathKnown = false;
  for (const route of ROUTES) {
    const params = matchPath(route, segments);
    if (params === undefined) continue;
    pathKnown = true;
    const handler = route.methods[method];
    if (handler) return { handler, params };
  }
  throw pathKnown ? apiErrors.methodNotAllowed() : apiErrors.routeNotFound();
}
