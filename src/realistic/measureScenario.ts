/**
 * A realistic benchmark's one call: a scenario row (its descriptor, its workload over the suite's
 * defaults, its fault, its own parameters and figures) measured, judged and recorded. The
 * workload runs with the suite's defaults (4 consumers, 2 producer threads, 2 consumer threads,
 * a bound per round) under the row's changes; the verdict tells the client's findings from the
 * harness's failures (./checks.ts); the raw result is drafted the suite's way (./draft.ts), with
 * the progress line in the descriptor's words and each finding on a line of its own.
 */
import type { ClientSpec } from '../client/api';
import type { ProxyTarget } from '../faults';
import type { FaultSpec } from '../faults/kinds/registry';
import type { RawResult, ResultDraft } from '../results/rawResult';
import { findingsProgress, type SuiteVerdict } from '../suite-kit/findings';
import { workloadVerdict } from './checks';
import { realisticDraft, realisticProgress, type RealisticDraftInput, type WorkloadRun } from './draft';
import { faultDuringRound, resetCyclesDuringRound, type ResetCycleOptions, type ResetCyclesResult } from './faultCycles';
import { cannotRunDraft, cannotRunReason, planOf } from './cannotRun';
import { resolveWorkloadOptions, type WorkloadHooks, type WorkloadInput, type WorkloadOptions } from './options';
import type { ThreadPlan } from '../suite-kit/distribution';
import { workloadFigures } from './summary';
import { runWorkload } from './workload';
import { adapterOf } from '../client/registry';

/** The suite's defaults for a quick test (a round that has not drained by then is a finding, before Jest's timeout). */
export const REALISTIC_DEFAULTS = { consumers: 4, producerThreads: 2, maxConsumerThreads: 2, roundBoundMs: 20_000 } as const;

/** A fault during a row's workload: reset cycles in the background of a round, or one fault held for a whole round. */
export type RealisticFault =
  | { readonly kind: 'reset_cycles'; readonly round: number; readonly schedule: ResetCycleOptions }
  | { readonly kind: 'during_round'; readonly round: number; readonly fault: FaultSpec };

/** Figures of the workload's layout a row names among its parameters (their values come from the run). */
export type LayoutParameter = 'consumers' | 'consumer_threads' | 'worker_threads' | 'producer_threads' | 'prefetch' | 'message_bytes';

/** A measured row: the workload's outcome and figures, and the reset cycles it ran under. */
export interface MeasuredWorkload extends WorkloadRun {
  readonly cycles: ResetCyclesResult | undefined;
}

/** One row of the realistic suite's table. */
export interface RealisticRow {
  readonly test: string;
  /** The result family (its descriptor: src/scenarios/realistic.ts). */
  readonly scenario: string;
  /** The workload's changes to the suite's defaults (rounds at least). */
  readonly workload: Partial<Omit<WorkloadInput, 'directUrl' | 'consumerUrl' | 'producerUrl' | 'hooks' | 'client'>> &
    Pick<WorkloadInput, 'rounds'>;
  /** Who connects through the fault proxy (the rest straight to the broker). @default nobody */
  readonly throughProxy?: { readonly consumers?: boolean; readonly producers?: boolean };
  readonly fault?: RealisticFault;
  /** The layout figures the result names as parameters, before the row's own. */
  readonly layout: readonly LayoutParameter[];
  readonly parameters: Readonly<Record<string, string | number | boolean>>;
  /** The row's own part of the result: its figures (or where the throughput ones go), notes, details. */
  readonly result: (run: MeasuredWorkload) => Omit<RealisticDraftInput, 'scenario' | 'clientFields' | 'run' | 'parameters' | 'verdict'>;
  /** The progress line after the descriptor's label. */
  readonly progress: (run: MeasuredWorkload) => string;
  /** What the harness must have seen for the run to count (the fault acted): problems, empty when it did. */
  readonly harnessChecks?: (run: MeasuredWorkload) => string[];
}

export interface RealisticMeasurement {
  readonly client: ClientSpec;
  /** `client`, `client_profile` parameters and the `client` field of the result. */
  readonly clientFields: RealisticDraftInput['clientFields'];
  readonly directUrl: string;
  readonly proxiedUrl: string;
  readonly proxy: ProxyTarget;
  /** Writes the raw result and prints the progress line (fixtures/record.ts recordResult). */
  readonly record: (draft: ResultDraft, progress: string) => RawResult;
}

