/**
 * A run's fault proxy: the API (a proxy of the run's own, or the shared one at TOXIPROXY_URL) and
 * the run's entry on it, with what the run's other processes (Jest workers) must read to reach
 * the same. Two runs on one machine never share an entry, so neither clears the other's toxics:
 * with TOXIPROXY_URL unset each run has a proxy of its own; on a shared API each has an entry of
 * its own, `<BENCH_PROXY_NAME>-<pid>`, deleted at its end.
 */
import { formatHostPort, type BenchConfig, type HostPort } from '../config';
import { describeError } from '../errors';
import type { ProxyApiProbe } from '../preflight/proxyProbe';
import { ensureProxyApi, type ProxyApiHandle } from './proxyProcess';
import { ensureProxyEntry, portOf, type ProxyEntryState } from './proxyEntry';
import { removeAllToxics } from './toxics';

export type RunProxyConfig = Pick<
  BenchConfig,
  'proxyApiUrl' | 'embeddedProxy' | 'proxyScope' | 'proxyName' | 'proxyListen' | 'proxyUpstream'
>;

/** The variables through which the run's other processes reach the run's proxy (read by resolveConfig). */
export interface RunProxyEnv {
  readonly TOXIPROXY_URL: string;
  readonly BENCH_PROXY_NAME: string;
  readonly BENCH_PROXY_LISTEN: string;
}

export interface RunProxy {
  readonly api: ProxyApiHandle;
  readonly entry: ProxyEntryState;
  /** True when the entry is the run's alone (deleted at close when the API outlives the run). */
  readonly ownsEntry: boolean;
  readonly env: RunProxyEnv;
  /**
   * Removes the entry's toxics, deletes an entry of the run's own from an API that outlives the
   * run, stops an API the run started. Never throws; safe to call twice.
   */
  close(): Promise<void>;
}

/** The entry a run uses on a shared API: its own, so that no other run clears its toxics. */
export function runEntryName(proxyName: string, pid: number = process.pid): string {
  return `${proxyName}-${pid}`;
}

/**
 * Opens the run's proxy API and entry. On failure whatever it started is stopped again.
 * @param probe what the preflight found at TOXIPROXY_URL (scope `shared`), so it is not asked twice
 * @throws ProxyError (one line) when no API can be used or started, or the entry cannot be made
 */
export async function openRunProxy(
  config: RunProxyConfig,
  log: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
  probe?: ProxyApiProbe,
): Promise<RunProxy> {
  const api = await ensureProxyApi(config, log, probe);
  const shared = config.proxyScope === 'shared';
  const name = shared ? runEntryName(config.proxyName) : config.proxyName;
  let entry: ProxyEntryState;
  try {
    entry = await ensureProxyEntry(
      api.client,
      { ...config, proxyName: name },
      // A Toxiproxy provisioned for CI or compose holds the configured port with BENCH_PROXY_NAME.
      { log, ...(shared ? { provisioned: config.proxyName } : {}) },
    );
  } catch (error) {
    await api.stop();
    throw error;
  }
  const ownsEntry = entry.target.name === name;
  if (!entry.created && portOf(entry.listen) !== config.proxyListen.port && config.proxyListen.port !== 0)
    log(`fault proxy: entry "${name}" listens on ${entry.listen}, not ${formatHostPort(config.proxyListen)}; using ${entry.listen}`);
  return {
    api,
    entry,
    ownsEntry,
    env: {
      TOXIPROXY_URL: api.client.apiUrl,
      BENCH_PROXY_NAME: entry.target.name,
      BENCH_PROXY_LISTEN: formatHostPort(clientListen(config.proxyListen, entry.listen)),
    },
    close: onceCloser(api, entry, ownsEntry, log),
  };
}

/** The configured host (a wildcard stays a wildcard, which clients read as loopback) with the port the entry got. */
function clientListen(configured: HostPort, listen: string): HostPort {
  return { host: configured.host, port: portOf(listen) };
}

function onceCloser(api: ProxyApiHandle, entry: ProxyEntryState, ownsEntry: boolean, log: (line: string) => void): () => Promise<void> {
  let closing: Promise<void> | undefined;
  return () => {
    closing ??= (async () => {
      await removeAllToxics(entry.target).catch((error: unknown) =>
        log(`fault proxy: could not remove toxics at teardown: ${describeError(error)}`),
      );
      // An API the run started goes with every entry on it; one that outlives the run keeps only what is not the run's.
      if (ownsEntry && !api.started)
        await api.client
          .deleteProxy(entry.target.name)
          .catch((error: unknown) => log(`fault proxy: could not delete entry "${entry.target.name}": ${describeError(error)}`));
      await api.stop();
    })();
    return closing;
  };
}
