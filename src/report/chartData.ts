/**
 * The rows each chart plots, picked out of the results (pure). Which families a chart draws is
 * their descriptors' word (src/scenarios/, `chart`); anything else simply does not appear in a
 * chart (it still appears in the report's tables). The history trend's rows are in trendData.ts.
 */
import { compareResults } from '../results/keyMetrics';
import type { RawResult } from '../results/rawResult';
import { descriptorOf, familiesWithChart, scenarioRank, suiteOf, timesAreRecovery } from '../scenarios/catalogue';
import { parametersText, recoveryScenarioLabel, recoveryScenarioName, varyingParameterKeys } from './configurations';
import { RECOVERY_FIGURE_NAMES } from './metricNames';

const valueOf = (result: RawResult, metric: string): number | undefined => {
  const value = result.metrics[metric]?.value;
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
};

const sorted = (results: readonly RawResult[]) => [...results].sort(compareResults);

export interface ThroughputRow {
  readonly threads: number;
  readonly series: string;
  readonly throughput: number;
}

const charted = (role: Parameters<typeof familiesWithChart>[0]) => {
  const families = familiesWithChart(role);
  return (result: RawResult) => families.includes(result.name);
};

/** Publish rate by thread count (`publish_by_threads` families), one series per combination of the other parameters that vary (`256 B · confirm`). */
export function throughputByThreadsRows(results: readonly RawResult[]): ThroughputRow[] {
  const family = sorted(results.filter(charted('publish_by_threads')));
  const seriesKeys = varyingParameterKeys(family).filter((key) => key !== 'threads');
  return family
    .filter((result) => typeof result.parameters.threads === 'number' && valueOf(result, 'throughput_msgs_per_sec') !== undefined)
    .map((result) => ({
      threads: result.parameters.threads as number,
      series: seriesKeys.length === 0 ? 'publish' : parametersText(result.parameters, seriesKeys),
      throughput: valueOf(result, 'throughput_msgs_per_sec')!,
    }));
}

/** What a latency measures: three different things that must not share an axis. */
export type LatencyKind = 'publish-call' | 'publish-confirm' | 'end-to-end' | 'other';

export const LATENCY_KIND_TITLES: Readonly<Record<LatencyKind, string>> = {
  'publish-call': 'Publish-call time (plain publish: the publish() call)',
  'publish-confirm': 'Publish → confirm (confirm mode: publish to the broker’s confirm)',
  'end-to-end': 'End-to-end latency (publish → delivery to a consumer)',
  other: 'Other latencies',
};

export interface LatencyRow {
  readonly kind: LatencyKind;
  readonly configuration: string;
  readonly percentile: string;
  /** In `unit`: µs for publish-call times (they are that small), else ms. */
  readonly latency: number;
  readonly unit: 'µs' | 'ms';
  readonly order: number;
}

const LATENCY_METRIC = /^(.*)_latency_(p\d+|max)_ms$/;
const PERCENTILE_ORDER = ['p50', 'p90', 'p95', 'p99', 'p999', 'max'];

function latencyKind(result: RawResult, stem: string): LatencyKind {
  if (stem === 'publish') return result.parameters.publish_mode === 'confirm' ? 'publish-confirm' : 'publish-call';
  return stem === 'e2e' ? 'end-to-end' : 'other';
}

/** A short row label: `10 threads · 256 B` for publishing (the mode is the panel), the workload for end-to-end. */
function latencyConfiguration(result: RawResult, family: readonly RawResult[], stem: string, kind: LatencyKind): string {
  const chart = descriptorOf(result).chart;
  if (chart === 'publish_by_threads') {
    const keys = varyingParameterKeys(family).filter((key) => key !== 'publish_mode');
    return keys.length === 0 ? 'publish' : parametersText(result.parameters, keys);
  }
  const workload = descriptorOf(result).label;
  const varying = varyingParameterKeys(family);
  const label = varying.length === 0 ? workload : `${workload} · ${parametersText(result.parameters, varying)}`;
  if (chart === 'consumer_scaling' && varying.length === 0 && result.parameters.consumers !== undefined) {
    return `${workload} · ${String(result.parameters.consumers)} consumers`;
  }
  return kind === 'other' ? `${label} (${stem.replace(/_/g, ' ')})` : label;
}

