/**
 * The `recovery_harness_overhead` raw result (pure): per figure, the harness's and the bare
 * floor's value (medians over the pairs) and the harness/bare ratio in percent (the median of
 * the pairs' ratios), with targets on the ratios of propagation and of recovery after removal.
 */
import { isNonEmpty, median } from '../measure/statistics';
import type { Metric, ResultDraft, Target } from '../results/rawResult';
import { judgedTarget } from '../results/targetVerdict';
import type { RecoveryOverheadOutcome, RecoveryOverheadPair, RecoverySide } from './overhead';

export const RECOVERY_OVERHEAD_RESULT = 'recovery_harness_overhead';

/** The harness may take at most this share of the bare floor's time (issue 16: ratio <= 1.10). */
export const RECOVERY_OVERHEAD_TARGET_PERCENT = 110;

/** The figures compared: the result's metric stem -> the recovery metric it is read from. */
const FIGURES = {
  propagation_ms: 'error_propagation_latency_ms',
  recovery_after_removal_ms: 'recovery_after_removal_ms',
  detection_ms: 'error_detection_latency_ms',
  full_recovery_ms: 'full_recovery_latency_ms',
  thread_detection_p50_ms: 'thread_detection_p50_ms',
  thread_detection_max_ms: 'thread_detection_max_ms',
  fault_spread_ms: 'fault_spread_ms',
} as const;
type Stem = keyof typeof FIGURES;

/** The ratios with a target (the others are shown, not judged). */
const JUDGED: readonly Stem[] = ['propagation_ms', 'recovery_after_removal_ms'];

const round3 = (value: number): number => Math.round(value * 1000) / 1000;
const ms = (value: number | null, direction: Metric['direction'] = 'lower'): Metric => ({
  value: value === null ? null : round3(value),
  unit: 'ms',
  direction,
});
const medianOf = (values: readonly (number | null)[]): number | null => {
  const known = values.filter((value): value is number => value !== null && Number.isFinite(value));
  return isNonEmpty(known) ? median(known) : null;
};

function figure(side: RecoverySide, stem: Stem): number | null {
  return side.computed.metrics[FIGURES[stem]]?.value ?? null;
}

/** harness / bare x 100; null unless both are positive numbers. */
export function timeRatioPercent(harnessMs: number | null, bareMs: number | null): number | null {
  if (harnessMs === null || bareMs === null || bareMs <= 0) return null;
  return (harnessMs / bareMs) * 100;
}

const ratioStem = (stem: Stem): string => `${stem.replace(/_ms$/, '')}_ratio_percent`;

export function recoveryOverheadResult(outcome: RecoveryOverheadOutcome): ResultDraft {
  const pairs = outcome.pairs;
  const metrics: Record<string, Metric> = {};
  const samples: Record<string, number[]> = {};
  for (const stem of Object.keys(FIGURES) as Stem[]) {
    // The fault spread is the proxy's, not the client's: shown, never judged.
    const direction = stem === 'fault_spread_ms' ? 'none' : 'lower';
    metrics[`harness_${stem}`] = ms(medianOf(pairs.map((pair) => figure(pair.harness, stem))), direction);
    metrics[`bare_${stem}`] = ms(medianOf(pairs.map((pair) => figure(pair.bare, stem))), direction);
    if (stem === 'fault_spread_ms') continue;
    const ratios = pairs.map((pair) => timeRatioPercent(figure(pair.harness, stem), figure(pair.bare, stem)));
    const ratio = medianOf(ratios);
    metrics[ratioStem(stem)] = { value: ratio === null ? null : Math.round(ratio * 10) / 10, unit: '%', direction: 'lower' };
    samples[ratioStem(stem)] = ratios.filter((value): value is number => value !== null).map((value) => Math.round(value * 10) / 10);
  }
  metrics.harness_removal_signal_max_ms = ms(medianOf(pairs.map((pair) => pair.harness.removalSignalMaxMs)), 'none');
  metrics.bare_removal_signal_max_ms = ms(medianOf(pairs.map((pair) => pair.bare.removalSignalMaxMs)), 'none');
  metrics.pairs = { value: pairs.length, unit: 'count', direction: 'none' };

  // Judged on the pairs' interval: each pair is one independent repetition of the check.
  const targets: Target[] = JUDGED.map((stem) =>
    judgedTarget(
      { metric: ratioStem(stem), comparator: '<', threshold: RECOVERY_OVERHEAD_TARGET_PERCENT, unit: '%' },
      samples[ratioStem(stem)],
    ),
  );
  const faster = JUDGED.filter((stem) => (metrics[ratioStem(stem)]!.value ?? 100) < 100);
  return {
    name: RECOVERY_OVERHEAD_RESULT,
    category: 'recovery',
    parameters: { threads: outcome.threads, toxic: 'reset_peer', toxic_timeout_ms: 0 },
    metrics,
    samples,
    targets,
    notes: [
      `the reset_peer scenario (armed RST, traffic every max(5, threads/2) ms, one pulse after the injection) run by the harness and by the bare floor, ${pairs.length} pair(s) back to back, the side that goes first alternating; every run is fresh threads, connections and queues`,
      'bare floor: scripts/bare-recovery.js, plain amqplib consumers in worker threads of their own process, nothing else in their path; same proxy, same fault, same traffic, same removal (the scenario that drives the harness drives it)',
      "harness_*/bare_*: the median over the pairs of each side's figure, computed alike for both from the proxy's fault timeline; *_ratio_percent: the median of the pairs' harness/bare x 100 (samples: each pair's); 100 = no overhead",
      `targets: propagation and recovery after removal at most ${RECOVERY_OVERHEAD_TARGET_PERCENT}% of the bare floor's (recorded, not asserted)`,
      "removal_signal_max_ms: from the end of the removal to the last thread starting its recovery — the harness's threads hear it through shared memory, the bare threads one pipe hop later (stdin, then a message per thread); recovery after removal includes it on both sides",
      ...(faster.length > 0
        ? [
            `the harness came out faster than the bare floor on ${faster.join(', ')}: on a shared 2-core machine a run's figures vary by tens of percent with what else runs; see each pair in samples and details`,
          ]
        : []),
    ],
    details: { pairs: pairs.map(pairDetail) },
  };
}

function pairDetail(pair: RecoveryOverheadPair) {
  const sideDetail = (side: RecoverySide) => ({
    ...Object.fromEntries((Object.keys(FIGURES) as Stem[]).map((stem) => [stem, figure(side, stem)])),
    removal_signal_max_ms: side.removalSignalMaxMs === null ? null : round3(side.removalSignalMaxMs),
    received: side.computed.fault.received,
    failures: side.failures,
  });
  return { first: pair.first, harness: sideDetail(pair.harness), bare: sideDetail(pair.bare) };
}
