/**
 * Three mistakes a user makes before a run (a broker that is not there, a 404 or wedged server where the
 * fault proxy should be, a bad marker expression) and a folder that cannot be written, as a user makes them,
 * through `bench run` and through a plain `npx jest --selectProjects benchmark`: each exits
 * non-zero within 10 s with one clear line (no stack trace), starts no embedded proxy where
 * something else answers, and leaves a reports folder with prior content byte-for-byte unchanged.
 * Real things only: the real broker (and a port where none listens), a real HTTP server answering
 * 404, a real wedged-looking server (answers /version, never /proxies), a bad marker expression.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { startNotFoundServer, startWedgedToxiproxy, type FakeServer } from '../support/fakeServers';
import { freePort } from '../support/ports';
import { watchRunQueueWait } from '../support/runQueueWait';
import { seedPriorRun, snapshotTree, type SeededFolders } from '../support/reportsFolder';
import { tempDir } from '../results/helpers';

const ROOT = path.resolve(__dirname, '../..');
const BOUND_MS = 10_000;

type Way = 'bench run' | 'npx jest';

interface Outcome {
  readonly code: number | null;
  readonly elapsedMs: number;
  /** Of `elapsedMs`, the time the process waited for a CPU held by other processes (see runQueueWait.ts). */
  readonly runQueueWaitMs: number;
  /** stdout and stderr lines, ANSI colours removed, blank lines and Jest's project banner dropped. */
  readonly lines: readonly string[];
}

function launch(way: Way, env: NodeJS.ProcessEnv, markers?: string): Promise<Outcome> {
  const args =
    way === 'bench run'
      ? [path.join(ROOT, 'bin/bench.js'), 'run', '--quick', ...(markers ? ['-m', markers] : [])]
      : [require.resolve('jest/bin/jest'), '--selectProjects', 'benchmark', '-t', 'test_recovery_after_reset_peer\\[10\\]'];
  const startedAt = Date.now();
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      args,
      {
        cwd: ROOT,
        env: { ...process.env, ...env, ...(way === 'npx jest' && markers ? { BENCH_MARKERS: markers } : {}) },
        // Well past the bound, so a hang shows as a failed assertion rather than a killed test.
        timeout: 30_000,
        killSignal: 'SIGKILL',
      },
      (error, stdout, stderr) => {
        const lines = `${stdout}\n${stderr}`
          // eslint-disable-next-line no-control-regex
          .replace(/\u001b\[[0-9;]*m/g, '')
          .split('\n')
          .filter((line) => line.trim() !== '' && line !== 'Running one project: benchmark' && !line.startsWith('npm warn'));
        resolve({
          code: error ? ((error as { code?: number }).code ?? null) : 0,
          elapsedMs: Date.now() - startedAt,
          // The callback runs after the process ended, long after `watch` below was set.
          runQueueWaitMs: watch.stop(),
          lines,
        });
      },
    );
    const watch = watchRunQueueWait(child.pid);
  });
}

interface Mistake {
  readonly name: string;
  /** The one line, as printed (without the `bench: ` prefix). */
  readonly line: RegExp;
  readonly markers?: string;
  readonly setUp: (folders: SeededFolders) => Promise<{ env: NodeJS.ProcessEnv; server?: FakeServer }>;
}

const freeUrl = async () => `http://127.0.0.1:${await freePort()}`;

