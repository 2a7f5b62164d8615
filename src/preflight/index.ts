/**
 * The preflight: everything a benchmark run needs, checked before anything is touched (no raw
 * result deleted, no report, archive or history written, no proxy started). `bench run` runs it
 * before it sets the old raw results aside; the benchmark project's globalSetup runs it first
 * thing on a plain `npx jest --selectProjects benchmark`. Each failure is one line that says what
 * to do, within a few seconds (every check is bounded).
 */
import type { BenchConfig } from '../config';
import { checkBroker } from '../faults/brokerCheck';
import { isLoopbackUrl } from '../faults/proxyProcess';
import { parseMarkerExpression } from '../markers';
import { checkOutputFolder, type OutputFolder } from './folders';
import { probeProxyApi, proxyProbeError, type ProxyApiProbe, type ProxyProbeBounds } from './proxyProbe';

export { checkOutputFolder, type OutputFolder } from './folders';
export {
  DEFAULT_PROXY_PROBE_BOUNDS,
  probeProxyApi,
  proxyProbeError,
  TOXIPROXY_WEDGE_ISSUE,
  type ProxyApiProbe,
  type ProxyProbeBounds,
} from './proxyProbe';

export interface PreflightInput {
  /** The marker expression and where it came from (`BENCH_MARKERS`, `-m/--markers`); undefined = all. */
  readonly markers?: { readonly expression: string | undefined; readonly origin: string };
  /** Folders the run writes (raw results, reports). */
  readonly folders: readonly OutputFolder[];
  /** The broker and the fault proxy to check; null when the run's Jest config brings its own setup. */
  readonly services: Pick<BenchConfig, 'amqpUrl' | 'proxyApiUrl' | 'embeddedProxy' | 'proxyScope'> | null;
  /** How long the broker may take to complete the AMQP handshake. @default 5000 */
  readonly brokerBoundMs?: number;
  readonly proxyBounds?: Partial<ProxyProbeBounds>;
}

export interface PreflightPassed {
  /** RabbitMQ's version; null when it did not say, or services were not checked. */
  readonly brokerVersion: string | null;
  /**
   * What answers at TOXIPROXY_URL: `toxiproxy`, or `absent` where the embedded proxy may start;
   * `own` when the run starts a proxy of its own on a free port (TOXIPROXY_URL unset), where
   * nothing needs asking; null when not checked.
   */
  readonly proxy: Extract<ProxyApiProbe, { state: 'toxiproxy' | 'absent' }> | { readonly state: 'own' } | null;
}

/** @default 5000: a refused connection fails at once; this bounds a broker that accepts and stays silent. */
export const DEFAULT_BROKER_BOUND_MS = 5000;

/**
 * Runs every check (the broker and the proxy side by side) and resolves when all pass.
 * @throws the first failure in the order markers, folders, broker, proxy: a BenchError with a
 * one-line message (MarkerExpressionError, ConfigError, BrokerError, ProxyError)
 * @example await runPreflight({ markers: { expression: 'benchmark and not slow', origin: 'BENCH_MARKERS' }, folders, services: config })
 */
export async function runPreflight(input: PreflightInput): Promise<PreflightPassed> {
  if (input.markers) parseMarkerExpression(input.markers.expression, { origin: input.markers.origin });
  for (const folder of input.folders) checkOutputFolder(folder);
  const services = input.services;
  if (!services) return { brokerVersion: null, proxy: null };

  const own = services.proxyScope === 'own';
  const [broker, proxy] = await Promise.allSettled([
    checkBroker(services.amqpUrl, input.brokerBoundMs ?? DEFAULT_BROKER_BOUND_MS),
    // A proxy of the run's own is started on a free port: what answers at TOXIPROXY_URL's default is someone else's.
    own ? null : probeProxyApi(services.proxyApiUrl, input.proxyBounds),
  ]);
  if (broker.status === 'rejected') throw broker.reason;
  if (own) return { brokerVersion: broker.value, proxy: { state: 'own' } };
  if (proxy.status === 'rejected') throw proxy.reason; // probeProxyApi never rejects; kept for the type
  const probe = proxy.value!;
  const problem = proxyProbeError(probe, services, isLoopbackUrl(services.proxyApiUrl));
  if (problem) throw problem;
  // proxyProbeError answers every other state with an error; this only narrows the type.
  if (probe.state !== 'toxiproxy' && probe.state !== 'absent') throw new Error(`unexpected fault proxy probe state ${probe.state}`);
  return { brokerVersion: broker.value, proxy: probe };
}
