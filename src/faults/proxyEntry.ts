import { formatHostPort, type BenchConfig } from '../config';
import { ProxyError } from '../errors';
import type { ProxyInfo } from './proxyApiTypes';
import type { ToxiproxyClient } from './toxiproxyClient';
import { removeAllToxics, type ProxyTarget } from './toxics';

export interface ProxyEntryState {
  readonly target: ProxyTarget;
  /** True when this call created the entry (teardown deletes only what setup created). */
  readonly created: boolean;
  readonly leftoverToxicsRemoved: number;
  /** Where clients must connect; differs from the config when an existing entry listens elsewhere. */
  readonly listen: string;
}

export interface ProxyEntryOptions {
  /**
   * An entry made before the run (by CI's workflow, by compose's config/toxiproxy.json) that may
   * hold the configured listen address. When creating `proxyName` there finds the address taken
   * by this entry, the run uses this entry rather than a free port: a Toxiproxy in a container is
   * reached only through the ports it publishes. @default none
   */
  readonly provisioned?: string;
  readonly log?: (line: string) => void;
}

/**
 * Makes sure the proxy entry exists (`POST /proxies` when `GET /proxies` does not list it),
 * is enabled, and carries no leftover toxics. A listen address that is taken makes it take a
 * free port instead (or the provisioned entry holding that address, see ProxyEntryOptions).
 */
export async function ensureProxyEntry(
  client: ToxiproxyClient,
  config: Pick<BenchConfig, 'proxyName' | 'proxyListen' | 'proxyUpstream'>,
  options: ProxyEntryOptions = {},
): Promise<ProxyEntryState> {
  const log = options.log ?? (() => undefined);
  const proxies = await client.listProxies();
  let existing = proxies[config.proxyName];
  let created = false;
  if (!existing) {
    ({ existing, created } = await createEntry(client, config, proxies, options.provisioned, log));
  } else if (!existing.enabled) {
    existing = await client.updateProxy(existing.name, { enabled: true });
    log(`fault proxy: entry "${existing.name}" was disabled; enabled it`);
  }
  const target: ProxyTarget = { client, name: existing.name };
  const leftoverToxicsRemoved = await removeAllToxics(target);
  if (leftoverToxicsRemoved > 0) log(`fault proxy: removed ${leftoverToxicsRemoved} leftover toxic(s) from "${existing.name}"`);
  return { target, created, leftoverToxicsRemoved, listen: existing.listen };
}

async function createEntry(
  client: ToxiproxyClient,
  config: Pick<BenchConfig, 'proxyName' | 'proxyListen' | 'proxyUpstream'>,
  proxies: Readonly<Record<string, ProxyInfo>>,
  provisioned: string | undefined,
  log: (line: string) => void,
): Promise<{ existing: ProxyInfo; created: boolean }> {
  const create = (listen: string) =>
    client.createProxy({ name: config.proxyName, listen, upstream: formatHostPort(config.proxyUpstream), enabled: true });
  const wanted = formatHostPort(config.proxyListen);
  try {
    return { existing: await create(wanted), created: true };
  } catch (error) {
    if (error instanceof ProxyError && error.status === 409) return { existing: await client.getProxy(config.proxyName), created: false };
    if (!(error instanceof ProxyError && /address already in use/i.test(error.message))) throw error;
  }
  const holder = provisioned === undefined ? undefined : proxies[provisioned];
  if (holder && portOf(holder.listen) === config.proxyListen.port) {
    log(
      `fault proxy: ${wanted} is held by the entry "${holder.name}", made before this run; using that entry (its toxics are those of every run that uses it)`,
    );
    return { existing: holder.enabled ? holder : await client.updateProxy(holder.name, { enabled: true }), created: false };
  }
  // 25672 (the default listen port) is also RabbitMQ's inter-node port when a broker runs on
  // this machine: take a free port instead; the fixtures make clients follow it.
  const existing = await create(formatHostPort({ host: config.proxyListen.host, port: 0 }));
  log(
    `fault proxy: ${wanted} is taken (by RabbitMQ's inter-node port if a broker runs here); entry "${config.proxyName}" listens on ${existing.listen} instead (set BENCH_PROXY_LISTEN to choose)`,
  );
  return { existing, created: true };
}

/** The port of `host:port` / `[v6]:port`. */
export function portOf(listen: string): number {
  return Number(listen.slice(listen.lastIndexOf(':') + 1));
}
