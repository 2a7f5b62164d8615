/**
 * The verdict of an A/A check (pure: comparisons in, text and exit code out). An A/A check runs
 * the same selection several times on unchanged code and compares each run with the previous
 * one exactly as `bench report --threshold` would: every metric judged better or worse is a false
 * alarm, and every pair the gate would fail is a pull request failed for nothing.
 */
import type { RunComparison } from '../results/compare';
import { countVerdicts, type Regression } from '../results/gate';
import { describeRegression } from '../report/comparisonView';
import { resultLabel } from '../report/labels';
import { describeChange, describeSignificance } from '../report/comparisonView';
import { humanizeMetricName } from '../report/format';
import { median, type NonEmptyArray } from '../measure/statistics';

export interface AaPair {
  readonly run_id: string;
  /** Null when the run had nothing to compare with (e.g. it failed, or shares no result). */
  readonly comparison: RunComparison | null;
  readonly regressions: readonly Regression[];
  readonly note: string | null;
}

export interface AaVerdict {
  readonly text: string;
  /** 0: every pair within the false-alarm limit and passing the gate; 1 otherwise. */
  readonly exitCode: 0 | 1;
  readonly judged: number;
  readonly flagged: number;
  /** The worst pair's share of its judged metrics flagged. */
  readonly worstSharePercent: number;
  /** `--threshold` would have passed every pair. */
  readonly gatePassed: boolean;
  /**
   * The smallest slow-down the comparison tells from noise, the median over the pairs' throughput
   * metrics of the larger of each one's minimum effect and its interval's half-width (%); null
   * when no throughput metric was judged.
   */
  readonly detectablePercent: number | null;
}

/**
 * A change is a verdict only when it is significant and beyond the minimum effect: roughly, when
 * it exceeds both the minimum effect and the half-width of the change's interval. The median of
 * that over a comparison's judged throughput metrics.
 */
export function detectableSlowdownPercent(comparison: RunComparison): number | null {
  const sizes = comparison.matched
    .flatMap((result) => result.metrics)
    .filter((metric) => metric.family === 'throughput' && metric.p_value !== null && metric.minimum_effect !== null)
    .flatMap((metric) => {
      const change = metric.change;
      if (!change || change.low_percent === null || change.high_percent === null) return [];
      return [Math.max(metric.minimum_effect!.percent, (change.high_percent - change.low_percent) / 2)];
    });
  return sizes.length === 0 ? null : median(sizes as unknown as NonEmptyArray<number>);
}

/**
 * @param maxFalseAlarmPercent a pair flagging more than this share of its judged metrics fails the check
 */
