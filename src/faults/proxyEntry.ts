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
export async function ensureProxyEntry(
  client: ToxiproxyClient,
  config: Pick<BenchConfig, 'proxyName' | 'proxyListen' | 'proxyUpstream'>,
  log: (line: string) => void = () => undefined,
): Promise<ProxyEntryState> {
  const target: ProxyTarget = { client, name: config.proxyName };
  const proxies = await client.listProxies();
  let existing = proxies[config.proxyName];
  let created = false;
  if (!existing) {
    const create = (listen: string) =>
      client.createProxy({ name: config.proxyName, listen, upstream: formatHostPort(config.proxyUpstream), enabled: true });
    const wanted = formatHostPort(config.proxyListen);
    try {
      existing = await create(wanted);
      created = true;
    } catch (error) {
      if (error instanceof ProxyError && error.status === 409) {
        existing = await client.getProxy(config.proxyName);
      } else if (error instanceof ProxyError && /address already in use/i.test(error.message)) {
        // 25672 (the default listen port) is also RabbitMQ's inter-node port when a broker runs on
        // this machine: take a free port instead; the fixtures make clients follow it.
        existing = await create(formatHostPort({ host: config.proxyListen.host, port: 0 }));
        created = true;
        log(
          `fault proxy: ${wanted} is taken (by RabbitMQ's inter-node port if a broker runs here); entry "${config.proxyName}" listens on ${existing.listen} instead (set BENCH_PROXY_LISTEN to choose)`,
        );
      } else {
        throw error;
      }
    }
  } else if (!existing.enabled) {
    existing = await client.updateProxy(config.proxyName, { enabled: true });
    log(`fault proxy: entry "${config.proxyName}" was disabled; enabled it`);
  }
  const leftoverToxicsRemoved = await removeAllToxics(target);
  if (leftoverToxicsRemoved > 0) log(`fault proxy: removed ${leftoverToxicsRemoved} leftover toxic(s) from "${config.proxyName}"`);
  return { target, created, leftoverToxicsRemoved, listen: existing.listen };
}
