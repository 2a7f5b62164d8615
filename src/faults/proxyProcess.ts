/**
 * Finds the fault proxy API, or starts the embedded proxy in a child process. A separate
 * process (like real Toxiproxy) keeps the proxy's event loop from competing with the test's.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { PROJECT_ROOT, type BenchConfig } from '../config';
import { ProxyError } from '../errors';
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
 * The fault proxy API of a run. Scope `own` (TOXIPROXY_URL unset): starts the embedded proxy in a
 * child process on a free loopback port, this run's alone, and says so in one line on stderr.
 * Scope `shared`: uses the Toxiproxy API at `config.proxyApiUrl` when one answers; when nothing
 * at all listens there (mode `auto`, loopback URL) starts the embedded proxy there. Anything else
 * that answers (not a Toxiproxy API, a wedged one, no answer) is an error: never start the
 * embedded proxy on a port something else holds.
 * @param probe what the preflight already found at the URL (asked again when not given; unused for `own`)
 * @throws ProxyError (one line) when no usable API answers and none may or can be started
 */
export async function ensureProxyApi(
  config: Pick<BenchConfig, 'proxyApiUrl' | 'embeddedProxy' | 'proxyScope'>,
  log: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
  probe?: ProxyApiProbe,
): Promise<ProxyApiHandle> {
  if (config.proxyScope === 'own') {
    const own = await startEmbeddedProxy('127.0.0.1', '0');
    log(`fault proxy: started this run's own embedded Toxiproxy-compatible proxy at ${own.apiUrl} (pid ${own.pid}; TOXIPROXY_URL unset)`);
    return { client: new ToxiproxyClient(own.apiUrl), started: true, pid: own.pid, stop: own.stop };
  }
  const client = new ToxiproxyClient(config.proxyApiUrl);
  const found = probe ?? (await probeProxyApi(config.proxyApiUrl));
  const problem = proxyProbeError(found, config, isLoopbackUrl(config.proxyApiUrl));
  if (problem) throw problem;
  if (found.state === 'toxiproxy') return { client, started: false, pid: undefined, stop: async () => undefined };

  const url = new URL(config.proxyApiUrl);
  const started = await startEmbeddedProxy(url.hostname.replace(/^\[|\]$/g, ''), url.port === '' ? '80' : url.port);
  log(`fault proxy: nothing answered at ${config.proxyApiUrl}; started the embedded Toxiproxy-compatible proxy there (pid ${started.pid})`);
  return { client, started: true, pid: started.pid, stop: started.stop };
}

/** The line `bench proxy` prints once its API listens, with the URL (the port it got when asked for 0). */
const LISTENING_LINE = /listening on (http:\/\/\S+)/;

/**
 * Starts `bench proxy` in a child process and resolves once it says where its API listens.
 * @throws ProxyError when it exits or says nothing within EMBEDDED_START_BOUND_MS (and is then stopped)
 */
async function startEmbeddedProxy(
  host: string,
  port: string,
): Promise<{ readonly apiUrl: string; readonly pid: number | undefined; stop(): Promise<void> }> {
  const child = spawn(
    process.execPath,
    [path.join(PROJECT_ROOT, 'bin', 'bench.js'), 'proxy', '--host', host, '--port', port, '--exit-with-stdin'],
    {
      cwd: PROJECT_ROOT,
      // stdin is a pipe only we hold: the proxy exits when it closes, however this process ends.
      stdio: ['pipe', 'pipe', 'pipe'],
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
  let timer: NodeJS.Timeout | undefined;
  const apiUrl = await Promise.race([
    listeningUrl(child),
    exited.then(() => undefined),
    new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), EMBEDDED_START_BOUND_MS))),
  ]);
  clearTimeout(timer);
  if (apiUrl !== undefined) return { apiUrl, pid: child.pid, stop };
  await stop();
  throw new ProxyError(
    'PROXY_UNREACHABLE',
    `the embedded fault proxy did not start at ${host}:${port === '0' ? '(a free port)' : port} within ${EMBEDDED_START_BOUND_MS / 1000} s: ${stderr.trim().split('\n').pop() || 'no output'}`,
  );
}

/** The API URL from the child's stdout; what it writes after that line is read and dropped (a full pipe would stall it). */
function listeningUrl(child: ChildProcess): Promise<string> {
  return new Promise((resolve) => {
    let seen: string | undefined = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      if (seen === undefined) return;
      seen = (seen + chunk.toString()).slice(-2000);
      const found = LISTENING_LINE.exec(seen);
      if (!found) return;
      seen = undefined;
      resolve(found[1]!);
    });
  });
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
