/**
 * The names of the recovery figures, said the same way in the terminal, the report, the charts
 * and the docs: detection (first thread), propagation (all threads), detection spread (first to
 * last thread's detection), fault spread (first to last moment the fault acted, the proxy's),
 * full recovery and recovery after removal. One place, so a progress line can never call
 * propagation "detected in". A spread is always first to last: of the threads' detections, or of
 * the proxy's resets.
 */
import { round3 } from '../measure/round';
import type { Metric, RawResult } from '../results/rawResult';
import { SCENARIOS } from '../scenarios/catalogue';

/** Raw metric name -> the name readers see (lower case; capitalise at the start of a sentence or cell). */
export const RECOVERY_FIGURE_NAMES = {
  error_detection_latency_ms: 'detection (first thread)',
  error_propagation_latency_ms: 'propagation (all threads)',
  detection_spread_ms: 'detection spread',
  fault_spread_ms: 'fault spread',
  full_recovery_latency_ms: 'full recovery',
  recovery_after_removal_ms: 'recovery after removal',
} as const;

const nameOf = (metric: string): string | undefined => (RECOVERY_FIGURE_NAMES as Readonly<Record<string, string>>)[metric];

/** What the recovery table's columns mean, in one line under it (the first screen has no room for more). */
export const RECOVERY_TABLE_LEGEND =
  'Milliseconds from the fault moment (the proxy’s first RST, or first dropped chunk for a partition): detection = the first thread noticed it, propagation = all threads had, detection spread = the time between, fault spread = first to last moment the fault hit a connection (the proxy’s and the machine’s, not the client’s), full recovery = every thread consuming again.';

/** The faults of a summary result, by the prefix of their metric names (its descriptor's `metricPrefixes`). */
const SCENARIO_PREFIXES: readonly (readonly [string, string])[] = SCENARIOS.flatMap((descriptor) =>
  Object.entries(descriptor.metricPrefixes ?? {}),
);

/** Stems that a scenario prefix may stand before (so `partition_x` of another family is left alone). */
const PREFIXED_STEMS =
  /^(error_detection_latency_ms|error_propagation_latency_ms|detection_spread_ms|fault_spread_ms|full_recovery_latency_ms|recovery_after_removal_ms|threads_\w+)$/;

const capitalise = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** The fault scenario a resilience-summary figure belongs to (`rst_detection_spread_ms` -> TCP reset, `detection_spread_ms`); empty for other metrics. */
export function scenarioOfMetric(metric: string): { readonly scenario?: string; readonly stem?: string } {
  for (const [prefix, scenario] of SCENARIO_PREFIXES) {
    const stem = metric.slice(prefix.length);
    if (metric.startsWith(prefix) && PREFIXED_STEMS.test(stem)) return { scenario, stem };
  }
  return {};
}

/**
 * The reader's name of a recovery figure (`Detection (first thread)`, `TCP reset: detection spread`), or
 * undefined for any other metric.
 */
export function recoveryFigureName(metric: string): string | undefined {
  const own = nameOf(metric);
  if (own) return capitalise(own);
  const { scenario, stem } = scenarioOfMetric(metric);
  if (scenario === undefined || stem === undefined) return undefined;
  return `${scenario}: ${nameOf(stem) ?? stem.replace(/_/g, ' ')}`;
}

/** Detection spread = propagation - detection (first to last thread's detection); null unless both are numbers. */
export function detectionSpreadMs(detectionMs: number | null | undefined, propagationMs: number | null | undefined): number | null {
  if (typeof detectionMs !== 'number' || typeof propagationMs !== 'number') return null;
  return Math.max(0, propagationMs - detectionMs);
}

/**
 * The result with its derived figures: a detection spread after each propagation it has (also the
 * resilience summary's per-scenario ones). Nothing is written back; the raw result stays as recorded.
 */
export function withDerivedFigures(result: RawResult): RawResult {
  const entries = Object.entries(result.metrics);
  if (!entries.some(([name]) => name.endsWith('error_propagation_latency_ms'))) return result;
  const metrics: Record<string, Metric> = {};
  for (const [name, metric] of entries) {
    metrics[name] = metric;
    if (!name.endsWith('error_propagation_latency_ms')) continue;
    const prefix = name.slice(0, -'error_propagation_latency_ms'.length);
    const spread = detectionSpreadMs(result.metrics[`${prefix}error_detection_latency_ms`]?.value, metric.value);
    if (spread !== null) metrics[`${prefix}detection_spread_ms`] = { value: round3(spread), unit: 'ms', direction: 'lower' };
  }
  return { ...result, metrics };
}
