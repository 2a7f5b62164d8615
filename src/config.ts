/**
 * Every setting of the harness, read once from the environment and validated at the boundary.
 * A bad value stops with one line naming the variable and the expected form (ConfigError).
 */
import path from 'node:path';
import { isMainThread } from 'node:worker_threads';
import { CLIENT_PROFILES, type ClientSpec } from './client/api';
import { looksLikeAdapterModule, splitAdapterEntry } from './client/external';
import { CLIENT_NAMES, loadClientModule, parseClientSelection, unavailableClients } from './client/registry';
import { ConfigError } from './errors';
import { packageRoot } from './packageRoot';
import { resolveMinimumEffects, type MinimumEffects } from './minimumEffects';

/** A TCP endpoint, e.g. `127.0.0.1:25672`. */
export interface HostPort {
  readonly host: string;
  readonly port: number;
}

export type EmbeddedProxyMode = 'auto' | 'never';

/** Whose fault proxy a run uses: one it starts for itself (`own`), or the API at TOXIPROXY_URL, others' too (`shared`). */
export type ProxyScope = 'own' | 'shared';

export interface BenchConfig {
  /** AMQP_URL: the broker, reached directly. @default amqp://guest:guest@127.0.0.1:5672 */
  readonly amqpUrl: string;
  /** TOXIPROXY_URL: the fault proxy's HTTP API, used when set; `bench proxy` serves there. @default http://127.0.0.1:8474 */
  readonly proxyApiUrl: string;
  /**
   * `own` when TOXIPROXY_URL is unset and BENCH_EMBEDDED_PROXY=auto: the run starts an embedded
   * proxy of its own on free ports, so two runs on one machine never clear each other's toxics.
   * `shared` otherwise: the API at proxyApiUrl. @default own
   */
  readonly proxyScope: ProxyScope;
  /** BENCH_PROXY_NAME: the proxy entry; on a shared API a run's setup makes it `<name>-<pid>`, its own. @default rabbitmq */
  readonly proxyName: string;
  /** BENCH_PROXY_LISTEN: where the proxy entry listens (port 0: a free one). @default 127.0.0.1:0 own, 127.0.0.1:25672 shared */
  readonly proxyListen: HostPort;
  /** BENCH_PROXY_UPSTREAM: where the proxy entry forwards to (as seen by the proxy). @default 127.0.0.1:5672 */
  readonly proxyUpstream: HostPort;
  /** BENCH_EMBEDDED_PROXY: `auto` starts the embedded proxy when the API does not answer; `never` fails instead. @default auto */
  readonly embeddedProxy: EmbeddedProxyMode;
  /** BENCH_RAW_DIR: raw JSON results. @default <project>/reports/.test-output */
  readonly rawResultsDir: string;
  /** BENCH_REPORTS_DIR: report, archives, history, junit.xml. @default <project>/reports/benchmarks */
  readonly reportsDir: string;
  /**
   * BENCH_RUN_ID_CLAIMS: a folder shared by runs that must never share a run id although they
   * archive into different folders (`bench ab` sets it for its two sides). @default null
   */
  readonly runIdClaimsDir: string | null;
  /** BENCH_MARKERS: marker expression selecting benchmarks (e.g. `benchmark and not slow`). @default undefined (all) */
  readonly markerExpression: string | undefined;
  /** BENCH_STRICT_TARGETS: a missed target (e.g. RST detection < 10 ms) fails the test. @default false */
  readonly strictTargets: boolean;
  /**
   * BENCH_FAIL_ON_FINDINGS: a client's finding (a fault-matrix cell that failed: not noticed,
   * stopped consuming, publishes hung, ...) fails its test, for those who gate on a client's
   * behaviour; otherwise findings are results and the run passes. @default false
   */
  readonly failOnFindings: boolean;
  /**
   * BENCH_CLIENTS: the clients under test, each benchmark runs once per entry: `all`, or a list
   * of `name` (both profiles) / `name:profile` (`defaults` | `normalised`).
   * @default amqplib:defaults
   */
  readonly clients: readonly ClientSpec[];
  /**
   * BENCH_REPLICATES: replicates of every replicated measurement (publish throughput and its
   * harness-overhead check 6, consume-overhead pairs 5, the 10-thread recovery scenarios 5, recovery-overhead pairs 3) when
   * set; fewer make a run shorter (`npm run bench:clients` takes 1) but a comparison needs 5-6 on
   * each side before a change can ever be judged significant.
   * @default null (each benchmark's own count)
   */
  readonly replicates: number | null;
  /** BENCH_MIN_EFFECTS: the comparison's minimum effects, inline JSON or a JSON file (src/minimumEffects.ts). @default per family: throughput 20%, latency 30%, recovery 30%, counts 50% */
  readonly minimumEffects: MinimumEffects;
}

