/**
 * The embedded fault proxy started in-process on free ports (never 8474/25672, where others run
 * things), with one proxy entry in front of the real broker: what integration tests that inject
 * faults need. Always `close()` it (in afterAll).
 */
import { ToxiproxyClient, type ProxyTarget } from '../../src/faults';
import { ensureProxyEntry } from '../../src/faults/proxyEntry';
import { startProxyServer, type ProxyServer } from '../../src/proxy';

export interface EmbeddedProxyEntry {
  readonly server: ProxyServer;
  readonly proxy: ProxyTarget;
  /** The broker through the proxy entry, guest/guest. */
  readonly proxiedUrl: string;
  close(): Promise<void>;
}

export async function startEmbeddedProxyEntry(proxyName: string): Promise<EmbeddedProxyEntry> {
  const server = await startProxyServer({ host: '127.0.0.1', port: 0 });
  try {
    const entry = await ensureProxyEntry(new ToxiproxyClient(server.url), {
      proxyName,
      proxyListen: { host: '127.0.0.1', port: 0 },
      proxyUpstream: { host: '127.0.0.1', port: 5672 },
    });
    return { server, proxy: entry.target, proxiedUrl: `amqp://guest:guest@${entry.listen}`, close: () => server.close() };
  } catch (error) {
    await server.close();
    throw error;
  }
}
