import { formatHostPort, type BenchConfig } from '../config';
import { ProxyError } from '../errors';
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

/**
 * Makes sure the proxy entry exists (`POST /proxies` when `GET /proxies` does not list it),
 * is enabled, and carries no leftover toxics.
 */
export async function ensureProxyEntry(client: ToxiproxyClient, config: Pick<BenchConfig, 'proxyName' | 'proxyListen' | 'proxyUpstream'>, log: (line: string) => void = () => undefined): Promise<ProxyEntryState> {
  const target: ProxyTarget = { client, name: config.proxyName };
  const proxies = await client.listProxies();
  let existing = proxies[config.proxyName];
  let created = false;
  if (!existing) {
    try {
      existing = await client.createProxy({ name: config.proxyName, listen: formatHostPort(config.proxyListen), upstream: formatHostPort(config.proxyUpstream), enabled: true });
      created = true;
    } catch (error) {
      if (error instanceof ProxyError && error.status === 409) existing = await client.getProxy(config.proxyName);
      else throw error;
    }
  } else if (!existing.enabled) {
    existing = await client.updateProxy(config.proxyName, { enabled: true });
    log(`fault proxy: entry "${config.proxyName}" was disabled; enabled it`);
  }
  const leftoverToxicsRemoved = await removeAllToxics(target);
  if (leftoverToxicsRemoved > 0) log(`fault proxy: removed ${leftoverToxicsRemoved} leftover toxic(s) from "${config.proxyName}"`);
  return { target, created, leftoverToxicsRemoved, listen: existing.listen };
}