/** The project root (where this package's package.json lives), independent of the working directory. */
export const PROJECT_ROOT = packageRoot();

/**
 * Where relative settings (BENCH_RAW_DIR, BENCH_REPORTS_DIR, adapter modules) are resolved from:
 * BENCH_WORK_DIR, which the installed command (`amqp-bench`, bin/amqp-bench.js) sets to the folder
 * it was started in — the user's project, whose reports they are — else this project's root.
 */
export function workDir(env: Readonly<Record<string, string | undefined>> = process.env): string {
  const chosen = env.BENCH_WORK_DIR?.trim();
  return chosen ? path.resolve(chosen) : PROJECT_ROOT;
}

export const DEFAULTS = {
  amqpUrl: 'amqp://guest:guest@127.0.0.1:5672',
  proxyApiUrl: 'http://127.0.0.1:8474',
  proxyName: 'rabbitmq',
  proxyListen: '127.0.0.1:25672',
  proxyUpstream: '127.0.0.1:5672',
  embeddedProxy: 'auto',
  rawResultsDir: 'reports/.test-output',
  reportsDir: 'reports/benchmarks',
  clients: 'amqplib:defaults',
} as const;

/** Where the entry of a run's own proxy listens by default: a free port (0), so that two runs never want the same one. */
export const OWN_PROXY_LISTEN: HostPort = Object.freeze({ host: '127.0.0.1', port: 0 });

export type Env = Readonly<Record<string, string | undefined>>;

/** Reads a variable of `env`, trimmed; undefined when unset or blank (blank means "use the default"). */
export function envReader(env: Env): (name: string) => string | undefined {
  return (name) => {
    const raw = env[name];
    return raw === undefined || raw.trim() === '' ? undefined : raw.trim();
  };
}

