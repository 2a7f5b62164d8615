/**
 * The preflight's one-line messages, each checked against what it claims (pure: the probes that
 * produce these states against real servers are in proxyProbe.int.test.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import { ConfigError, ProxyError } from '../../src/errors';
import { checkOutputFolder, proxyProbeError, runPreflight, type ProxyApiProbe } from '../../src/preflight';
import { tempDir } from '../results/helpers';

const auto = { proxyApiUrl: 'http://127.0.0.1:18999', embeddedProxy: 'auto' } as const;

describe('fault proxy probe verdicts', () => {
  it('lets a Toxiproxy API through, and nothing-listens where the embedded proxy may start', () => {
    expect(proxyProbeError({ state: 'toxiproxy', version: '2.12.0' }, auto, true)).toBeNull();
    expect(proxyProbeError({ state: 'absent', reason: 'ECONNREFUSED' }, auto, true)).toBeNull();
  });

  it.each<[string, ProxyApiProbe, string, boolean, RegExp]>([
    [
      'not a Toxiproxy API (404)',
      { state: 'foreign', reason: 'GET /version answered 404 Not Found' },
      'auto',
      true,
      /^not a Toxiproxy API at http:\/\/127\.0\.0\.1:18999 \(GET \/version answered 404 Not Found\); point TOXIPROXY_URL at Toxiproxy, or at a free loopback port/,
    ],
    [
      'wedged, naming the upstream issue and not "start it"',
      { state: 'wedged', version: '2.12.0', boundMs: 3000 },
      'auto',
      true,
      /^the Toxiproxy at http:\/\/127\.0\.0\.1:18999 is wedged: it answers GET \/version \(2\.12\.0\) but not GET \/proxies within 3000 ms \(known upstream bug Shopify\/toxiproxy#558.*\); restart it/,
    ],
    [
      'no answer',
      { state: 'unreachable', reason: 'GET /version: no answer within 2000 ms' },
      'auto',
      true,
      /^the fault proxy API at http:\/\/127\.0\.0\.1:18999 did not answer \(GET \/version: no answer within 2000 ms\); check what runs there/,
    ],
    [
      'nothing there, embedded proxy not allowed',
      { state: 'absent', reason: 'ECONNREFUSED' },
      'never',
      true,
      /^no fault proxy API answers at http:\/\/127\.0\.0\.1:18999 and BENCH_EMBEDDED_PROXY=never; start Toxiproxy/,
    ],
    [
      'nothing there, not on this machine',
      { state: 'absent', reason: 'ECONNREFUSED' },
      'auto',
      false,
      /^no fault proxy API answers at http:\/\/127\.0\.0\.1:18999; the embedded proxy can only be started on this machine/,
    ],
  ])('%s: one line that says what to do', (_case, probe, mode, canStart, message) => {
    const error = proxyProbeError(probe, { ...auto, embeddedProxy: mode as 'auto' | 'never' }, canStart);
    expect(error).toBeInstanceOf(ProxyError);
    expect(error!.message).toMatch(message);
    expect(error!.message).not.toContain('\n');
    // Starting a proxy is advice for when nothing runs there; never for a server that is running.
    if (probe.state !== 'absent') expect(error!.message).not.toMatch(/npm run proxy|\bstart it/);
  });
});

describe('output folders', () => {
  let root: string;
  beforeEach(() => {
    root = tempDir('folders');
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  it('accepts a folder that exists, or does not yet under a writable one, and creates nothing', () => {
    expect(() => checkOutputFolder({ path: root, setting: 'BENCH_REPORTS_DIR' })).not.toThrow();
    expect(() => checkOutputFolder({ path: path.join(root, 'a', 'b'), setting: 'BENCH_REPORTS_DIR' })).not.toThrow();
    expect(fs.readdirSync(root)).toEqual([]);
  });

  it('names the setting and the file in the way when a file stands where a folder should be', () => {
    const file = path.join(root, 'taken');
    fs.writeFileSync(file, 'x');
    for (const target of [file, path.join(file, 'reports')]) {
      const error = (() => {
        try {
          checkOutputFolder({ path: target, setting: '-o/--output' });
        } catch (caught) {
          return caught;
        }
        return undefined;
      })();
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as Error).message).toBe(
        `-o/--output must be a folder this user can write (${file} is a file, not a folder); got ${JSON.stringify(target)}`,
      );
    }
  });

  const messageOf = (check: () => void) => {
    try {
      check();
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      return (error as Error).message;
    }
    throw new Error('the folder was accepted');
  };

  it('refuses a path whose nearest existing ancestor looks writable but where nothing can be created (/proc)', () => {
    // As root, access(2) says /proc is writable; only creating something there tells the truth.
    expect(messageOf(() => checkOutputFolder({ path: '/proc/amqp-bench/reports', setting: '-o/--output' }))).toMatch(
      /^-o\/--output must be a folder this user can write \((nothing can be created in \/proc: ENOENT|\/proc is not writable: EACCES)\); got "\/proc\/amqp-bench\/reports"$/,
    );
  });

  it('refuses a path the file system cannot create (a name too long), and leaves nothing behind', () => {
    const target = path.join(root, 'reports', 'x'.repeat(300));
    expect(messageOf(() => checkOutputFolder({ path: target, setting: 'BENCH_RAW_DIR' }))).toBe(
      `BENCH_RAW_DIR must be a folder this user can write (${target} cannot be created: ENAMETOOLONG); got ${JSON.stringify(target)}`,
    );
    expect(fs.readdirSync(root)).toEqual([]);
  });

  it('refuses a file system without room for a run, saying how much it has and needs', () => {
    expect(messageOf(() => checkOutputFolder({ path: root, setting: 'BENCH_REPORTS_DIR' }, Number.MAX_SAFE_INTEGER))).toMatch(
      new RegExp(
        `^BENCH_REPORTS_DIR must be a folder this user can write \\(${root} has \\d+ (KiB|MiB) free on its file system; a run needs at least \\d+ MiB\\); got "${root}"$`,
      ),
    );
  });

  it('names a file the run replaces when it stands in the way, and opens none for writing that it could change', () => {
    fs.mkdirSync(path.join(root, 'benchmark_history.json'));
    fs.writeFileSync(path.join(root, 'LATEST_REPORT.md'), 'old');
    expect(
      messageOf(() =>
        checkOutputFolder({ path: root, setting: 'BENCH_REPORTS_DIR', replaces: ['LATEST_REPORT.md', 'benchmark_history.json'] }),
      ),
    ).toBe(
      `BENCH_REPORTS_DIR must be a folder this user can write (${path.join(root, 'benchmark_history.json')} is a folder, not a file); got ${JSON.stringify(root)}`,
    );
    expect(fs.readFileSync(path.join(root, 'LATEST_REPORT.md'), 'utf8')).toBe('old');
  });

  it('removes a probe left by a preflight that was killed (its pid gone), and only that one', () => {
    const abandoned = path.join(root, `.bench-preflight-${2 ** 22 + 1}-0a0b0c0d`);
    const live = path.join(root, `.bench-preflight-${process.pid}-0a0b0c0d`);
    fs.mkdirSync(abandoned);
    fs.mkdirSync(live);
    checkOutputFolder({ path: root, setting: 'BENCH_RAW_DIR' });
    expect(fs.readdirSync(root)).toEqual([path.basename(live)]);
  });
});

describe('runPreflight without services', () => {
  it('checks the marker expression first, once, with the column', async () => {
    await expect(
      runPreflight({ markers: { expression: 'benchmark and', origin: 'BENCH_MARKERS' }, folders: [], services: null }),
    ).rejects.toThrow(/^Invalid marker expression "benchmark and" \(from BENCH_MARKERS\) at column 14: expected a marker name/);
    await expect(
      runPreflight({ markers: { expression: undefined, origin: 'BENCH_MARKERS' }, folders: [], services: null }),
    ).resolves.toEqual({
      brokerVersion: null,
      proxy: null,
    });
  });
});