/** Measures `row`, records its result, and returns its verdict (a test asserts the harness's part, and the findings when asked to). */
export async function measureRealisticScenario(row: RealisticRow, measurement: RealisticMeasurement): Promise<SuiteVerdict> {
  const faults = faultHooks(row.fault, measurement.proxy);
  const url = (throughProxy: boolean | undefined) => (throughProxy ? measurement.proxiedUrl : measurement.directUrl);
  const input: WorkloadInput = {
    ...REALISTIC_DEFAULTS,
    ...row.workload,
    ...(row.workload.maxConsumerThreads === undefined
      ? oneConnectionEach(measurement.client, row.workload.consumers ?? REALISTIC_DEFAULTS.consumers)
      : {}),
    client: measurement.client,
    directUrl: measurement.directUrl,
    consumerUrl: url(row.throughProxy?.consumers),
    producerUrl: url(row.throughProxy?.producers),
    hooks: faults.hooks,
    // A row under a fault starts threads of its own, as they come up one after another: threads
    // of a shelved pool start their connections at once, and a library that sends on a tick of
    // its own (foo-foo-mq acks every 500 ms, and gets its next deliveries only then) would have
    // every consumer's traffic in step, so a short reset window could miss them all.
    reuseThreads: row.fault === undefined,
  };
  const options = resolveWorkloadOptions(input);
  const reason = cannotRunReason(adapterOf(measurement.client), options);
  if (reason !== undefined) return recordCannotRun(row, measurement, options, reason);
  const outcome = await runWorkload(input);
  const run: MeasuredWorkload = { outcome, figures: workloadFigures(outcome), cycles: faults.cycles() };
  const judged = workloadVerdict(
    outcome,
    run.figures,
    row.fault?.kind === 'reset_cycles' ? { result: run.cycles, planned: row.fault.schedule.cycles } : undefined,
  );
  const verdict: SuiteVerdict = {
    findings: judged.findings,
    harnessProblems: [...judged.harnessProblems, ...(row.harnessChecks?.(run) ?? [])],
  };
  measurement.record(
    realisticDraft({
      ...row.result(run),
      scenario: row.scenario,
      clientFields: measurement.clientFields,
      run,
      parameters: { ...layoutParameters(row.layout, outcome.options, outcome.plan), ...row.parameters },
      verdict,
    }),
    realisticProgress(row.scenario, row.progress(run)) + findingsProgress(verdict.findings),
  );
  return verdict;
}

/**
 * A library with one subscription per queue per connection (its adapter's `consumersPerQueue`)
 * cannot have two consumers of the row's queue on one connection: each gets a consumer thread (a
 * connection) of its own. The result names the layout it ran with (its consumer_threads parameter).
 * Not for a row that bounds its threads itself (hundreds of consumers on at most four threads is
 * what the massive-consumers row measures): such a library cannot run that row, and its result
 * says so and why (./cannotRun.ts) instead of a workload its adapter would refuse.
 */
function oneConnectionEach(client: ClientSpec, consumers: number): { maxConsumerThreads?: number } {
  return adapterOf(client).consumersPerQueue === 'one' ? { maxConsumerThreads: consumers } : {};
}

/**
 * A row the client cannot run (./cannotRun.ts): its result, with the parameters a run would name
 * (so it sits beside the other clients' results of the row), and a verdict with nothing in it.
 */
function recordCannotRun(row: RealisticRow, measurement: RealisticMeasurement, options: WorkloadOptions, reason: string): SuiteVerdict {
  measurement.record(
    cannotRunDraft({
      scenario: row.scenario,
      client: measurement.clientFields.client,
      parameters: { ...measurement.clientFields.parameters, ...layoutParameters(row.layout, options, planOf(options)), ...row.parameters },
      reason,
    }),
    realisticProgress(row.scenario, `cannot run: ${reason}`),
  );
  return { findings: [], harnessProblems: [] };
}

function layoutParameters(
  layout: readonly LayoutParameter[],
  options: WorkloadOptions,
  plan: readonly ThreadPlan[],
): Record<string, number> {
  const values: Record<LayoutParameter, number> = {
    consumers: options.consumers,
    consumer_threads: plan.length,
    worker_threads: plan.length,
    producer_threads: options.producerThreads,
    prefetch: options.prefetch,
    message_bytes: options.messageBytes,
  };
  return Object.fromEntries(layout.map((name) => [name, values[name]]));
}

/** The workload hooks of a row's fault, and the reset cycles' result once its round is over. */
function faultHooks(
  fault: RealisticFault | undefined,
  proxy: ProxyTarget,
): { hooks: WorkloadHooks; cycles: () => ResetCyclesResult | undefined } {
  if (fault?.kind === 'reset_cycles') {
    const cycles = resetCyclesDuringRound(proxy, fault.round, fault.schedule);
    return { hooks: cycles.hooks, cycles: cycles.result };
  }
  if (fault?.kind === 'during_round') return { hooks: faultDuringRound(proxy, fault.round, fault.fault), cycles: () => undefined };
  return { hooks: {}, cycles: () => undefined };
}
