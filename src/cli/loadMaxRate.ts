/**
 * `bench load --find-max-rate`: the unloaded p99 first (100 msg/s), then the search of
 * src/load/findMaxRate.ts, one short load run per probe (the workload's duration, no faults).
 */
import { searchMaxRate, type ProbeVerdict } from '../load/findMaxRate';
import type { LoadResult } from '../load/result';
import type { LoadWorkload } from '../load/workload';

export interface MaxRateSummary {
  readonly unloaded_rate_per_s: number;
  readonly unloaded_e2e_p99_ms: number | null;
  readonly p99_bound_ms: number;
  readonly max_rate_per_s: number | null;
  readonly probes: readonly ProbeVerdict[];
}

const UNLOADED_RATE = 100;
const PROBE_WARMUP_MS = 2000;

/** Runs the search; `best` is the run of the highest passing rate (the unloaded run when none passed). */
export async function findMaxRate(
  workload: LoadWorkload,
  p99BoundMs: number,
  measure: (workload: LoadWorkload) => Promise<LoadResult>,
  log: (line: string) => void,
): Promise<{ readonly best: LoadResult; readonly summary: MaxRateSummary }> {
  // Each probe starts with a warm-up (at least 2 s): the first seconds of a fresh connection (JIT,
  // buffers) are not the rate's steady state.
  const at = (ratePerSecond: number): LoadWorkload => ({
    ...workload,
    rate: { kind: 'constant', perSecond: ratePerSecond },
    warmupMs: Math.max(workload.warmupMs, PROBE_WARMUP_MS),
    faults: [],
  });
  const unloaded = await measure(at(UNLOADED_RATE));
  const unloadedP99Ms = unloaded.latency_ms.end_to_end.p99 ?? 0;
  log(
    `bench load: unloaded e2e p99 ${unloadedP99Ms} ms at ${UNLOADED_RATE} msg/s; a probe passes at ≥ 99% achieved and p99 ≤ ${(unloadedP99Ms + p99BoundMs).toFixed(3)} ms`,
  );
  const results = new Map<number, LoadResult>();
  const search = await searchMaxRate(
    async (ratePerSecond) => {
      const result = await measure(at(ratePerSecond));
      results.set(ratePerSecond, result);
      log(
        `bench load: probe ${ratePerSecond} msg/s: achieved ${result.achieved_rate_per_s} msg/s, e2e p99 ${result.latency_ms.end_to_end.p99} ms`,
      );
      return { ratePerSecond, achievedFraction: result.achieved_fraction, e2eP99Ms: result.latency_ms.end_to_end.p99 };
    },
    { unloadedP99Ms, p99BoundMs, startRatePerSecond: 1000, maxRatePerSecond: 200_000, resolution: 0.05 },
  );
  const best = search.maxRatePerSecond === null ? unloaded : results.get(search.maxRatePerSecond)!;
  return {
    best,
    summary: {
      unloaded_rate_per_s: UNLOADED_RATE,
      unloaded_e2e_p99_ms: unloaded.latency_ms.end_to_end.p99,
      p99_bound_ms: p99BoundMs,
      max_rate_per_s: search.maxRatePerSecond,
      probes: search.probes,
    },
  };
}

/** The probes as a plain-text table, the answer last. */
export function maxRateTable(summary: MaxRateSummary): string {
  const lines = summary.probes.map(
    (probe) =>
      `  ${String(probe.ratePerSecond).padStart(7)} msg/s  achieved ${probe.achievedFraction === null ? '-' : `${(probe.achievedFraction * 100).toFixed(2)}%`}  e2e p99 ${probe.e2eP99Ms ?? '-'} ms  ${probe.passed ? 'pass' : `fail: ${probe.reason}`}`,
  );
  return [
    `max rate search (unloaded e2e p99 ${summary.unloaded_e2e_p99_ms ?? '-'} ms, bound +${summary.p99_bound_ms} ms):`,
    ...lines,
    `max rate: ${summary.max_rate_per_s === null ? 'none passed (not even 1000 msg/s)' : `${summary.max_rate_per_s} msg/s`}`,
  ].join('\n');
}
