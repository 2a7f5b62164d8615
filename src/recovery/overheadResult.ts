/**
 * The `recovery_harness_overhead` raw result (pure): each connection's own delays on both sides —
 * from the RST on its own connection to its detection, from its thread hearing of the removal to
 * its recovery — as per-run quantiles (medians over the pairs), and the harness/bare ratio of the
 * per-connection medians (the median of the pairs' ratios), judged: within 80–125% against the
 * target, outside it "the two sides differ", with each side's figures and fault spread. The
 * scenario's own figures (propagation, recovery after removal, the fault spread) are shown for
 * both sides, never divided: they carry the proxy's spread, which is not the same on both sides.
 */
import { round1, round3OrNull } from '../measure/round';
import { quantileOf } from '../measure/statistics';
import { msMetric } from '../results/metricValues';
import type { Metric, ResultDraft, Target } from '../results/rawResult';
import { describeTargetVerdict, judgedSideBySide, SIDE_BY_SIDE_BAND } from '../results/targetVerdict';
import type { RecoveryOverheadOutcome, RecoveryOverheadPair, RecoverySide } from './overhead';

export const RECOVERY_OVERHEAD_RESULT = 'recovery_harness_overhead';

/** The harness may take at most this share of the bare floor's time (ratio <= 1.10). */
export const RECOVERY_OVERHEAD_TARGET_PERCENT = 110;

/** A side's figures of one run: the metric stem -> how it is read from the side. */
const FIGURES = {
  connection_detection_p50_ms: (side: RecoverySide) => quantileOf(side.connections.detectionMs, 0.5),
  connection_detection_p95_ms: (side: RecoverySide) => quantileOf(side.connections.detectionMs, 0.95),
  connection_detection_max_ms: (side: RecoverySide) => quantileOf(side.connections.detectionMs, 1),
  connection_recovery_p50_ms: (side: RecoverySide) => quantileOf(side.connections.recoveryMs, 0.5),
  connection_recovery_p95_ms: (side: RecoverySide) => quantileOf(side.connections.recoveryMs, 0.95),
  connection_recovery_max_ms: (side: RecoverySide) => quantileOf(side.connections.recoveryMs, 1),
  removal_signal_p50_ms: (side: RecoverySide) => quantileOf(side.connections.removalSignalMs, 0.5),
  removal_signal_max_ms: (side: RecoverySide) => quantileOf(side.connections.removalSignalMs, 1),
  fault_spread_ms: (side: RecoverySide) => scenarioFigure(side, 'fault_spread_ms'),
  propagation_ms: (side: RecoverySide) => scenarioFigure(side, 'error_propagation_latency_ms'),
  recovery_after_removal_ms: (side: RecoverySide) => scenarioFigure(side, 'recovery_after_removal_ms'),
} as const;
type Stem = keyof typeof FIGURES;

/** Shown for each side, never judged or compared across runs (the proxy's, or each side's own way of telling its threads). */
const CONTEXT: ReadonlySet<Stem> = new Set(['fault_spread_ms', 'removal_signal_p50_ms', 'removal_signal_max_ms']);

/** The ratios: harness / bare of a per-connection figure; the judged ones have a target. */
const RATIOS = {
  connection_detection_p50_ratio_percent: { stem: 'connection_detection_p50_ms', judged: true },
  connection_recovery_p50_ratio_percent: { stem: 'connection_recovery_p50_ms', judged: true },
  connection_detection_p95_ratio_percent: { stem: 'connection_detection_p95_ms', judged: false },
  connection_recovery_p95_ratio_percent: { stem: 'connection_recovery_p95_ms', judged: false },
} as const satisfies Record<string, { stem: Stem; judged: boolean }>;
type RatioName = keyof typeof RATIOS;

const ms = msMetric;

function scenarioFigure(side: RecoverySide, metric: string): number | null {
  return side.computed.metrics[metric]?.value ?? null;
}

