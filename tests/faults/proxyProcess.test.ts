import net from 'node:net';
import { ProxyError } from '../../src/errors';
import { ensureProxyApi, isLoopbackUrl, proxyApiAnswers } from '../../src/faults/proxyProcess';

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('finding or starting the fault proxy (globalSetup)', () => {
  it('starts the embedded proxy in a child process when nothing answers, says so in one line, and stops it', async () => {
    const apiUrl = `http://127.0.0.1:${await freePort()}`;
    const lines: string[] = [];
    const handle = await ensureProxyApi({ proxyApiUrl: apiUrl, embeddedProxy: 'auto' }, (line) => lines.push(line));
    try {
      expect(handle.started).toBe(true);
      expect(handle.pid).not.toBe(process.pid);
      expect(lines).toEqual([`fault proxy: nothing answered at ${apiUrl}; started the embedded Toxiproxy-compatible proxy there (pid ${handle.pid})`]);
      expect(await handle.client.version()).toMatch(/^2\./);
      // A second setup finds it and starts nothing.
      const again = await ensureProxyApi({ proxyApiUrl: apiUrl, embeddedProxy: 'auto' }, (line) => lines.push(line));
      expect(again.started).toBe(false);
      expect(lines).toHaveLength(1);
    } finally {
      await handle.stop();
    }
    expect(await proxyApiAnswers(apiUrl, 300)).toBe(false);
  }, 40_000);

  it('fails with what to do when nothing answers and the embedded proxy is not allowed', async () => {
    const apiUrl = `http://127.0.0.1:${await freePort()}`;
    const error = await ensureProxyApi({ proxyApiUrl: apiUrl, embeddedProxy: 'never' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ProxyError);
    expect((error as Error).message).toMatch(/no fault proxy API answers at .* and BENCH_EMBEDDED_PROXY=never; start Toxiproxy/);
  });

  it('only ever starts the embedded proxy for a loopback API URL', () => {
    expect(['http://127.0.0.1:8474', 'http://localhost:8474', 'http://[::1]:8474'].map(isLoopbackUrl)).toEqual([true, true, true]);
    expect(['http://toxiproxy:8474', 'http://10.0.0.5:8474'].map(isLoopbackUrl)).toEqual([false, false]);
  });
});