/** Reads and validates every setting. @throws ConfigError naming the first bad variable. */
export function resolveConfig(env: Env = process.env): BenchConfig {
  const value = envReader(env);
  const embeddedProxy = parseChoice('BENCH_EMBEDDED_PROXY', value('BENCH_EMBEDDED_PROXY') ?? DEFAULTS.embeddedProxy, [
    'auto',
    'never',
  ] as const);
  // `never` asks for a Toxiproxy that runs already, at TOXIPROXY_URL or its default.
  const proxyScope: ProxyScope = value('TOXIPROXY_URL') === undefined && embeddedProxy === 'auto' ? 'own' : 'shared';
  return Object.freeze({
    amqpUrl: parseUrl(
      'AMQP_URL',
      value('AMQP_URL') ?? DEFAULTS.amqpUrl,
      ['amqp:', 'amqps:'],
      'an amqp:// or amqps:// URL (e.g. amqp://rabbit.internal:5672/vhost, credentials as user:password@ before the host)',
    ),
    proxyApiUrl: parseUrl(
      'TOXIPROXY_URL',
      value('TOXIPROXY_URL') ?? DEFAULTS.proxyApiUrl,
      ['http:', 'https:'],
      'an http:// URL of the Toxiproxy API (e.g. http://127.0.0.1:8474)',
    ).replace(/\/+$/, ''),
    proxyScope,
    proxyName: parseName('BENCH_PROXY_NAME', value('BENCH_PROXY_NAME') ?? DEFAULTS.proxyName),
    proxyListen:
      value('BENCH_PROXY_LISTEN') === undefined && proxyScope === 'own'
        ? OWN_PROXY_LISTEN
        : parseHostPort('BENCH_PROXY_LISTEN', value('BENCH_PROXY_LISTEN') ?? DEFAULTS.proxyListen),
    proxyUpstream: parseHostPort('BENCH_PROXY_UPSTREAM', value('BENCH_PROXY_UPSTREAM') ?? DEFAULTS.proxyUpstream),
    embeddedProxy,
    rawResultsDir: path.resolve(workDir(env), value('BENCH_RAW_DIR') ?? DEFAULTS.rawResultsDir),
    reportsDir: path.resolve(workDir(env), value('BENCH_REPORTS_DIR') ?? DEFAULTS.reportsDir),
    runIdClaimsDir: value('BENCH_RUN_ID_CLAIMS') === undefined ? null : path.resolve(workDir(env), value('BENCH_RUN_ID_CLAIMS')!),
    markerExpression: value('BENCH_MARKERS'),
    strictTargets: parseBoolean('BENCH_STRICT_TARGETS', value('BENCH_STRICT_TARGETS') ?? 'false'),
    failOnFindings: parseBoolean('BENCH_FAIL_ON_FINDINGS', value('BENCH_FAIL_ON_FINDINGS') ?? 'false'),
    ...refuseRetired(
      'BENCH_CLIENT_MODE',
      value('BENCH_CLIENT_MODE'),
      'unset; clients are chosen with BENCH_CLIENTS now (manual = amqplib, amqplib-recovery = amqplib-recovery, e.g. BENCH_CLIENTS=amqplib-recovery:defaults)',
    ),
    clients: resolveClientSelection('BENCH_CLIENTS', value('BENCH_CLIENTS') ?? DEFAULTS.clients, workDir(env)),
    replicates: parseReplicates('BENCH_REPLICATES', value('BENCH_REPLICATES')),
    minimumEffects: resolveMinimumEffects(value('BENCH_MIN_EFFECTS')),
  });
}

let cached: BenchConfig | undefined;

/** The configuration of this process, resolved on first use. */
export function getConfig(): BenchConfig {
  cached ??= resolveConfig();
  return cached;
}

/**
 * The broker URL as a client reaches it through the proxy entry: same credentials, vhost and
 * query, but the proxy's listen address (a wildcard listen address becomes loopback).
 */
export function proxiedAmqpUrl(config: Pick<BenchConfig, 'amqpUrl' | 'proxyListen'>): string {
  const url = new URL(config.amqpUrl);
  const host = ['0.0.0.0', '::', '[::]', ''].includes(config.proxyListen.host) ? '127.0.0.1' : config.proxyListen.host;
  url.hostname = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  url.port = String(config.proxyListen.port);
  return url.toString().replace(/\/$/, '');
}

/** `host:port` for an API body (`[::1]:5672` for IPv6). */
export function formatHostPort(endpoint: { readonly host: string; readonly port: number }): string {
  return endpoint.host.includes(':') ? `[${endpoint.host}]:${endpoint.port}` : `${endpoint.host}:${endpoint.port}`;
}

export function parseHostPort(variable: string, raw: string): HostPort {
  const expected = 'host:port with a port from 1 to 65535 (e.g. 127.0.0.1:25672)';
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([^:\s[\]]*)):(\d{1,5})$/.exec(raw);
  if (!match) throw new ConfigError(variable, expected, raw);
  const port = Number(match[3]);
  if (port < 1 || port > 65535) throw new ConfigError(variable, expected, raw);
  return Object.freeze({ host: match[1] ?? (match[2] || '0.0.0.0'), port });
}

function parseUrl(variable: string, raw: string, protocols: readonly string[], expected: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(variable, expected, raw);
  }
  if (!protocols.includes(url.protocol) || url.hostname === '') throw new ConfigError(variable, expected, raw);
  if (url.port !== '' && (Number(url.port) < 1 || Number(url.port) > 65535)) throw new ConfigError(variable, expected, raw);
  return raw;
}

/** A variable a version of the harness read and this one replaces: set, it is an error saying what to use instead. */
function refuseRetired(variable: string, raw: string | undefined, expected: string): Record<string, never> {
  if (raw !== undefined) throw new ConfigError(variable, expected, raw);
  return {};
}

