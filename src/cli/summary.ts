/**
 * The one-screen summary printed at the end of `bench run` and `bench report` (pure: data in,
 * text out): status, counts, key figures against targets, comparison verdicts, where files are.
 */
import { formatTimeBudget, timeBudget } from '../run/timeBudget';
import type { RunComparison } from '../results/compare';
import { countVerdicts, type Regression } from '../results/gate';
import type { RunArchive } from '../results/archive';
import { MIN_HISTORY_RUNS } from '../results/judge';
import { resultLabel } from '../report/labels';
import { formatDuration, formatNumber, formatValue, humanizeMetricName } from '../report/format';
import { GLANCE_RECOVERY_METRICS, keyMetricConfiguration, recoveryScenarios } from '../report/glance';
import { describeCheck, figureMet, targetChecks } from '../report/targets';
import { keyMetricLabel } from '../results/keyMetrics';
import type { RawResult } from '../results/rawResult';
import { findingsOf } from '../results/findings';
import { shownPath } from './shownPath';
import {
  describeBaseline,
  describeChange,
  describeCurrent,
  describeMinimumEffect,
  describeRegression,
  describeSignificance,
  machineShiftNotes,
} from '../report/comparisonView';

export interface SummaryInput {
  readonly archive: RunArchive;
  readonly archivePath: string;
  readonly reportPath: string | null;
  readonly chartCount: number;
  readonly historyPath: string | null;
  readonly historyRuns: number | null;
  readonly junitPath: string | null;
  readonly comparison: RunComparison | null;
  readonly regressions: readonly Regression[];
  readonly thresholdPercent: number | null;
  readonly cwd: string;
}

/** A recovery figure in the terminal: `1.22 ✓`, `12.3 ✗` (target missed), `—`. */
function terminalFigure(result: RawResult, metric: string, keyMetrics: RunArchive['key_metrics']): string {
  const value = result.metrics[metric]?.value;
  if (typeof value !== 'number') return '—';
  const met = figureMet(result, metric, keyMetrics);
  return `${formatNumber(value)}${met === true ? ' ✓' : met === false ? ' ✗' : '  '}`;
}

/**
 * The key figures, in the report's names: the peaks, then a table of the recovery scenarios
 * (detection, propagation, detection spread, fault spread, full recovery), then the targets, missed ones by name.
 */
