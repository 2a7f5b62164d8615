/**
 * The preflight against real things: the embedded Toxiproxy-compatible server, real HTTP servers
 * that are not a usable Toxiproxy (404, wedged-looking, silent), the real broker and a port where
 * none listens. Every server is closed after each test, also when it fails.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { BrokerError, ProxyError } from '../../src/errors';
import { ensureProxyApi } from '../../src/faults/proxyProcess';
import { probeProxyApi, runPreflight } from '../../src/preflight';
import { startProxyServer } from '../../src/proxy';
import { startHttpServer, startNotFoundServer, startSilentServer, startWedgedToxiproxy, type FakeServer } from '../support/fakeServers';
import { freePort } from '../support/ports';

const ROOT = path.resolve(__dirname, '../..');

/** The error `promise` fails with; a test failure when it resolves. */
function failureOf(promise: Promise<unknown>): Promise<Error> {
  return promise.then(
    () => {
      throw new Error('expected a failure, got success');
    },
    (caught: unknown) => caught as Error,
  );
}
const BROKER = 'amqp://guest:guest@127.0.0.1:5672';

describe('what answers at the fault proxy URL', () => {
  const servers: { close(): Promise<void> }[] = [];
  const track = <T extends { close(): Promise<void> }>(server: T): T => {
    servers.push(server);
    return server;
  };
  afterEach(async () => {
    for (const server of servers.splice(0)) await server.close();
  });

  it('a Toxiproxy API (the embedded server): its version', async () => {
    const api = track(await startProxyServer({ host: '127.0.0.1', port: 0 }));
    expect(await probeProxyApi(api.url)).toEqual({ state: 'toxiproxy', version: '2.12.0' });
  }, 20_000);

  it('an older Toxiproxy answering its version as plain text counts as one', async () => {
    const old = track(
      await startHttpServer((request, response) =>
        request.url === '/version'
          ? response.writeHead(200, { 'Content-Type': 'text/plain' }).end('2.5.0')
          : response.writeHead(200, { 'Content-Type': 'application/json' }).end('{}'),
      ),
    );
    expect(await probeProxyApi(old.url)).toEqual({ state: 'toxiproxy', version: '2.5.0' });
  }, 20_000);

  it('nothing listening: absent (where the embedded proxy may start)', async () => {
    expect(await probeProxyApi(`http://127.0.0.1:${await freePort()}`)).toMatchObject({ state: 'absent' });
  }, 20_000);

  it('an HTTP server answering 404, or an HTML page: not Toxiproxy', async () => {
    const notFound: FakeServer = track(await startNotFoundServer());
    expect(await probeProxyApi(notFound.url)).toEqual({ state: 'foreign', reason: 'GET /version answered 404 Not Found' });
    const html = track(
      await startHttpServer((_request, response) => response.writeHead(200, { 'Content-Type': 'text/html' }).end('<html>')),
    );
    expect(await probeProxyApi(html.url)).toEqual({
      state: 'foreign',
      reason: "GET /version answered 200 with text/html, not Toxiproxy's JSON",
    });
  }, 20_000);

  it('answers /version but never /proxies: wedged, within the bound', async () => {
    const wedged = track(await startWedgedToxiproxy());
    const startedAt = Date.now();
    expect(await probeProxyApi(wedged.url, { proxiesBoundMs: 800 })).toEqual({ state: 'wedged', version: '2.12.0', boundMs: 800 });
    expect(Date.now() - startedAt).toBeLessThan(3000);
    expect(wedged.requests).toEqual(['GET /version', 'GET /proxies']);
  }, 20_000);

  it('accepts and never answers: unreachable, within the bound', async () => {
    const silent = track(await startSilentServer());
    expect(await probeProxyApi(silent.url, { versionBoundMs: 500 })).toEqual({
      state: 'unreachable',
      reason: 'GET /version: no answer within 500 ms',
    });
  }, 20_000);

  it('ensureProxyApi never starts the embedded proxy where something else answers', async () => {
    const notFound = track(await startNotFoundServer());
    const lines: string[] = [];
    const error = await ensureProxyApi({ proxyApiUrl: notFound.url, embeddedProxy: 'auto', proxyScope: 'shared' }, (line) =>
      lines.push(line),
    ).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ProxyError);
    expect((error as Error).message).toMatch(/^not a Toxiproxy API at http:\/\/127\.0\.0\.1:\d+ \(GET \/version answered 404 Not Found\)/);
    expect(lines).toEqual([]);
    // Still the 404 server there: nothing took its port or raced it.
    expect(await probeProxyApi(notFound.url)).toMatchObject({ state: 'foreign' });
  }, 20_000);
});

describe('runPreflight with services', () => {
  const folders = [{ path: path.join(ROOT, 'reports', 'benchmarks'), setting: 'BENCH_REPORTS_DIR' }];

  it('passes with the real broker and nothing at a loopback proxy URL (the embedded one will start)', async () => {
    const proxyApiUrl = `http://127.0.0.1:${await freePort()}`;
    const passed = await runPreflight({ folders, services: { amqpUrl: BROKER, proxyApiUrl, embeddedProxy: 'auto', proxyScope: 'shared' } });
    expect(passed.brokerVersion).toMatch(/^3\./);
    expect(passed.proxy).toMatchObject({ state: 'absent' });
  }, 20_000);

  it('reports the broker first, in one line, within the bound, when both are wrong', async () => {
    const notFound = await startNotFoundServer();
    try {
      const amqpUrl = `amqp://guest:hunter22x@127.0.0.1:${await freePort()}`;
      const startedAt = Date.now();
      const error = await failureOf(
        runPreflight({ folders, services: { amqpUrl, proxyApiUrl: notFound.url, embeddedProxy: 'auto', proxyScope: 'shared' } }),
      );
      expect(Date.now() - startedAt).toBeLessThan(6000);
      expect(error).toBeInstanceOf(BrokerError);
      expect(error.message).toMatch(/^RabbitMQ did not answer at amqp:\/\/guest@127\.0\.0\.1:\d+ \(.*connect ECONNREFUSED/);
      expect(error.message).not.toContain('hunter22x');
    } finally {
      await notFound.close();
    }
  }, 20_000);

  it('tells a refused login from a broker that is not there', async () => {
    const error = await failureOf(
      runPreflight({
        folders: [],
        services: {
          amqpUrl: 'amqp://guest:wrong-password@127.0.0.1:5672',
          proxyApiUrl: `http://127.0.0.1:${await freePort()}`,
          embeddedProxy: 'auto',
          proxyScope: 'shared',
        },
      }),
    );
    expect(error.message).toMatch(
      /^RabbitMQ at amqp:\/\/guest@127\.0\.0\.1:5672 refused the login \(Handshake terminated by server: 403 \(ACCESS-REFUSED\)\); check the user and password in AMQP_URL$/,
    );
  }, 20_000);
});

describe('every wait in setup keeps the process alive', () => {
  it('a process whose only pending work is sleep() resumes after it instead of exiting mid-await', async () => {
    const script = `
      require('esbuild-register/dist/node').register();
      const { sleep } = require('./src/measure/clock.ts');
      sleep(300).then(() => process.stdout.write('resumed'));`;
    const child = spawn(process.execPath, ['-e', script], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    try {
      const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
      expect({ code, stdout }).toEqual({ code: 0, stdout: 'resumed' });
    } finally {
      child.kill('SIGKILL');
    }
  }, 20_000);
});