/**
 * A client selection (`all`, or `name` / `name:profile` separated by commas), validated.
 * @throws ConfigError naming `variable` (BENCH_CLIENTS, or the CLI's --clients) and every valid client
 */
export function resolveClientSelection(variable: string, raw: string, cwd: string = workDir()): readonly ClientSpec[] {
  const specs: ClientSpec[] = [];
  const add = (spec: ClientSpec) => {
    if (!specs.some((known) => known.name === spec.name && known.profile === spec.profile && known.module === spec.module))
      specs.push(spec);
  };
  const expected = `"all" or a comma-separated list of clients (${CLIENT_NAMES.join(', ')}) or adapter modules (./bench/myClient.ts), each optionally :defaults or :normalised`;
  for (const entry of raw.split(',').map((part) => part.trim())) {
    if (entry === '') continue;
    if (looksLikeAdapterModule(entry)) {
      // An adapter from the user's project: loaded now, so a bad module is said before anything runs.
      const { modulePath, profile } = splitAdapterEntry(entry);
      const module = path.resolve(cwd, modulePath);
      const adapter = loadClientModule(module, variable);
      for (const each of profile === undefined ? (adapter.profiles ?? CLIENT_PROFILES) : [profile])
        add({ name: adapter.name, profile: each, module });
      continue;
    }
    if (entry.toLowerCase() === 'all') sayUnavailableOnce();
    const parsed = parseClientSelection(entry);
    if (typeof parsed === 'string') throw new ConfigError(variable, `${expected} (${parsed})`, raw);
    parsed.forEach(add);
  }
  if (specs.length === 0) throw new ConfigError(variable, `${expected} (no client named)`, raw);
  return Object.freeze(specs.map((spec) => Object.freeze(spec)));
}

let unavailableSaid = false;

/** `all` leaves out the clients this machine cannot run: one line each, once per process, saying how to install what is missing. */
function sayUnavailableOnce(): void {
  if (unavailableSaid || !isMainThread) return;
  unavailableSaid = true;
  for (const { name, why } of unavailableClients()) process.stderr.write(`bench: client ${name} skipped: ${why}\n`);
}

/** At most this many replicates: more would only lengthen a run past any use. */
export const MAX_REPLICATES = 50;

/** A whole number of replicates from 1 to MAX_REPLICATES, or null when unset. @throws ConfigError naming `variable` */
export function parseReplicates(variable: string, raw: string | undefined): number | null {
  if (raw === undefined) return null;
  const count = Number(raw);
  if (!/^\d+$/.test(raw) || count < 1 || count > MAX_REPLICATES)
    throw new ConfigError(
      variable,
      `a whole number of replicates from 1 to ${MAX_REPLICATES} (e.g. 2; unset: each benchmark's own count)`,
      raw,
    );
  return count;
}

/** The replicates a benchmark takes: BENCH_REPLICATES when set, else its own `count`. */
export function replicatesOr(count: number, config: Pick<BenchConfig, 'replicates'> = getConfig()): number {
  return config.replicates ?? count;
}

function parseName(variable: string, raw: string): string {
  if (!/^[A-Za-z0-9_.-]{1,100}$/.test(raw))
    throw new ConfigError(variable, 'a name of letters, digits, "_", "." or "-" (e.g. rabbitmq)', raw);
  return raw;
}

function parseChoice<T extends string>(variable: string, raw: string, choices: readonly T[]): T {
  const lowered = raw.toLowerCase();
  const found = choices.find((choice) => choice === lowered);
  if (found === undefined) throw new ConfigError(variable, `one of ${choices.join(', ')}`, raw);
  return found;
}

/** Accepts true/false, 1/0, yes/no, on/off (any case). */
export function parseBoolean(variable: string, raw: string): boolean {
  const lowered = raw.toLowerCase();
  if (['true', '1', 'yes', 'on'].includes(lowered)) return true;
  if (['false', '0', 'no', 'off'].includes(lowered)) return false;
  throw new ConfigError(variable, 'true or false (also 1/0, yes/no, on/off)', raw);
}