/**
 * Latency percentiles of the throughput and realistic results measured without a fault, by kind
 * (publish call, publish → confirm, end-to-end).
 */
export function latencyPercentileRows(results: readonly RawResult[]): LatencyRow[] {
  const rows: LatencyRow[] = [];
  const trafficOnly = (r: RawResult) => ['throughput', 'realistic'].includes(suiteOf(r).name) && !timesAreRecovery(r);
  const relevant = sorted(results.filter(trafficOnly));
  for (const result of relevant) {
    const family = relevant.filter((candidate) => candidate.name === result.name);
    for (const metric of Object.keys(result.metrics)) {
      const match = LATENCY_METRIC.exec(metric);
      const latency = valueOf(result, metric);
      if (!match || latency === undefined || latency <= 0) continue;
      const kind = latencyKind(result, match[1]!);
      const unit = kind === 'publish-call' ? 'µs' : 'ms';
      rows.push({
        kind,
        configuration: latencyConfiguration(result, family, match[1]!, kind),
        percentile: match[2]!,
        latency: unit === 'µs' ? latency * 1000 : latency,
        unit,
        order: PERCENTILE_ORDER.indexOf(match[2]!),
      });
    }
  }
  return rows;
}

export interface ScalabilityRow {
  readonly consumers: number;
  readonly series: string;
  readonly value: number;
  readonly panel: 'throughput' | 'startup';
}

/** Consumer scaling (`consumer_scaling` families): produce/consume msg/s and consumer start-up time by consumer count. */
export function consumerScalabilityRows(results: readonly RawResult[]): ScalabilityRow[] {
  const rows: ScalabilityRow[] = [];
  for (const result of sorted(results.filter(charted('consumer_scaling')))) {
    const consumers = result.parameters.consumers;
    if (typeof consumers !== 'number') continue;
    const produce = valueOf(result, 'produce_throughput_msgs_per_sec');
    const consume = valueOf(result, 'consume_throughput_msgs_per_sec');
    const startup = valueOf(result, 'consumer_startup_ms');
    if (produce !== undefined) rows.push({ consumers, series: 'produce', value: produce, panel: 'throughput' });
    if (consume !== undefined) rows.push({ consumers, series: 'consume', value: consume, panel: 'throughput' });
    if (startup !== undefined) rows.push({ consumers, series: 'consumer start-up', value: startup, panel: 'startup' });
  }
  return rows;
}

export interface RecoveryRow {
  readonly scenario: string;
  /** The fault (`TCP reset`, `Partition`): one colour each. */
  readonly fault: string;
  readonly phase: string;
  readonly latency: number;
  readonly order: number;
  /** This scenario's target for this phase (ms), if it has one. */
  readonly target: number | null;
}

/** The phases charted, in the report's names. */
export const RECOVERY_PHASES = [
  ['error_detection_latency_ms', RECOVERY_FIGURE_NAMES.error_detection_latency_ms],
  ['error_propagation_latency_ms', RECOVERY_FIGURE_NAMES.error_propagation_latency_ms],
  ['full_recovery_latency_ms', RECOVERY_FIGURE_NAMES.full_recovery_latency_ms],
  ['recovery_after_removal_ms', RECOVERY_FIGURE_NAMES.recovery_after_removal_ms],
] as const;

/** Recovery scenarios (`recovery` charts): each phase per scenario and parameter set, with its targets. */
export function recoveryRows(results: readonly RawResult[]): RecoveryRow[] {
  const recovery = sorted(results.filter(charted('recovery'))).sort((a, b) => scenarioRank(a.name) - scenarioRank(b.name));
  const familyOf = (name: string) => recovery.filter((candidate) => candidate.name === name);
  const rows: RecoveryRow[] = [];
  for (const result of recovery) {
    RECOVERY_PHASES.forEach(([metric, phase], order) => {
      const latency = valueOf(result, metric);
      const target = result.targets?.find((candidate) => candidate.metric === metric)?.threshold ?? null;
      if (latency !== undefined) {
        rows.push({
          scenario: recoveryScenarioLabel(result, familyOf(result.name)),
          fault: recoveryScenarioName(result.name),
          phase,
          latency,
          order,
          target,
        });
      }
    });
  }
  return rows;
}
