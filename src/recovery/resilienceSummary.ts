/**
 * The network resilience summary's one call: several faults (rows: a TCP reset, a partition, a
 * slow network), each run with the same consumer threads, timed from the injection and from the
 * removal of the fault, recorded as one result whose figures carry each row's prefix; and its
 * verdict, each finding saying which fault it came from.
 */
import type { ClientSpec } from '../client/api';
import { describeReceived } from '../client/faults';
import type { ProxyTarget } from '../faults';
import { recoveryProgress, recoveryProgressFigures } from '../report/progress';
import type { Metric, RawResult, ResultDraft, Target } from '../results/rawResult';
import { findingsProgress, type SuiteVerdict } from '../suite-kit/findings';
import { recoveryVerdict } from './findings';
import { computeRecoveryMetrics, missedOrUnmeasured, type RecoveryMetrics } from './metrics';
import { runRecoveryScenario, type RecoveryScenarioOptions } from './scenario';

/** One fault of the summary: its metric-name prefix (the descriptor's `metricPrefixes`), and how it is injected. */
export interface ResilienceRow {
  readonly key: string;
  readonly title: string;
  readonly options: Pick<RecoveryScenarioOptions, 'fault' | 'drainTimeoutMs'>;
  /** Whether the specification's targets apply to it (a slow network has none). @default true */
  readonly scored?: boolean;
}

export interface ResilienceMeasurement {
  readonly client: ClientSpec;
  readonly clientFields: { readonly parameters: Readonly<Record<string, string>>; readonly client: RawResult['client'] };
  readonly threads: number;
  readonly proxy: ProxyTarget;
  readonly proxiedUrl: string;
  readonly directUrl: string;
  /** Writes the raw result (fixtures/record.ts recordResult). */
  readonly record: (draft: ResultDraft, progress?: string) => RawResult;
  /** Prints one progress line. */
  readonly progress: (line: string) => void;
}

/** Each row's figures under its prefix. */
const FIGURES = [
  'error_detection_latency_ms',
  'error_propagation_latency_ms',
  'full_recovery_latency_ms',
  'recovery_after_removal_ms',
  'threads_detected',
  'threads_recovered',
] as const;

/** Measures every row, records the one result, returns its verdict and the targets missed (BENCH_STRICT_TARGETS). */
export async function measureResilienceSummary(
  rows: readonly ResilienceRow[],
  measurement: ResilienceMeasurement,
): Promise<{ readonly verdict: SuiteVerdict; readonly missedTargets: readonly Target[] }> {
  const { threads } = measurement;
  const metrics: Record<string, Metric> = {};
  const targets: Target[] = [];
  const scenarios: Record<string, unknown>[] = [];
  const verdicts: SuiteVerdict[] = [];
  let faultProxy: RecoveryMetrics['faultProxy'] | undefined;
  // From each injection to the last thread back (as the recovery suite counts it); the rest is set-up.
  let measuredMs = 0;
  for (const row of rows) {
    const { client, proxy, proxiedUrl, directUrl } = measurement;
    const outcome = await runRecoveryScenario({ client, proxy, proxiedUrl, directUrl, threads, ...row.options });
    const computed = computeRecoveryMetrics(outcome);
    const verdict = recoveryVerdict(outcome, computed.details.clock_disagreements);
    verdicts.push({
      findings: verdict.findings.map((finding) => ({ ...finding, where: `${row.title}, ${finding.where ?? 'the scenario'}` })),
      harnessProblems: verdict.harnessProblems.map((problem) => `${row.title}: ${problem}`),
    });
    faultProxy = computed.faultProxy;
    measuredMs += (computed.metrics.injection_to_fault_ms?.value ?? 0) + (computed.metrics.full_recovery_latency_ms?.value ?? 0);
    for (const name of FIGURES) metrics[`${row.key}_${name}`] = computed.metrics[name]!;
    if (row.scored !== false) targets.push(...computed.targets.map((target) => ({ ...target, metric: `${row.key}_${target.metric}` })));
    scenarios.push(scenarioDetails(row, computed, threads));
    measurement.progress(`${row.title}: ${progressOf(computed, threads)}${findingsProgress(verdicts.at(-1)!.findings)}`);
  }
  const verdict: SuiteVerdict = {
    findings: verdicts.flatMap((one) => one.findings),
    harnessProblems: verdicts.flatMap((one) => one.harnessProblems),
  };
  measurement.record({
    name: 'network_resilience_summary',
    parameters: { threads, ...measurement.clientFields.parameters },
    client: measurement.clientFields.client,
    metrics,
    targets,
    details: { scenarios },
    ...(faultProxy ? { fault_proxy: faultProxy } : {}),
    measured_ms: Math.round(measuredMs),
    notes: [
      'each scenario: detection and full recovery timed from the fault moment (details.scenarios[].fault.reference: the proxy timeline, exact, or the start of the injecting API call, an upper bound); recovery also from the removal of the toxic',
    ],
    findings: [...verdict.findings],
    harness_problems: [...verdict.harnessProblems],
  });
  return { verdict, missedTargets: targets.filter(missedOrUnmeasured) };
}

function scenarioDetails(row: ResilienceRow, computed: RecoveryMetrics, threads: number): Record<string, unknown> {
  const value = (name: string) => computed.metrics[name]?.value ?? null;
  return {
    scenario: row.title,
    detected: `${value('threads_detected')}/${threads}`,
    recovered: `${value('threads_recovered')}/${threads}`,
    detection_ms: value('error_detection_latency_ms'),
    propagation_ms: value('error_propagation_latency_ms'),
    full_recovery_from_injection_ms: value('full_recovery_latency_ms'),
    recovery_from_removal_ms: value('recovery_after_removal_ms'),
    detection_causes: computed.details.detection_causes,
    reference: computed.details.reference,
    fault: computed.fault,
  };
}

function progressOf(computed: RecoveryMetrics, threads: number): string {
  return recoveryProgress({
    ...recoveryProgressFigures(computed.metrics, threads),
    received: describeReceived(computed.fault.received),
    upperBound: !computed.fault.reference.exact,
    removal: computed.fault.removal ?? undefined,
  });
}
