/**
 * One row per agent of a fleet (pure): what it ran and what it achieved, as its own result says.
 * Its end-to-end figures are shown only where it timed them on one clock.
 */
import type { LoadResult } from '../load/result';
import { loadResultOf, type FleetAgentResult } from './agentResult';

export interface FleetAgentRow {
  readonly agent: number;
  readonly host: string;
  readonly status: FleetAgentResult['status'];
  readonly producers: number;
  readonly consumers: number;
  readonly intended_rate_per_s: number | null;
  readonly achieved_rate_per_s: number | null;
  readonly published: number | null;
  readonly consumed: number | null;
  readonly confirm_p50_ms: number | null;
  readonly confirm_p99_ms: number | null;
  /** Null where its consumers' messages came from producers on another clock. */
  readonly e2e_p50_ms: number | null;
  readonly e2e_p99_ms: number | null;
  /** Its publishers' lateness (sent − intended): its own process behind its schedule. */
  readonly schedule_lag_p50_ms: number | null;
  readonly schedule_lag_p99_ms: number | null;
  readonly connection_faults: number;
  /** Wall-clock start (ms since the epoch by its own clock); null when it did not start. */
  readonly started_at_unix_ms: number | null;
  readonly error: string | null;
}

/** The row of one agent's file; `ownClock`: its end-to-end latencies were timed on one clock. */
export function agentRowOf(file: FleetAgentResult, ownClock: boolean): FleetAgentRow {
  const result: LoadResult | null = loadResultOf(file);
  return {
    agent: file.agent.index,
    host: file.agent.host,
    status: file.status,
    producers: file.share.producers.length,
    consumers: file.share.consumers.length,
    intended_rate_per_s: result?.intended_rate_per_s ?? null,
    achieved_rate_per_s: result?.achieved_rate_per_s ?? null,
    published: result?.messages.published ?? null,
    consumed: result?.messages.consumed ?? null,
    confirm_p50_ms: result?.latency_ms.confirm.p50 ?? null,
    confirm_p99_ms: result?.latency_ms.confirm.p99 ?? null,
    e2e_p50_ms: ownClock ? (result?.latency_ms.end_to_end.p50 ?? null) : null,
    e2e_p99_ms: ownClock ? (result?.latency_ms.end_to_end.p99 ?? null) : null,
    schedule_lag_p50_ms: result?.latency_ms.schedule_lag.p50 ?? null,
    schedule_lag_p99_ms: result?.latency_ms.schedule_lag.p99 ?? null,
    connection_faults: result?.connection_faults.length ?? 0,
    started_at_unix_ms: file.barrier.started_at_unix_ms,
    error: file.error,
  };
}