export function keyFigureLines(archive: RunArchive): string[] {
  const lines: string[] = [];
  const peaks = archive.key_metrics.filter((metric) => metric.id.startsWith('peak_'));
  const scenarios = recoveryScenarios(archive.results);
  if (peaks.length > 0 || scenarios.length > 0) lines.push('key metrics');
  const labelWidth = Math.max(0, ...peaks.map((metric) => keyMetricLabel(metric).length));
  for (const metric of peaks) {
    lines.push(
      `  ${keyMetricLabel(metric).padEnd(labelWidth)}  ${formatValue(metric.value, metric.unit).padStart(13)}  ${keyMetricConfiguration(metric, archive.results)}`,
    );
  }
  if (scenarios.length > 0) {
    const header = ['recovery, ms from the fault', 'detection', 'propagation', 'detection spread', 'fault spread', 'full recovery'];
    const rows = scenarios.map(({ scenario, result }) => [
      scenario,
      ...GLANCE_RECOVERY_METRICS.map((metric) => terminalFigure(result, metric, archive.key_metrics)),
    ]);
    const widths = header.map((title, index) => Math.max(title.length, ...rows.map((row) => row[index]!.length)));
    const line = (row: readonly string[]) =>
      `  ${row.map((text, index) => (index === 0 ? text.padEnd(widths[index]!) : text.padStart(widths[index]!))).join('  ')}`.trimEnd();
    lines.push(line(header), ...rows.map(line));
    lines.push(
      '  detection = first thread to notice, propagation = all threads, detection spread = the time between, fault spread = first to last moment the fault hit a connection; ✓ target met, ✗ missed',
    );
  }
  const checks = targetChecks(archive.results, archive.key_metrics);
  if (checks.length > 0) {
    // Upper bounds are left unscored on purpose, inconclusive ones are not misses: counted apart, never listed as missed.
    const unscored = checks.filter((check) => check.met === null && check.reason !== undefined && !check.inconclusive && !check.differ);
    const inconclusive = checks.filter((check) => check.inconclusive);
    const differ = checks.filter((check) => check.differ);
    const scored = checks.filter((check) => !unscored.includes(check) && !inconclusive.includes(check) && !differ.includes(check));
    const met = scored.filter((check) => check.met === true).length;
    const missed = scored.filter((check) => check.met !== true);
    const unscoredText =
      unscored.length > 0 ? `; ${unscored.length} not scored (upper bounds or not the fault they are about; the report says why)` : '';
    const inconclusiveText = inconclusive.length > 0 ? `; ${inconclusive.length} inconclusive (the interval straddles the target)` : '';
    const differText =
      differ.length > 0 ? `; ${differ.length} with two sides that differ (a harness/bare check that compared different work)` : '';
    lines.push(
      `targets     ${met} of ${scored.length} met${inconclusiveText}${differText}${unscoredText}${missed.length > 0 ? `; missed:` : ''}`,
    );
    for (const check of [...inconclusive, ...differ].slice(0, MAX_MISSED_LINES)) lines.push(`  ? ${describeCheck(check)}: ${check.reason}`);
    for (const check of missed.slice(0, MAX_MISSED_LINES))
      lines.push(`  ✗ ${describeCheck(check)}${check.met === null ? ' (no value)' : ''}`);
    if (missed.length > MAX_MISSED_LINES) lines.push(`  … ${missed.length - MAX_MISSED_LINES} more in the report`);
  }
  return lines;
}

const MAX_MISSED_LINES = 8;

/** How many findings the run has, by client: results of the run, listed with their evidence in the report. */
export function findingLines(results: readonly RawResult[]): string[] {
  const byClient = new Map<string, number>();
  for (const result of results) {
    const found = findingsOf(result)?.length ?? 0;
    if (found === 0) continue;
    const client = result.client ? `${result.client.name} (${result.client.profile})` : 'the client';
    byClient.set(client, (byClient.get(client) ?? 0) + found);
  }
  if (byClient.size === 0) return [];
  const total = [...byClient.values()].reduce((sum, count) => sum + count, 0);
  const each = [...byClient].map(([client, count]) => `${client} ${count}`).join(', ');
  return [`findings    ${total} (${each}): results, not failures; listed with their evidence in the report`];
}

export function formatSummary(input: SummaryInput): string {
  const { archive } = input;
  const shown = (filePath: string) => shownPath(filePath, input.cwd);
  const counts = archive.counts;
  const lines = [
    `── amqp-bench ${archive.run_id} ${'─'.repeat(Math.max(4, 60 - archive.run_id.length))}`,
    `status      ${archive.status} · ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped + counts.todo} skipped${counts.failed_suites ? `, ${counts.failed_suites} file(s) could not run` : ''} · ${formatDuration(archive.duration_ms)}`,
    `selection   markers "${archive.marker_expression ?? 'all'}"${archive.test_name_filter ? `, -t "${archive.test_name_filter}"` : ''}`,
    `results     ${archive.results.length} raw result(s)${archive.invalid_result_files.length ? `, ${archive.invalid_result_files.length} unreadable (see report)` : ''}`,
  ];
  lines.push(...findingLines(archive.results));
  lines.push(...keyFigureLines(archive));
  const budget = timeBudget(archive);
  if (budget) lines.push(...formatTimeBudget(budget));
  if (input.comparison) {
    const verdicts = countVerdicts(input.comparison);
    lines.push(
      `compared    with ${input.comparison.previous_run_id}: ${verdicts.better} better, ${verdicts.worse} worse, ${verdicts.same} ~, ${verdicts.unknown} not judged (${verdicts.judged} judged, BH-corrected)` +
        (input.comparison.same_fingerprint
          ? ''
          : ` (environment differs: ${input.comparison.environment_differences.map((difference) => difference.field).join(', ')})`),
    );
  }
  if (input.thresholdPercent !== null) {
    lines.push(
      input.regressions.length === 0
        ? `threshold   no metric judged worse by more than ${input.thresholdPercent}%`
        : `threshold   ${input.regressions.length} metric(s) judged worse by more than ${input.thresholdPercent}%:`,
    );
    for (const regression of input.regressions) lines.push(`  ✗ ${describeRegression(regression)}`);
  }
  if (input.reportPath)
    lines.push(
      `report      ${shown(input.reportPath)}${input.chartCount ? ` (+${input.chartCount} chart${input.chartCount === 1 ? '' : 's'})` : ''}`,
    );
  lines.push(`archive     ${shown(input.archivePath)}`);
  if (input.historyPath)
    lines.push(
      `history     ${shown(input.historyPath)}${input.historyRuns !== null ? ` (${input.historyRuns} run${input.historyRuns === 1 ? '' : 's'})` : ''}`,
    );
  if (input.junitPath) lines.push(`junit       ${shown(input.junitPath)}`);
  return `${lines.join('\n')}\n`;
}

