/**
 * Two runs on one machine through the fault proxy: each run's globalSetup in a process of its own,
 * as two `bench run`s (or the two sides of `bench ab`) start them. A toxic one run armed must
 * survive the other's setup and its clearing of toxics, and each run's teardown removes only its
 * own. Real broker, real embedded proxies, real sockets.
 */
import amqp from 'amqplib';
import { ToxiproxyClient } from '../../src/faults';
import { proxyApiAnswers } from '../../src/faults/proxyProcess';
import { openRunProxy } from '../../src/faults/runProxy';
import { removeAllToxics, type ProxyTarget } from '../../src/faults/toxics';
import { startProxyServer } from '../../src/proxy';
import { freePort } from '../support/ports';
import { eventually, startSetupProcess, type SetupProcess } from '../support/setupProcess';

const RESET = { type: 'reset_peer', name: 'run-a-reset', stream: 'downstream', toxicity: 1, attributes: { timeout: 0 } } as const;

function targetOf(run: SetupProcess): ProxyTarget {
  return { client: new ToxiproxyClient(run.env.TOXIPROXY_URL), name: run.env.BENCH_PROXY_NAME };
}

/** `ok` when an AMQP connection through `listen` opens, else the error's code (ECONNRESET under reset_peer). */
async function connectThrough(listen: string): Promise<string> {
  const port = listen.slice(listen.lastIndexOf(':') + 1);
  try {
    const connection = await amqp.connect(`amqp://guest:guest@127.0.0.1:${port}`, { timeout: 5000 });
    await connection.close();
    return 'ok';
  } catch (error) {
    return (error as { code?: string }).code ?? String(error);
  }
}

/** Runs A then B, arms A's toxic before B sets up, and has B clear its toxics as every cell does; then tears both down. */
async function twoRuns(env: Record<string, string>, check: (a: SetupProcess, b: SetupProcess) => Promise<void>): Promise<void> {
  const runs: SetupProcess[] = [];
  try {
    const a = await startSetupProcess(env);
    runs.push(a);
    await targetOf(a).client.addToxic(a.env.BENCH_PROXY_NAME, RESET);
    const b = await startSetupProcess(env);
    runs.push(b);
    expect(await removeAllToxics(targetOf(b))).toBe(0);
    expect((await targetOf(a).client.listToxics(a.env.BENCH_PROXY_NAME)).map((toxic) => toxic.name)).toEqual([RESET.name]);
    expect(await connectThrough(a.env.BENCH_PROXY_LISTEN)).toBe('ECONNRESET');
    expect(await connectThrough(b.env.BENCH_PROXY_LISTEN)).toBe('ok');
    await check(a, b);
    expect(await a.tearDown()).toBe(0);
    expect(await b.tearDown()).toBe(0);
  } finally {
    for (const run of runs) run.kill();
  }
}

describe('two runs on one machine never share a proxy entry', () => {
  it('TOXIPROXY_URL unset: each run starts a proxy of its own on free ports, and stops it at teardown', async () => {
    let apis: string[] = [];
    await twoRuns({ BENCH_EMBEDDED_PROXY: 'auto' }, async (a, b) => {
      apis = [a.env.TOXIPROXY_URL, b.env.TOXIPROXY_URL];
      expect(a.env.TOXIPROXY_URL).not.toBe(b.env.TOXIPROXY_URL);
      expect(a.env.BENCH_PROXY_LISTEN).not.toBe(b.env.BENCH_PROXY_LISTEN);
      for (const run of [a, b]) {
        // Never the defaults, where a developer's Toxiproxy or RabbitMQ's inter-node port may be.
        expect(run.env.TOXIPROXY_URL).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
        expect(run.env.TOXIPROXY_URL).not.toMatch(/:8474$/);
        expect(run.env.BENCH_PROXY_LISTEN).toMatch(/^127\.0\.0\.1:\d+$/);
        expect(run.env.BENCH_PROXY_LISTEN).not.toMatch(/:25672$/);
        expect(run.env.BENCH_PROXY_NAME).toBe('rabbitmq');
        expect(run.stderr()).toContain(`started this run's own embedded Toxiproxy-compatible proxy at ${run.env.TOXIPROXY_URL}`);
      }
    });
    for (const api of apis) expect(await eventually(async () => !(await proxyApiAnswers(api, 300)), 10_000)).toBe(true);
  }, 120_000);

  it('TOXIPROXY_URL set (a shared API): each run makes an entry <name>-<pid> of its own and deletes it at teardown', async () => {
    const shared = await startProxyServer({ host: '127.0.0.1', port: 0 });
    try {
      // Both runs ask for the same listen port, as they do with the default: the second takes a free one.
      const env = { TOXIPROXY_URL: shared.url, BENCH_PROXY_LISTEN: `127.0.0.1:${await freePort()}`, BENCH_EMBEDDED_PROXY: 'never' };
      await twoRuns(env, async (a, b) => {
        expect([a.env.TOXIPROXY_URL, b.env.TOXIPROXY_URL]).toEqual([shared.url, shared.url]);
        expect([a.env.BENCH_PROXY_NAME, b.env.BENCH_PROXY_NAME]).toEqual([`rabbitmq-${a.pid}`, `rabbitmq-${b.pid}`]);
        expect(a.env.BENCH_PROXY_LISTEN).toBe(env.BENCH_PROXY_LISTEN);
        expect(b.env.BENCH_PROXY_LISTEN).not.toBe(env.BENCH_PROXY_LISTEN);
      });
      // Each teardown deleted its own entry; the shared API, not theirs, still runs.
      expect(await new ToxiproxyClient(shared.url).listProxies()).toEqual({});
    } finally {
      await shared.close();
    }
  }, 120_000);
});

describe('an entry provisioned before the run (CI, compose)', () => {
  it('is used when it holds the configured listen port, and kept at close', async () => {
    const shared = await startProxyServer({ host: '127.0.0.1', port: 0 });
    try {
      const api = new ToxiproxyClient(shared.url);
      const provisioned = await api.createProxy({ name: 'rabbitmq', listen: '127.0.0.1:0', upstream: '127.0.0.1:5672', enabled: true });
      const port = Number(provisioned.listen.slice(provisioned.listen.lastIndexOf(':') + 1));
      await api.addToxic('rabbitmq', { type: 'latency', name: 'leftover', attributes: { latency: 1 } });
      const lines: string[] = [];
      const proxy = await openRunProxy(
        {
          proxyApiUrl: shared.url,
          embeddedProxy: 'never',
          proxyScope: 'shared',
          proxyName: 'rabbitmq',
          proxyListen: { host: '127.0.0.1', port },
          proxyUpstream: { host: '127.0.0.1', port: 5672 },
        },
        (line) => lines.push(line),
      );
      expect(proxy.env).toEqual({ TOXIPROXY_URL: shared.url, BENCH_PROXY_NAME: 'rabbitmq', BENCH_PROXY_LISTEN: `127.0.0.1:${port}` });
      expect(proxy.ownsEntry).toBe(false);
      expect(lines).toContainEqual(expect.stringMatching(/is held by the entry "rabbitmq", made before this run; using that entry/));
      expect(await connectThrough(proxy.env.BENCH_PROXY_LISTEN)).toBe('ok');
      await proxy.close();
      await proxy.close();
      expect(Object.keys(await api.listProxies())).toEqual(['rabbitmq']);
      expect(await api.listToxics('rabbitmq')).toEqual([]);
    } finally {
      await shared.close();
    }
  }, 30_000);
});
