/**
 * Finds the fault proxy API, or starts the embedded proxy in a child process. A separate
 * process (like real Toxiproxy) keeps the proxy's event loop from competing with the test's.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { PROJECT_ROOT, type BenchConfig } from '../config';
import { ProxyError } from '../errors';
import { sleep } from '../measure/clock';
import { probeProxyApi, proxyProbeError, type ProxyApiProbe } from '../preflight/proxyProbe';
import { ToxiproxyClient } from './toxiproxyClient';

export interface ProxyApiHandle {
  readonly client: ToxiproxyClient;
  /** True when this call started the embedded proxy (and `stop` will stop it). */
  readonly started: boolean;
  readonly pid: number | undefined;
  stop(): Promise<void>;
}

/** How long the embedded proxy may take to answer after its process started (esbuild transpiles it first). */
const EMBEDDED_START_BOUND_MS = 15_000;

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

/** The embedded proxy can only be started for an API URL on this machine. */
export function isLoopbackUrl(apiUrl: string): boolean {
  return LOOPBACK.has(new URL(apiUrl).hostname);
}

/** True when something answers `GET /version` at `apiUrl` within `timeoutMs`. */
export async function proxyApiAnswers(apiUrl: string, timeoutMs = 700): Promise<boolean> {
  try {
    await new ToxiproxyClient(apiUrl, { timeoutMs }).version();
    return true;
  } catch {
    return false;
  }
}

/**
 * Uses the Toxiproxy API at `config.proxyApiUrl` when one answers; when nothing at all listens
 * there (mode `auto`, loopback URL) starts the embedded proxy there and says so in one line on
 * stderr. Anything else that answers (not a Toxiproxy API, a wedged one, no answer) is an error:
 * never start the embedded proxy on a port something else holds.
 * @param probe what the preflight already found at the URL (asked again when not given)
 * @throws ProxyError (one line) when no usable API answers and none may or can be started
 */
export async function ensureProxyApi(
  config: Pick<BenchConfig, 'proxyApiUrl' | 'embeddedProxy'>,
  log: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
  probe?: ProxyApiProbe,
): Promise<ProxyApiHandle> {
  const client = new ToxiproxyClient(config.proxyApiUrl);
  const found = probe ?? (await probeProxyApi(config.proxyApiUrl));
  const problem = proxyProbeError(found, config, isLoopbackUrl(config.proxyApiUrl));
  if (problem) throw problem;
  if (found.state === 'toxiproxy') return { client, started: false, pid: undefined, stop: async () => undefined };

  const url = new URL(config.proxyApiUrl);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const port = url.port === '' ? '80' : url.port;
  const child = spawn(
    process.execPath,
    [path.join(PROJECT_ROOT, 'bin', 'bench.js'), 'proxy', '--host', host, '--port', port, '--exit-with-stdin'],
    {
      cwd: PROJECT_ROOT,
      // stdin is a pipe only we hold: the proxy exits when it closes, however this process ends.
      stdio: ['pipe', 'ignore', 'pipe'],
      detached: false,
    },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-2000);
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  // Whatever happens to this process (a failed setup, an interrupted run), the proxy goes with it.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  void exited.then(() => process.off('exit', killOnExit));
  const stop = onceStopper(child, exited);
  // A deadline, not a count of sleeps: each attempt itself may take up to its 300 ms bound.
  const deadline = Date.now() + EMBEDDED_START_BOUND_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) break;
    if (await proxyApiAnswers(config.proxyApiUrl, 300)) {
      log(
        `fault proxy: nothing answered at ${config.proxyApiUrl}; started the embedded Toxiproxy-compatible proxy there (pid ${child.pid})`,
      );
      return { client, started: true, pid: child.pid, stop };
    }
    await sleep(100);
  }
  await stop();
  throw new ProxyError(
    'PROXY_UNREACHABLE',
    `the embedded fault proxy did not start at ${config.proxyApiUrl} within ${EMBEDDED_START_BOUND_MS / 1000} s: ${stderr.trim().split('\n').pop() || 'no output'}`,
  );
}

function onceStopper(child: ChildProcess, exited: Promise<number | null>): () => Promise<void> {
  let stopping: Promise<void> | undefined;
  return () => {
    stopping ??= (async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    })();
    return stopping;
  };
}
