/**
 * What answers at the fault proxy's API URL, told apart before anything relies on it: a Toxiproxy
 * API (real or embedded), nothing at all (the embedded proxy may be started there), something that
 * is not a Toxiproxy API (a 404, an HTML page), a Toxiproxy that answers `/version` but no longer
 * `/proxies` (wedged, Shopify/toxiproxy#558), or no answer within the bound.
 */
import http from 'node:http';
import axios, { AxiosError, type AxiosResponse } from 'axios';
import type { BenchConfig } from '../config';
import { ProxyError } from '../errors';
import { isRecord } from '../results/collect';

export type ProxyApiProbe =
  /** `GET /version` and `GET /proxies` answered as Toxiproxy does. */
  | { readonly state: 'toxiproxy'; readonly version: string }
  /** Nothing listens there (connection refused): the embedded proxy may be started. */
  | { readonly state: 'absent'; readonly reason: string }
  /** No HTTP answer to `GET /version` within the bound, or the host cannot be reached. */
  | { readonly state: 'unreachable'; readonly reason: string }
  /** An HTTP server answers, but not as Toxiproxy (e.g. `GET /version` answered 404). */
  | { readonly state: 'foreign'; readonly reason: string }
  /** `GET /version` answers, `GET /proxies` does not within the bound: Toxiproxy's API is stuck. */
  | { readonly state: 'wedged'; readonly version: string; readonly boundMs: number };

export interface ProxyProbeBounds {
  /** How long `GET /version` may take. @default 2000 */
  readonly versionBoundMs: number;
  /** How long `GET /proxies` may take once `/version` answered; past it the API counts as wedged. @default 3000 */
  readonly proxiesBoundMs: number;
}

/** Generous for a loaded 2-core machine (the embedded proxy answers in milliseconds), short enough for a < 10 s preflight. */
export const DEFAULT_PROXY_PROBE_BOUNDS: ProxyProbeBounds = Object.freeze({ versionBoundMs: 2000, proxiesBoundMs: 3000 });

/** The upstream issue a wedged Toxiproxy API is known by. */
export const TOXIPROXY_WEDGE_ISSUE = 'Shopify/toxiproxy#558';

/**
 * Asks `GET /version`, then `GET /proxies`, each within its bound; never throws, never hangs.
 * @example `(await probeProxyApi('http://127.0.0.1:8474')).state === 'toxiproxy'`
 */
export async function probeProxyApi(apiUrl: string, bounds: Partial<ProxyProbeBounds> = {}): Promise<ProxyApiProbe> {
  const { versionBoundMs, proxiesBoundMs } = { ...DEFAULT_PROXY_PROBE_BOUNDS, ...bounds };
  const base = apiUrl.replace(/\/+$/, '');
  let version: string;
  try {
    const response = await getText(`${base}/version`, versionBoundMs);
    const found = toxiproxyVersionIn(response);
    if (found === undefined) return { state: 'foreign', reason: `GET /version answered ${describeResponse(response)}` };
    version = found;
  } catch (error) {
    if (isConnectionRefused(error)) return { state: 'absent', reason: describeNetworkError(error, versionBoundMs) };
    return { state: 'unreachable', reason: `GET /version: ${describeNetworkError(error, versionBoundMs)}` };
  }
  try {
    const response = await getText(`${base}/proxies`, proxiesBoundMs);
    if (response.status !== 200 || !isJsonObject(response.data))
      return { state: 'foreign', reason: `GET /version answered ${version}, but GET /proxies answered ${describeResponse(response)}` };
    return { state: 'toxiproxy', version };
  } catch (error) {
    if (isTimeout(error)) return { state: 'wedged', version, boundMs: proxiesBoundMs };
    return { state: 'unreachable', reason: `GET /proxies: ${describeNetworkError(error, proxiesBoundMs)}` };
  }
}

/**
 * The one-line error for a probe the run cannot go on with, or null when it can: a Toxiproxy API
 * answers, or nothing does and the embedded proxy may be started there (mode `auto`, loopback URL).
 */
