/**
 * `host:port` strings as Toxiproxy (Go's net package) reads and writes them: `:8080` means
 * every interface, `[::1]:8080` is IPv6, and the answer after a bind is the real address
 * (`127.0.0.1:41234`, `[::]:41234`). Errors are worded as Go words them.
 */
import type { AddressInfo } from 'node:net';

export interface TcpEndpoint {
  /** Undefined for every interface (Go's empty host). */
  readonly host: string | undefined;
  readonly port: number;
}

/** Go's `net.SplitHostPort` + port check; the error text is Go's, without the operation prefix. */
export function parseTcpAddress(address: string): TcpEndpoint | { readonly error: string } {
  // Go listens on every interface and a free port for an empty address (a proxy created without `listen`).
  if (address === '') return { host: undefined, port: 0 };
  const fail = (why: string) => ({ error: `address ${address}: ${why}` });
  let host: string;
  let portText: string;
  if (address.startsWith('[')) {
    const close = address.indexOf(']');
    if (close < 0) return fail("missing ']' in address");
    if (close + 1 === address.length) return fail('missing port in address');
    if (address[close + 1] !== ':') return fail('missing port in address');
    host = address.slice(1, close);
    portText = address.slice(close + 2);
  } else {
    const colon = address.lastIndexOf(':');
    if (colon < 0) return fail('missing port in address');
    host = address.slice(0, colon);
    if (host.includes(':')) return fail('too many colons in address');
    portText = address.slice(colon + 1);
  }
  if (!/^\d+$/.test(portText)) return { error: `lookup tcp/${portText}: unknown port` };
  const port = Number(portText);
  if (port > 65535) return fail('invalid port');
  return { host: host === '' ? undefined : host, port };
}

/** The bound address as Go prints `listener.Addr()`. */
export function formatBoundAddress(info: AddressInfo): string {
  return info.family === 'IPv6' || info.address.includes(':') ? `[${info.address}]:${info.port}` : `${info.address}:${info.port}`;
}

/** `host:port` for a client address (IPv6 in brackets). */
export function formatPeer(address: string | undefined, port: number | undefined): string {
  if (address === undefined) return 'unknown';
  return address.includes(':') ? `[${address}]:${port}` : `${address}:${port}`;
}

const BIND_ERRORS: Readonly<Record<string, string>> = {
  EADDRINUSE: 'bind: address already in use',
  EACCES: 'bind: permission denied',
  EADDRNOTAVAIL: 'bind: cannot assign requested address',
};

/** The text Toxiproxy answers (with 500) when a proxy cannot listen. */
export function listenErrorMessage(listen: string, error: unknown): string {
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && BIND_ERRORS[code]) return `listen tcp ${listen}: ${BIND_ERRORS[code]}`;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN')
    return `listen tcp ${listen}: lookup ${(error as { hostname?: string }).hostname ?? listen}: no such host`;
  return `listen tcp ${listen}: ${error instanceof Error ? error.message : String(error)}`;
}
