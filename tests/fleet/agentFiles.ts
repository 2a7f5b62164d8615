/**
 * Agent result files built from known samples (pure): a real recorder fed with chosen intended
 * and arrival times, turned into a result and a file as an agent does — so a merge test knows
 * every latency and every sequence number that went in.
 */
import { buildLoadResult } from '../../src/load/result';
import { LoadRecorder } from '../../src/load/recorder';
import { encodeHistogram, createLatencyHistogram, recordLatencyNs } from '../../src/measure/histogram';
import { resolveWorkload, type LoadWorkload } from '../../src/load/workload';
import { fileResultOf, sequenceBitsOf, type FleetAgentResult } from '../../src/fleet/agentResult';
import type { TimeSeriesPoint } from '../../src/load/timeseries';

export const MS = 1_000_000n;

export function workloadOf(fields: Record<string, unknown>): LoadWorkload {
  return resolveWorkload(fields, (field, problem) => {
    throw new Error(`${field}: ${problem}`);
  });
}

export interface AgentSamples {
  readonly index: number;
  readonly count: number;
  readonly workload: LoadWorkload;
  /** Messages this agent consumed: sequence number and end-to-end latency (ms). */
  readonly consumed: readonly { readonly sequence: number; readonly latencyMs: number }[];
  /** Messages this agent confirmed: sequence number and confirm latency (ms). */
  readonly confirmed?: readonly { readonly sequence: number; readonly latencyMs: number }[];
  /** Messages it published (counted). */
  readonly published?: number;
  /** The schedule lag (ms) of each published message, in order (0 for those beyond the list). */
  readonly lagMs?: readonly number[];
  readonly machineId?: string;
  readonly accountsAlone?: boolean;
  /** Per-point published counts, per-point e2e samples and schedule lags (ms). */
  readonly points?: readonly { readonly published: number; readonly e2eMs: readonly number[]; readonly lagMs?: readonly number[] }[];
  /** When its publishing ended, from the start (ms). @default the workload's duration */
  readonly publishingEndedMs?: number;
  readonly status?: FleetAgentResult['status'];
}

/** One agent's file from its samples. */
export function agentFile(samples: AgentSamples): FleetAgentResult {
  const recorder = new LoadRecorder(0n, 0n);
  for (let sent = 0; sent < (samples.published ?? 0); sent += 1) recorder.sent(0n, BigInt(Math.round((samples.lagMs?.[sent] ?? 0) * 1e6)));
  for (const each of samples.confirmed ?? []) recorder.confirmed(each.sequence, 0n, BigInt(Math.round(each.latencyMs * 1e6)));
  for (const each of samples.consumed) recorder.consumed(each.sequence, 0n, BigInt(Math.round(each.latencyMs * 1e6)));
  const points: TimeSeriesPoint[] = (samples.points ?? []).map((point, k) => ({
    t_s: k + 1,
    published: point.published,
    confirmed: 0,
    consumed: point.e2eMs.length,
    confirm_p50_ms: null,
    confirm_p99_ms: null,
    e2e_p50_ms: null,
    e2e_p99_ms: null,
    schedule_lag_p99_ms: null,
    outstanding_confirms: 0,
    connections_up: 2,
    fault_state: 'none',
  }));
  const histogramOf = (valuesMs: readonly number[]) => {
    const histogram = createLatencyHistogram();
    for (const value of valuesMs) recordLatencyNs(histogram, BigInt(Math.round(value * 1e6)));
    return encodeHistogram(histogram);
  };
  const result = buildLoadResult({
    workload: samples.workload,
    client: { label: 'amqplib (defaults)', info: { name: 'amqplib' } as never },
    viaProxy: false,
    recorder,
    schedulePaced: true,
    totalMessages: samples.published ?? 0,
    intendedMeasured: samples.published ?? 0,
    unsent: 0,
    measuredMs: samples.workload.durationMs,
    publishingEndedMs: samples.publishingEndedMs ?? samples.workload.durationMs,
    endedMs: samples.workload.durationMs,
    points,
    faults: [],
    connectionFaults: [],
    aborted: false,
    intervalMs: 1000,
    accountsAlone: samples.accountsAlone ?? false,
  });
  return {
    schema_version: 1,
    run_id: 'fleet-test',
    agent: {
      index: samples.index,
      count: samples.count,
      host: `host-${samples.index}`,
      machine_id: samples.machineId ?? 'boot:one',
      pid: 100 + samples.index,
    },
    share: { producers: [samples.index], consumers: [samples.index], accounts_alone: samples.accountsAlone ?? false },
    barrier: {
      mode: 'coordinator',
      ready_at_unix_ms: 1000,
      start_at_unix_ms: 2000,
      started_at_unix_ms: 2000 + samples.index * 0.25,
      start_clock: 'monotonic',
      start_message_delay_ms: 1,
    },
    status: samples.status ?? 'completed',
    error: null,
    result: fileResultOf(result),
    interval_histograms: (samples.points ?? []).map((point) => ({
      confirm: histogramOf([]),
      end_to_end: histogramOf(point.e2eMs),
      schedule_lag: histogramOf(point.lagMs ?? []),
    })),
    sequence_bits: sequenceBitsOf({ sequenceBits: recorder.sequenceBits() }),
  };
}