/**
 * The comparison as a terminal table (`--compare`): worse first, then better, then the rest; per
 * metric the baseline, this run, the change with its confidence interval, the minimum effect,
 * the corrected significance and the verdict, as in the report.
 */
export function formatComparison(comparison: RunComparison): string {
  const rows = comparison.matched.flatMap((result) =>
    result.metrics
      .filter((metric) => metric.direction !== 'none' && metric.previous !== null && metric.current !== null)
      .map((metric) => ({ result: resultLabel(result.name, result.parameters), metric })),
  );
  if (rows.length === 0) return `comparison with ${comparison.previous_run_id}: no metric in common\n`;
  const rank = { worse: 0, better: 1, same: 2, unknown: 3, 'n/a': 4 } as const;
  rows.sort((a, b) => rank[a.metric.verdict] - rank[b.metric.verdict]);
  const cells = rows.map(({ result, metric }) => [
    `${result} ${humanizeMetricName(metric.metric)}`,
    describeBaseline(metric),
    describeCurrent(metric),
    describeChange(metric),
    describeMinimumEffect(metric),
    describeSignificance(metric),
    metric.verdict === 'same' ? '~' : metric.verdict === 'unknown' ? '?' : metric.verdict,
  ]);
  const confidence = Math.round(comparison.confidence * 100);
  const header = ['result / metric', 'baseline', 'current', `change [${confidence}% CI]`, 'min. effect', 'significance', 'verdict'];
  const widths = header.map((title, index) => Math.max(title.length, ...cells.map((row) => row[index]!.length)));
  const line = (row: readonly string[]) =>
    row
      .map((cell, index) => (index === 0 || index >= 4 ? cell.padEnd(widths[index]!) : cell.padStart(widths[index]!)))
      .join('  ')
      .trimEnd();
  const counts = countVerdicts(comparison);
  const history = comparison.history_run_ids.length;
  return [
    comparison.design === 'paired'
      ? `comparison of ${comparison.current_run_id} (B) with ${comparison.previous_run_id} (A), measured in turns in one run: pairs of replicates after each measurement's warm-up pair (paired t on the log-ratios, ${confidence}% CI)`
      : `comparison with ${comparison.previous_run_id}: replicates of that run (Mann-Whitney U, Hodges-Lehmann ${confidence}% CI), else ${history} earlier run(s) of its build (t prediction test, ${MIN_HISTORY_RUNS} needed)`,
    ...machineShiftNotes(comparison),
    `${counts.judged} metrics judged, Benjamini-Hochberg corrected at FDR ${comparison.alpha}; a verdict also needs the change beyond the minimum effect (~ no change that counts, ? not judged)`,
    line(header),
    ...cells.map(line),
    `${counts.better} better, ${counts.worse} worse, ${counts.same} ~, ${counts.unknown} not judged`,
    '',
  ].join('\n');
}