/** harness / bare x 100; null unless both are positive numbers. */
export function timeRatioPercent(harnessMs: number | null, bareMs: number | null): number | null {
  if (harnessMs === null || bareMs === null || bareMs <= 0) return null;
  return (harnessMs / bareMs) * 100;
}

export function recoveryOverheadResult(outcome: RecoveryOverheadOutcome): ResultDraft {
  const { pairs } = outcome;
  const metrics: Record<string, Metric> = {};
  const samples: Record<string, number[]> = {};
  for (const stem of Object.keys(FIGURES) as Stem[]) {
    const direction = CONTEXT.has(stem) ? 'none' : 'lower';
    metrics[`harness_${stem}`] = ms(
      quantileOf(
        pairs.map((pair) => FIGURES[stem](pair.harness)),
        0.5,
      ),
      direction,
    );
    metrics[`bare_${stem}`] = ms(
      quantileOf(
        pairs.map((pair) => FIGURES[stem](pair.bare)),
        0.5,
      ),
      direction,
    );
  }
  for (const name of Object.keys(RATIOS) as RatioName[]) {
    const ratios = pairRatios(pairs, RATIOS[name].stem);
    const ratio = quantileOf(ratios, 0.5);
    metrics[name] = { value: ratio === null ? null : round1(ratio), unit: '%', direction: 'lower' };
    samples[name] = ratios.filter((value): value is number => value !== null).map(round1);
  }
  metrics.pairs = { value: pairs.length, unit: 'count', direction: 'none' };

  // Judged on the pairs' interval (each pair one independent repetition), unless the sides differ.
  const targets: Target[] = (Object.keys(RATIOS) as RatioName[])
    .filter((name) => RATIOS[name].judged)
    .map((name) =>
      judgedSideBySide(
        { metric: name, comparator: '<', threshold: RECOVERY_OVERHEAD_TARGET_PERCENT, unit: '%' },
        pairRatios(pairs, RATIOS[name].stem),
        SIDE_BY_SIDE_BAND,
        sidesInWords(metrics, RATIOS[name].stem),
      ),
    );
  return {
    name: RECOVERY_OVERHEAD_RESULT,
    category: 'recovery',
    parameters: { threads: outcome.threads, toxic: 'reset_peer', toxic_timeout_ms: 0 },
    metrics,
    samples,
    targets,
    notes: notesOf(pairs.length, outcome.bareFloor),
    details: { pairs: pairs.map(pairDetail) },
  };
}

/**
 * The witness's progress line, with the verdict words of its targets:
 * `per connection, harness vs bare: detection p50 4.1 vs 4.3 ms (ratio 95.3%; target < 110%: met), ...`.
 */
export function recoveryOverheadProgress(draft: ResultDraft): string {
  const m = draft.metrics;
  const msText = (name: string) => (typeof m[name]?.value === 'number' ? `${m[name].value} ms` : 'n/a');
  const verdict = (name: string) => {
    const target = draft.targets?.find((one) => one.metric === name);
    return target ? `; ${describeTargetVerdict(target)}` : '';
  };
  const ratio = (name: string) => `ratio ${typeof m[name]?.value === 'number' ? `${m[name].value}%` : 'n/a'}${verdict(name)}`;
  const figure = (what: string, family: string) =>
    `${what} p50 ${msText(`harness_${family}_p50_ms`)} vs ${msText(`bare_${family}_p50_ms`)} (${ratio(`${family}_p50_ratio_percent`)}), ` +
    `p95 ${msText(`harness_${family}_p95_ms`)} vs ${msText(`bare_${family}_p95_ms`)}`;
  return (
    `per connection, harness vs bare: ${figure('detection', 'connection_detection')}; ${figure('recovery', 'connection_recovery')}; ` +
    `fault spread harness ${msText('harness_fault_spread_ms')}, bare ${msText('bare_fault_spread_ms')}; ` +
    `propagation ${msText('harness_propagation_ms')} vs ${msText('bare_propagation_ms')} (not compared: it carries the spread); ` +
    `medians of ${m.pairs?.value ?? '?'} pairs, ratios ${draft.samples?.connection_detection_p50_ratio_percent?.join('%, ')}% / ${draft.samples?.connection_recovery_p50_ratio_percent?.join('%, ')}%`
  );
}

