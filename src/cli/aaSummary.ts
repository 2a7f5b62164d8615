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
}

/**
 * @param maxFalseAlarmPercent a pair flagging more than this share of its judged metrics fails the check
 */
export function summarizeAaCheck(pairs: readonly AaPair[], thresholdPercent: number, maxFalseAlarmPercent: number): AaVerdict {
  const lines = ['A/A check: unchanged code, each run compared with the one before it', ''];
  const header = ['pair', 'run', 'judged', 'flagged', 'share', `--threshold ${thresholdPercent}`];
  const rows: string[][] = [];
  const details: string[] = [];
  let judged = 0;
  let flagged = 0;
  let failing = 0;
  let worstSharePercent = 0;
  pairs.forEach((pair, index) => {
    if (!pair.comparison) {
      rows.push([String(index + 1), pair.run_id, '—', '—', '—', 'no comparison']);
      details.push(`pair ${index + 1}: ${pair.note ?? 'nothing to compare with'}`);
      failing += 1;
      return;
    }
    const counts = countVerdicts(pair.comparison);
    const pairFlagged = counts.better + counts.worse;
    const share = counts.judged === 0 ? 0 : (pairFlagged / counts.judged) * 100;
    const gate = pair.regressions.length === 0 ? 'exit 0' : `exit 1 (${pair.regressions.length})`;
    worstSharePercent = Math.max(worstSharePercent, share);
    if (share > maxFalseAlarmPercent || pair.regressions.length > 0 || counts.judged === 0) failing += 1;
    judged += counts.judged;
    flagged += pairFlagged;
    rows.push([
      String(index + 1),
      `${pair.run_id} vs ${pair.comparison.previous_run_id}`,
      String(counts.judged),
      `${pairFlagged} (${counts.better} better, ${counts.worse} worse)`,
      `${share.toFixed(1)}%`,
      gate,
    ]);
    for (const result of pair.comparison.matched) {
      for (const metric of result.metrics) {
        if (metric.verdict !== 'better' && metric.verdict !== 'worse') continue;
        details.push(
          `pair ${index + 1}: ${metric.verdict} ${resultLabel(result.name, result.parameters)} ${humanizeMetricName(metric.metric)} ${describeChange(metric)} (${describeSignificance(metric)})`,
        );
      }
    }
    for (const regression of pair.regressions) details.push(`pair ${index + 1}: the gate would fail on ${describeRegression(regression)}`);
  });
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  const line = (row: readonly string[]) =>
    row
      .map((cell, column) => cell.padEnd(widths[column]!))
      .join('  ')
      .trimEnd();
  lines.push(line(header), ...rows.map(line), '');
  if (details.length > 0) lines.push(...details, '');
  const overall = judged === 0 ? 0 : (flagged / judged) * 100;
  lines.push(
    `false alarms: ${flagged} of ${judged} judged metrics (${overall.toFixed(1)}%) over ${pairs.length} pair(s); limit ${maxFalseAlarmPercent}% per pair`,
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
  };
}
