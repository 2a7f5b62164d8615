/**
 * The rows each chart plots, picked out of the results and the history (pure). Families and
 * metric names are those the suites write; anything else simply does not appear in a chart (it
 * still appears in the report's tables).
 */
import type { HistoryEntry } from '../results/history';
import { compareResults, type KeyMetric } from '../results/keyMetrics';
import type { RawResult } from '../results/rawResult';
import { shortParameters } from './labels';

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

/** publish_throughput: msg/s by thread count, one series per mode and message size. */
export function throughputByThreadsRows(results: readonly RawResult[]): ThroughputRow[] {
  return sorted(results.filter((result) => result.name === 'publish_throughput'))
    .filter((result) => typeof result.parameters.threads === 'number' && valueOf(result, 'throughput_msgs_per_sec') !== undefined)
    .map((result) => ({
      threads: result.parameters.threads as number,
      series: shortParameters(result.parameters, ['threads', 'messages_per_thread']),
      throughput: valueOf(result, 'throughput_msgs_per_sec')!,
    }));
}

export interface LatencyRow {
  readonly configuration: string;
  readonly percentile: string;
  readonly latency: number;
  readonly order: number;
}

const LATENCY_METRIC = /^(.*)_latency_(p\d+|max)_ms$/;
const PERCENTILE_ORDER = ['p50', 'p90', 'p95', 'p99', 'p999', 'max'];

/** A short axis label: `publish 100×100 · 256 B · confirm`, `massive consumers 20×200`, else the family and two parameters. */
function configurationLabel(result: RawResult): string {
  const p = result.parameters;
  if (result.name === 'publish_throughput' && p.threads !== undefined) {
    return `publish ${p.threads}×${p.messages_per_thread ?? '?'} · ${p.message_size_bytes ?? '?'} B · ${p.mode ?? ''}`.trim();
  }
  if (result.name === 'massive_consumers' && p.consumers !== undefined) return `massive consumers ${p.consumers}×${p.messages ?? '?'}`;
  const family = result.name.replace(/^realistic_/, '').replace(/_/g, ' ');
  const parameters = shortParameters(p, [
    'messages_per_thread',
    'rounds',
    'worker_threads',
    'consumer_threads',
    'producer_threads',
    'prefetch',
    'message_bytes',
  ])
    .split(' · ')
    .filter(Boolean)
    .slice(0, 2)
    .join(' · ');
  return parameters ? `${family} · ${parameters}` : family;
}

/** Latency percentiles of the throughput and scalability results (publish latency, end-to-end latency). */
export function latencyPercentileRows(results: readonly RawResult[]): LatencyRow[] {
  const rows: LatencyRow[] = [];
  for (const result of sorted(results.filter((r) => r.category === 'throughput' || r.category === 'scalability'))) {
    for (const metric of Object.keys(result.metrics)) {
      const match = LATENCY_METRIC.exec(metric);
      const latency = valueOf(result, metric);
      if (!match || latency === undefined || latency <= 0) continue;
      // Axis labels must stay short: the family, its first three parameters, and which latency
      // when a result has several (publish, end-to-end).
      const stems = new Set(
        Object.keys(result.metrics)
          .map((name) => LATENCY_METRIC.exec(name)?.[1])
          .filter(Boolean),
      );
      rows.push({
        configuration: `${configurationLabel(result)}${stems.size > 1 ? ` (${match[1]!.replace(/_/g, ' ')})` : ''}`,
        percentile: match[2]!,
        latency,
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

/** massive_consumers: produce/consume msg/s and consumer start-up time by consumer count. */
export function consumerScalabilityRows(results: readonly RawResult[]): ScalabilityRow[] {
  const rows: ScalabilityRow[] = [];
  for (const result of sorted(results.filter((r) => r.name === 'massive_consumers'))) {
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
  readonly phase: string;
  readonly latency: number;
  readonly order: number;
  /** This scenario's target for this phase (ms), if it has one. */
  readonly target: number | null;
}

const RECOVERY_PHASES = [
  ['error_detection_latency_ms', 'detection (first thread)'],
  ['error_propagation_latency_ms', 'propagation (all threads)'],
  ['full_recovery_latency_ms', 'full recovery'],
] as const;

const SCENARIO_LABELS: Record<string, string> = {
  recovery_after_reset_peer: 'TCP reset',
  recovery_after_network_partition: 'partition',
  recovery_with_latency_before_failure: 'latency, then reset',
};

/** Short enough to read on an axis: `TCP reset · 50 threads` (plus the mode when not the default). */
function scenarioLabel(result: RawResult): string {
  const kind = SCENARIO_LABELS[result.name] ?? result.name.replace(/^recovery_(after_|with_)?/, '').replace(/_/g, ' ');
  const threads = result.parameters.threads === undefined ? '' : ` · ${result.parameters.threads} threads`;
  const mode = result.parameters.mode !== undefined && result.parameters.mode !== 'manual' ? ` · ${result.parameters.mode}` : '';
  return `${kind}${threads}${mode}`;
}

/** recovery_*: detection, propagation and full recovery per scenario and parameter set, with its targets. */
export function recoveryRows(results: readonly RawResult[]): RecoveryRow[] {
  const rows: RecoveryRow[] = [];
  for (const result of sorted(results.filter((r) => r.name.startsWith('recovery_')))) {
    const scenario = scenarioLabel(result);
    RECOVERY_PHASES.forEach(([metric, phase], order) => {
      const latency = valueOf(result, metric);
      const target = result.targets?.find((candidate) => candidate.metric === metric)?.threshold ?? null;
      if (latency !== undefined) rows.push({ scenario, phase, latency, order, target });
    });
  }
  return rows;
}

export interface TrendRow {
  readonly run_id: string;
  readonly started_at: string;
  readonly metric: string;
  readonly series: string;
  readonly value: number;
}

/** One line per parameter set; full recovery spans several scenarios, so it names the scenario too. */
function trendSeries(keyMetric: KeyMetric): string {
  if (keyMetric.id.startsWith('peak_')) return 'peak';
  const parameters = shortParameters(keyMetric.parameters);
  return keyMetric.id === 'full_recovery'
    ? `${keyMetric.result_name.replace(/^recovery_(after_|with_)?/, '').replace(/_/g, ' ')} · ${parameters}`
    : parameters;
}

const TREND_METRICS = ['peak_publish_throughput', 'peak_consume_throughput', 'rst_detection', 'partition_detection', 'full_recovery'];

/** Key metrics of every run in the history (the current one included), for the trend chart. */
export function historyTrendRows(runs: readonly HistoryEntry[], maxRuns = 50): TrendRow[] {
  const rows: TrendRow[] = [];
  for (const run of runs.slice(-maxRuns)) {
    for (const keyMetric of run.key_metrics) {
      if (!TREND_METRICS.includes(keyMetric.id) || keyMetric.value === null) continue;
      rows.push({
        run_id: run.run_id,
        started_at: run.started_at,
        metric: `${keyMetric.label} (${keyMetric.unit})`,
        series: trendSeries(keyMetric),
        value: keyMetric.value,
      });
    }
  }
  return rows;
}