export function summarizeAaCheck(
  pairs: readonly AaPair[],
  thresholdPercent: number,
  maxFalseAlarmPercent: number,
  design: 'sequential' | 'paired' = 'sequential',
): AaVerdict {
  const lines = [
    design === 'paired'
      ? 'A/A check, paired: unchanged code against itself, both sides in turns in one run (bench ab . .)'
      : 'A/A check: unchanged code, each run compared with the one before it',
    '',
  ];
  const header = ['pair', 'run', 'judged', 'flagged', 'share', `--threshold ${thresholdPercent}`, 'detects'];
  const weighed = pairs.map((pair, index) => weighPair(pair, index, maxFalseAlarmPercent, design));
  const rows = weighed.map((pair) => pair.row);
  const details = weighed.flatMap((pair) => pair.details);
  const judged = weighed.reduce((sum, pair) => sum + pair.judged, 0);
  const flagged = weighed.reduce((sum, pair) => sum + pair.flagged, 0);
  const failing = weighed.filter((pair) => pair.failing).length;
  const worstSharePercent = Math.max(0, ...weighed.map((pair) => pair.sharePercent));
  const detectable = weighed.flatMap((pair) => (pair.detectablePercent === null ? [] : [pair.detectablePercent]));
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  const line = (row: readonly string[]) =>
    row
      .map((cell, column) => cell.padEnd(widths[column]!))
      .join('  ')
      .trimEnd();
  lines.push(line(header), ...rows.map(line), '');
  if (details.length > 0) lines.push(...details, '');
  const overall = judged === 0 ? 0 : (flagged / judged) * 100;
  const detectablePercent = detectable.length === 0 ? null : median(detectable as unknown as NonEmptyArray<number>);
  lines.push(
    `false alarms: ${flagged} of ${judged} judged metrics (${overall.toFixed(1)}%) over ${pairs.length} pair(s); limit ${maxFalseAlarmPercent}% per pair`,
    ...(detectablePercent === null
      ? []
      : [
          `smallest slow-down told from noise: ${detectablePercent.toFixed(0)}% (median over the throughput metrics of the larger of the minimum effect and the change interval's half-width)`,
        ]),
    `--threshold ${thresholdPercent} would have failed ${pairs.filter((pair) => pair.regressions.length > 0).length} of ${pairs.length} pair(s)`,
    failing === 0
      ? 'verdict: this machine is quiet enough to gate on --threshold ' + thresholdPercent
      : `verdict: ${failing} pair(s) failed the check: do not trust the gate on this machine as it is (quiet it, raise BENCH_MIN_EFFECTS, or raise --threshold)`,
  );
  return {
    text: `${lines.join('\n')}\n`,
    exitCode: failing === 0 ? 0 : 1,
    judged,
    flagged,
    worstSharePercent: Math.round(worstSharePercent * 10) / 10,
    gatePassed: pairs.every((pair) => pair.comparison !== null && pair.regressions.length === 0),
    detectablePercent: detectablePercent === null ? null : Math.round(detectablePercent * 10) / 10,
  };
}

interface WeighedPair {
  readonly row: string[];
  readonly details: string[];
  readonly judged: number;
  readonly flagged: number;
  readonly sharePercent: number;
  readonly failing: boolean;
  readonly detectablePercent: number | null;
}

/** One pair's row, its flagged metrics said one per line, and what it adds to the totals. */
function weighPair(pair: AaPair, index: number, maxFalseAlarmPercent: number, design: 'sequential' | 'paired'): WeighedPair {
  if (!pair.comparison)
    return {
      row: [String(index + 1), pair.run_id, '—', '—', '—', 'no comparison', '—'],
      details: [`pair ${index + 1}: ${pair.note ?? 'nothing to compare with'}`],
      judged: 0,
      flagged: 0,
      sharePercent: 0,
      failing: true,
      detectablePercent: null,
    };
  const counts = countVerdicts(pair.comparison);
  const flagged = counts.better + counts.worse;
  const sharePercent = counts.judged === 0 ? 0 : (flagged / counts.judged) * 100;
  const detectablePercent = detectableSlowdownPercent(pair.comparison);
  const details: string[] = [];
  for (const result of pair.comparison.matched) {
    for (const metric of result.metrics) {
      if (metric.verdict !== 'better' && metric.verdict !== 'worse') continue;
      details.push(
        `pair ${index + 1}: ${metric.verdict} ${resultLabel(result.name, result.parameters)} ${humanizeMetricName(metric.metric)} ${describeChange(metric)} (${describeSignificance(metric)})`,
      );
    }
  }
  for (const regression of pair.regressions) details.push(`pair ${index + 1}: the gate would fail on ${describeRegression(regression)}`);
  return {
    row: [
      String(index + 1),
      design === 'paired' ? pair.run_id : `${pair.run_id} vs ${pair.comparison.previous_run_id}`,
      String(counts.judged),
      `${flagged} (${counts.better} better, ${counts.worse} worse)`,
      `${sharePercent.toFixed(1)}%`,
      pair.regressions.length === 0 ? 'exit 0' : `exit 1 (${pair.regressions.length})`,
      detectablePercent === null ? '—' : `≥${detectablePercent.toFixed(0)}%`,
    ],
    details,
    judged: counts.judged,
    flagged,
    sharePercent,
    failing: sharePercent > maxFalseAlarmPercent || pair.regressions.length > 0 || counts.judged === 0,
    detectablePercent,
  };
}
