/**
 * The raw result of a realistic workload, drafted the way every realistic result is (client
 * fields, the workload's figures, per-round samples, latency histograms, details, the suite's
 * notes, the verdict): each scenario row adds only what is its own (./measureScenario.ts).
 */
import type { Metric, RawResult, ResultDraft } from '../results/rawResult';
import { descriptorOf } from '../scenarios/catalogue';
import {
  latencyHistograms,
  publishOutcomeMetrics,
  roundSamples,
  throughputMetrics,
  workloadDetails,
  WORKLOAD_NOTES,
} from './resultMetrics';
import type { SuiteVerdict } from '../suite-kit/findings';
import type { WorkloadFigures } from './summary';
import type { WorkloadOutcome } from './workload';

export interface WorkloadRun {
  readonly outcome: WorkloadOutcome;
  readonly figures: WorkloadFigures;
}

export interface RealisticDraftInput {
  /** The result family (its descriptor: src/scenarios/realistic.ts). */
  readonly scenario: string;
  readonly clientFields: { readonly parameters: Readonly<Record<string, string>>; readonly client: RawResult['client'] };
  readonly run: WorkloadRun;
  readonly parameters: Readonly<Record<string, string | number | boolean>>;
  /**
   * The test's own figures, after the workload's throughput figures; or a function placing those
   * (given to it) where the test wants them.
   */
  readonly metrics: Readonly<Record<string, Metric>> | ((throughput: Record<string, Metric>) => Record<string, Metric>);
  /** The figures whose throughput and histograms are reported. @default the whole run's */
  readonly figures?: Parameters<typeof throughputMetrics>[0];
  readonly notes: readonly string[];
  /** Besides the workload's notes (which `ownNotesOnly` leaves out). */
  readonly ownNotesOnly?: boolean;
  readonly histograms?: ResultDraft['histograms'];
  readonly details?: Readonly<Record<string, unknown>>;
  readonly samples?: Readonly<Record<string, number[]>>;
  /** What the client did wrong and what the harness failed to do. */
  readonly verdict: SuiteVerdict;
}

/** The raw result of a realistic workload, drafted the suite's way. */
export function realisticDraft(input: RealisticDraftInput): ResultDraft {
  const { outcome, figures } = input.run;
  const shown = input.figures ?? figures;
  return {
    name: input.scenario,
    client: input.clientFields.client,
    parameters: { ...input.clientFields.parameters, ...input.parameters },
    metrics: {
      ...(typeof input.metrics === 'function'
        ? input.metrics(throughputMetrics(shown))
        : { ...throughputMetrics(shown), ...input.metrics }),
      ...publishOutcomeMetrics(outcome),
    },
    samples: { ...roundSamples(figures.rounds), ...input.samples },
    histograms: input.histograms ?? latencyHistograms(shown),
    notes: input.ownNotesOnly ? [...input.notes] : [...WORKLOAD_NOTES, ...input.notes],
    details: { ...workloadDetails(outcome, figures), ...input.details },
    findings: [...input.verdict.findings],
    harness_problems: [...input.verdict.harnessProblems],
    // Every round from the first publish to the last delivery (warm-up rounds too: they are measured, then set aside).
    measured_ms: Math.round(figures.rounds.reduce((sum, round) => sum + (round.drainMs ?? 0), 0)),
  };
}

/** `Burst traffic: <what the test says>`: a progress line in the descriptor's words. */
export function realisticProgress(scenario: string, text: string): string {
  return `${descriptorOf({ name: scenario }).label}: ${text}`;
}
