/**
 * What the Toxiproxy HTTP API says, as the client reads it: proxy entries, toxics, the server's
 * identity, and the embedded proxy's extensions (its fault timeline and connection lists).
 */

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

/** Which server answers the API: the project's embedded proxy, or (real) Toxiproxy. */
export interface ProxyServerIdentity {
  /** `embedded` when `/version` announces the project's extensions (events, connections). */
  readonly kind: 'embedded' | 'toxiproxy';
  /** What `/version` reports (the embedded proxy reports the Toxiproxy release it reproduces). */
  readonly version: string;
  readonly extensions: readonly string[];
}

/** `Toxiproxy 2.12.0` / `embedded proxy (Toxiproxy 2.12.0 API)`: how results name the server. */
export function describeProxyServer(identity: ProxyServerIdentity): string {
  return identity.kind === 'embedded' ? `embedded proxy (Toxiproxy ${identity.version} API)` : `Toxiproxy ${identity.version}`;
}

/**
 * One entry of the embedded proxy's fault timeline (`GET /proxies/{name}/events`), joined
 * with the connection it happened on (`GET /proxies/{name}/connections`).
 */
export interface FaultEvent {
  /** `process.hrtime.bigint()` of the moment the toxic acted, as a decimal string. */
  readonly at_ns: string;
  /** e.g. `reset_sent`, `data_dropped`, `timeout_closed`, `limit_reached`, `amqp_frame` (an AMQP frame that matters to a fault passed the proxy). */
  readonly kind: string;
  readonly toxic?: string;
  readonly toxic_type?: string;
  readonly stream?: Stream;
  readonly connection_id?: number;
  /** `host:port` of the client side of the proxied connection. */
  readonly client?: string;
  /** What the event says besides its kind: an `amqp_frame`'s `method`, `channel`, `reply_code`, `reply_text`. */
  readonly detail?: Readonly<Record<string, number | string>>;
}

export interface ConnectionJson {
  readonly id: number;
  readonly client: string;
}

/** One connection through a proxy entry (`GET /proxies/{name}/connections`, an embedded-proxy extension). */
export interface ProxyConnection extends ConnectionJson {
  /** `process.hrtime.bigint()` as a decimal string; null while open. */
  readonly closed_at_ns: string | null;
  /** When the client's connection was accepted (same clock). */
  readonly opened_at_ns?: string;
  /** Why it ended (`upstream_unreachable`: the broker refused the proxy's connection); null while open. */
  readonly close_reason?: string | null;
}
