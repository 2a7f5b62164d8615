/**
 * The embedded fault-injection proxy: a drop-in for Toxiproxy 2.x (same HTTP API, same
 * toxics) plus a fault timeline extension (`GET /proxies/{name}/events`). See README.md here.
 */
export { startProxyServer, resolveProxyServerOptions, PROXY_SERVER_DEFAULTS, TOXIPROXY_COMPATIBLE_VERSION } from './server';
export type { ProxyServer, ProxyServerOptions, ResolvedProxyServerOptions } from './server';
export { faultEventJson } from './api/extension';
export type { FaultEventJson } from './api/extension';
export type { FaultEvent, ConnectionRecord, CloseReason } from './timeline';
export type { FaultEventKind, StreamDirection } from './toxics/types';
export type { ProxyJson } from './proxy';
export type { ToxicJson } from './toxic';
export { TOXIC_REGISTRY } from './toxics/registry';