const MISTAKES: readonly Mistake[] = [
  {
    name: 'the broker is not reachable',
    line: /^RabbitMQ did not answer at amqp:\/\/guest@127\.0\.0\.1:\d+ \(connect ECONNREFUSED 127\.0\.0\.1:\d+\); start it with `rabbitmq-server -detached`/,
    setUp: async () => ({ env: { AMQP_URL: `amqp://guest:guest@127.0.0.1:${await freePort()}`, TOXIPROXY_URL: await freeUrl() } }),
  },
  {
    name: 'an unrelated HTTP server answers 404 at TOXIPROXY_URL',
    line: /^not a Toxiproxy API at http:\/\/127\.0\.0\.1:\d+ \(GET \/version answered 404 Not Found\); point TOXIPROXY_URL at Toxiproxy/,
    setUp: async () => {
      const server = await startNotFoundServer();
      return { env: { TOXIPROXY_URL: server.url }, server };
    },
  },
  {
    name: 'a wedged Toxiproxy (answers /version, never /proxies)',
    line: /^the Toxiproxy at http:\/\/127\.0\.0\.1:\d+ is wedged: it answers GET \/version \(2\.12\.0\) but not GET \/proxies within \d+ ms \(known upstream bug Shopify\/toxiproxy#558.*\); restart it/,
    setUp: async () => {
      const server = await startWedgedToxiproxy();
      return { env: { TOXIPROXY_URL: server.url }, server };
    },
  },
  {
    name: 'a malformed marker expression',
    markers: 'benchmark and',
    line: /^Invalid marker expression "benchmark and" \(from (BENCH_MARKERS|-m\/--markers)\) at column 14: expected a marker name, "not" or "\(" after "and", found the end of the expression\.$/,
    setUp: async () => ({ env: { TOXIPROXY_URL: await freeUrl() } }),
  },
  {
    name: 'a reports folder that cannot be created (a file stands in its path)',
    line: /^BENCH_REPORTS_DIR must be a folder this user can write \(.*LATEST_REPORT\.md is a file, not a folder\); got ".*"$/,
    setUp: async (folders) => ({
      env: { TOXIPROXY_URL: await freeUrl(), BENCH_REPORTS_DIR: path.join(folders.reportsDir, 'LATEST_REPORT.md', 'out') },
    }),
  },
];

describe.each<Way>(['bench run', 'npx jest'])('a mistake, made through %s', (way) => {
  let root: string;
  let folders: SeededFolders;
  let server: FakeServer | undefined;
  beforeEach(() => {
    root = tempDir('failsafe');
    folders = seedPriorRun(root);
  });
  afterEach(async () => {
    await server?.close();
    server = undefined;
    fs.rmSync(root, { recursive: true, force: true });
  });

  it.each(MISTAKES)(
    '$name: exits non-zero within 10 s, says so in one line, and changes nothing',
    async (mistake) => {
      const setUp = await mistake.setUp(folders);
      server = setUp.server;
      const before = snapshotTree(root);
      const outcome = await launch(
        way,
        {
          BENCH_RAW_DIR: folders.rawResultsDir,
          BENCH_REPORTS_DIR: folders.reportsDir,
          BENCH_PROXY_LISTEN: `127.0.0.1:${await freePort()}`,
          BENCH_EMBEDDED_PROXY: 'auto',
          BENCH_PIPELINE_OWNER: '',
          ...setUp.env,
        },
        mistake.markers,
      );

      expect(outcome.code).not.toBe(0);
      expect(outcome.code).not.toBeNull();
      // Its own time: wall time less the time it waited for a CPU other processes held (all shown on failure).
      const ownMs = Math.round(outcome.elapsedMs - outcome.runQueueWaitMs);
      expect(
        ownMs < BOUND_MS ? 'within 10 s' : `${ownMs} ms (${outcome.elapsedMs} ms wall, ${outcome.runQueueWaitMs} ms waiting for a CPU)`,
      ).toBe('within 10 s');
      const [first, ...rest] = outcome.lines;
      expect(first).toMatch(new RegExp(`^bench: ${mistake.line.source.slice(1)}`));
      // The run script shows a bad expression with a caret under the column; nothing else follows.
      expect(rest).toEqual(way === 'bench run' && mistake.markers ? ['benchmark and', '             ^'] : []);
      expect(outcome.lines.join('\n')).not.toMatch(/^\s+at |started the embedded/m);
      expect(snapshotTree(root)).toEqual(before);
      // Nothing took the port of the server that was there, and it saw only the probe's requests.
      if (server) expect(server.requests.every((request) => ['GET /version', 'GET /proxies'].includes(request))).toBe(true);
    },
    40_000,
  );
});
