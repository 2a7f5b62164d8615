/**
 * A recovery benchmark's one call: a scenario row (its descriptor, its fault, its parameters) at a
 * thread count, measured in `replicates` independent repetitions, combined, recorded, with its
 * progress line in the report's words; and its verdict (./findings.ts): the client's findings (a
 * thread that never noticed, never came back, stopped on an error, an error nobody handled),
 * recorded in the result, and the harness's problems, which its test asserts empty. Speed is
 * recorded, never asserted here.
 */
import type { ClientSpec } from '../client/api';
import type { FaultSpec } from '../faults/kinds/registry';
import { combineFaultRecords } from '../faults/record';
import type { ProxyTarget } from '../faults';
import type { NonEmptyArray } from '../measure/statistics';
import { recoveryProgress, recoveryProgressFigures } from '../report/progress';
import type { RawResult, ResultDraft } from '../results/rawResult';
import { combineReplicates, runReplicates } from '../results/replicates';
import { descriptorOf } from '../scenarios/catalogue';
import { describeReceived } from '../client/faults';
import { findingsProgress, type SuiteVerdict } from '../suite-kit/findings';
import { combineVerdicts, recoveryVerdict } from './findings';
import { computeRecoveryMetrics, missedOrUnmeasured, type RecoveryMetrics } from './metrics';
import { runRecoveryScenario, type RecoveryScenarioOptions } from './scenario';

/** One row of a recovery benchmark's table. */
export interface RecoveryScenarioRow {
  /** The result family (its descriptor in src/scenarios/recovery.ts). */
  readonly scenario: string;
  readonly fault: FaultSpec;
  readonly preFault?: FaultSpec;
  readonly preFaultMs?: number;
  readonly drainTimeoutMs?: number;
  /** Recorded parameters besides the threads and the client (`toxic`, `toxic_timeout_ms`, ...). */
  readonly parameters: Readonly<Record<string, string | number>>;
}

export interface RecoveryMeasurement {
  readonly client: ClientSpec;
  /** `client`, `client_profile` parameters and the `client` field of the result. */
  readonly clientFields: { readonly parameters: Readonly<Record<string, string>>; readonly client: RawResult['client'] };
  readonly threads: number;
  readonly replicates: number;
  readonly proxy: ProxyTarget;
  readonly proxiedUrl: string;
  readonly directUrl: string;
  /** Writes the raw result and prints the progress line (fixtures/record.ts recordResult). */
  readonly record: (draft: ResultDraft, progress: string) => RawResult;
}

export interface RecoveryMeasured {
  readonly result: RawResult;
  readonly replicates: NonEmptyArray<RecoveryMetrics>;
  /** What the client did wrong in any replicate (recorded in the result), and what the harness failed to do. */
  readonly verdict: SuiteVerdict;
  /** Targets missed, or without a value (BENCH_STRICT_TARGETS fails on them). */
  readonly missedTargets: readonly NonNullable<RawResult['targets']>[number][];
}

export async function measureRecoveryScenario(row: RecoveryScenarioRow, measurement: RecoveryMeasurement): Promise<RecoveryMeasured> {
  const { threads } = measurement;
  const options: RecoveryScenarioOptions = {
    threads,
    client: measurement.client,
    proxy: measurement.proxy,
    proxiedUrl: measurement.proxiedUrl,
    directUrl: measurement.directUrl,
    fault: row.fault,
    ...(row.preFault ? { preFault: row.preFault, preFaultMs: row.preFaultMs } : {}),
    ...(row.drainTimeoutMs ? { drainTimeoutMs: row.drainTimeoutMs } : {}),
  };
  const runs = await runReplicates(measurement.replicates, async () => {
    const outcome = await runRecoveryScenario(options);
    const metrics = computeRecoveryMetrics(outcome);
    return { metrics, verdict: recoveryVerdict(outcome, metrics.details.clock_disagreements) };
  });
  const [firstRun, ...laterRuns] = runs;
  const computed: NonEmptyArray<RecoveryMetrics> = [firstRun.metrics, ...laterRuns.map((run) => run.metrics)];
  const verdict = combineVerdicts(runs.map((run) => run.verdict));
  const toDraft = (one: RecoveryMetrics): ResultDraft => ({
    name: row.scenario,
    category: 'recovery',
    parameters: { threads, ...measurement.clientFields.parameters, ...row.parameters },
    client: measurement.clientFields.client,
    metrics: one.metrics,
    samples: one.samples,
    targets: one.targets,
    notes: one.notes,
    details: { ...one.details }, // a typed copy (RecoveryDetails) where any details may go
    fault_proxy: one.faultProxy,
    fault: one.fault,
  });
  const [first, ...later] = computed;
  const drafts: NonEmptyArray<ResultDraft> = [toDraft(first), ...later.map(toDraft)];
  const combined = drafts.length === 1 ? drafts[0] : combineReplicates(drafts, { totals: ['false_alarms'] });
  const fault = combineFaultRecords([first.fault, ...later.map((one) => one.fault)]);
  // Per replicate, from the injection to the last thread back; the rest is threads connecting, warm-up and teardown.
  const measuredMs = computed.reduce(
    (sum, one) => sum + (one.metrics.injection_to_fault_ms?.value ?? 0) + (one.metrics.full_recovery_latency_ms?.value ?? 0),
    0,
  );
  const result = measurement.record(
    {
      ...combined,
      fault,
      measured_ms: Math.round(measuredMs),
      findings: [...verdict.findings],
      harness_problems: [...verdict.harnessProblems],
    },
    progressLine(row.scenario, threads, combined, fault, drafts.length, first) + findingsProgress(verdict.findings),
  );
  return { result, replicates: computed, verdict, missedTargets: (result.targets ?? []).filter(missedOrUnmeasured) };
}

/** `TCP reset · 10 threads: detected 10/10 (RST ×50 over 5 replicates), recovered 10/10; ...; <proxy>`. */
function progressLine(
  scenario: string,
  threads: number,
  combined: ResultDraft,
  fault: NonNullable<ResultDraft['fault']>,
  replicates: number,
  first: RecoveryMetrics,
): string {
  const figures = recoveryProgress({
    ...recoveryProgressFigures(combined.metrics, threads),
    faultSpreadMs: combined.metrics.fault_spread_ms?.value ?? null,
    // Totals over every replicate: say so, or "detected 10/10 (RST ×50)" reads as a miscount.
    received: `${describeReceived(fault.received)}${replicates > 1 ? ` over ${replicates} replicates` : ''}`,
    upperBound: !fault.reference.exact,
  });
  const medians = replicates > 1 ? ` (medians of ${replicates} replicates)` : '';
  return `${descriptorOf({ name: scenario }).label} · ${threads} threads: ${figures}${medians}; ${first.faultProxy.label}`;
}