export function proxyProbeError(
  probe: ProxyApiProbe,
  config: Pick<BenchConfig, 'proxyApiUrl' | 'embeddedProxy'>,
  canStartEmbedded: boolean,
): ProxyError | null {
  const url = config.proxyApiUrl;
  switch (probe.state) {
    case 'toxiproxy':
      return null;
    case 'absent':
      if (config.embeddedProxy === 'never')
        return new ProxyError(
          'PROXY_UNREACHABLE',
          `no fault proxy API answers at ${url} and BENCH_EMBEDDED_PROXY=never; start Toxiproxy (docker compose -f compose.yaml up -d toxiproxy) or \`npm run proxy\``,
        );
      if (!canStartEmbedded)
        return new ProxyError(
          'PROXY_UNREACHABLE',
          `no fault proxy API answers at ${url}; the embedded proxy can only be started on this machine (a loopback TOXIPROXY_URL), so start Toxiproxy there or point TOXIPROXY_URL at 127.0.0.1`,
        );
      return null;
    case 'foreign':
      return new ProxyError(
        'PROXY_API',
        `not a Toxiproxy API at ${url} (${probe.reason}); point TOXIPROXY_URL at Toxiproxy, or at a free loopback port (e.g. http://127.0.0.1:8475) where the embedded proxy starts by itself`,
      );
    case 'wedged':
      return new ProxyError(
        'PROXY_UNREACHABLE',
        `the Toxiproxy at ${url} is wedged: it answers GET /version (${probe.version}) but not GET /proxies within ${probe.boundMs} ms (known upstream bug ${TOXIPROXY_WEDGE_ISSUE}, after a toxic was removed from abandoned links); restart it (docker compose -f compose.yaml restart toxiproxy) and run again`,
      );
    case 'unreachable':
      return new ProxyError(
        'PROXY_UNREACHABLE',
        `the fault proxy API at ${url} did not answer (${probe.reason}); check what runs there (curl ${url}/version), or point TOXIPROXY_URL at a running Toxiproxy`,
      );
  }
}

/** A response body read as text, whatever its status (a 404 is an answer, not a failure here). */
function getText(url: string, timeoutMs: number): Promise<AxiosResponse<string>> {
  return axios.get<string>(url, {
    timeout: timeoutMs,
    responseType: 'text',
    transformResponse: [(data: unknown) => data],
    validateStatus: () => true,
    maxRedirects: 0,
    maxContentLength: 1_000_000,
    headers: { 'User-Agent': 'amqp-bench preflight' },
    // No keep-alive: a pooled socket would outlive the probe and hold the process open.
    httpAgent: new http.Agent({ keepAlive: false }),
  });
}

/**
 * The version when the response is Toxiproxy's: `{"version": "2.12.0"}` (2.6 and later), or the
 * bare version as text/plain (earlier 2.x). Anything else (a 404, an HTML page) is not Toxiproxy.
 */
function toxiproxyVersionIn(response: AxiosResponse<string>): string | undefined {
  if (response.status !== 200 || typeof response.data !== 'string') return undefined;
  const text = response.data.trim();
  try {
    const parsed: unknown = JSON.parse(text);
    if (isRecord(parsed) && typeof parsed.version === 'string') return parsed.version;
    return undefined;
  } catch {
    return /^v?\d+\.\d+\.\d+[\w.+-]*$/.test(text) ? text : undefined;
  }
}

function isJsonObject(text: unknown): boolean {
  if (typeof text !== 'string') return false;
  try {
    return isRecord(JSON.parse(text));
  } catch {
    return false;
  }
}

/** `404 Not Found`, `200 with text/html, not JSON`: enough to recognise what answered. */
function describeResponse(response: AxiosResponse<string>): string {
  if (response.status !== 200) return `${response.status}${response.statusText ? ` ${response.statusText}` : ''}`;
  const type = String(response.headers['content-type'] ?? 'no content type').split(';')[0]!;
  return `200 with ${type}, not Toxiproxy's JSON`;
}

function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

function isConnectionRefused(error: unknown): boolean {
  return errorCode(error) === 'ECONNREFUSED';
}

function isTimeout(error: unknown): boolean {
  return error instanceof AxiosError && (error.code === 'ECONNABORTED' || error.code === 'ETIMEDOUT');
}

function describeNetworkError(error: unknown, boundMs: number): string {
  if (isTimeout(error)) return `no answer within ${boundMs} ms`;
  const code = errorCode(error);
  const message = error instanceof Error ? error.message : String(error);
  if (!message) return code ?? 'failed';
  return code && !message.includes(code) ? `${code}: ${message}` : message;
}