function pairRatios(pairs: readonly RecoveryOverheadPair[], stem: Stem): (number | null)[] {
  return pairs.map((pair) => timeRatioPercent(FIGURES[stem](pair.harness), FIGURES[stem](pair.bare)));
}

/**
 * Each side's per-connection figures and how spread out its connections' starting moments were —
 * the fault spread for detection, when the threads heard of the removal for recovery — for a
 * reader of a ratio that says the sides differ.
 */
function sidesInWords(metrics: Readonly<Record<string, Metric>>, stem: Stem): string {
  const value = (name: string) => {
    const figure = metrics[name]?.value;
    return figure === null || figure === undefined ? 'n/a' : `${figure} ms`;
  };
  const family = stem.replace(/_p50_ms$/, '');
  const detection = family === 'connection_detection';
  const what = detection ? 'detection (own RST to detection)' : 'recovery (hearing of the removal to recovered)';
  const spread = (prefix: string) =>
    detection
      ? `fault spread ${value(`${prefix}_fault_spread_ms`)}`
      : `removal heard after p50 ${value(`${prefix}_removal_signal_p50_ms`)}, max ${value(`${prefix}_removal_signal_max_ms`)}`;
  const side = (prefix: string) =>
    `${prefix} p50 ${value(`${prefix}_${family}_p50_ms`)}, p95 ${value(`${prefix}_${family}_p95_ms`)}, max ${value(`${prefix}_${family}_max_ms`)}, ${spread(prefix)}`;
  return `per-connection ${what}: ${side('harness')}; ${side('bare')}`;
}

function notesOf(pairCount: number, bareFloor: string): string[] {
  return [
    `the reset_peer scenario (armed RST, traffic every max(5, threads/2) ms, one pulse after the injection) run by the harness and by the bare floor, ${pairCount} pair(s) back to back, the side that goes first alternating; every run is fresh threads, connections and queues on both sides (the harness's pool is started for the run, never taken from the shelf)`,
    `bare floor: ${bareFloor}; same proxy, same fault, same traffic, same removal (the scenario that drives the harness drives it)`,
    "per connection: detection from the RST on that connection (the proxy's timeline, by its client port) to the thread's detection; recovery from the moment that thread heard the fault was removed to its round trip on the new connection. harness_*/bare_*: each run's quantile over its connections, the median over the pairs",
    `*_ratio_percent: the median of the pairs' harness / bare x 100 of the per-connection median (p95 shown, not judged); 100 = no overhead. Target: below ${RECOVERY_OVERHEAD_TARGET_PERCENT}% (recorded, not asserted); a ratio outside ${SIDE_BY_SIDE_BAND.lowPercent}–${SIDE_BY_SIDE_BAND.highPercent}% says the two sides did different work and is reported as such, never met`,
    "propagation, recovery after removal and the fault spread are each side's scenario figures, shown and never divided: propagation is timed from the first RST, so it carries the proxy's spread of the RSTs, which depends on how the two cores were shared at that moment and is not the same on both sides",
    'removal_signal_*: from the end of the removal to a thread starting its recovery — the harness tells its threads through shared memory, the bare floor through a pipe (stdin, then for scripts/bare-recovery.js a message per thread); left out of the per-connection recovery on both sides',
  ];
}

function pairDetail(pair: RecoveryOverheadPair) {
  const sideDetail = (side: RecoverySide) => ({
    ...Object.fromEntries((Object.keys(FIGURES) as Stem[]).map((stem) => [stem, round3OrNull(FIGURES[stem](side))])),
    connections_timed_from_own_fault: side.connections.detectionMs.filter((value) => value !== null).length,
    received: side.computed.fault.received,
    failures: side.failures,
  });
  return { first: pair.first, harness: sideDetail(pair.harness), bare: sideDetail(pair.bare) };
}
