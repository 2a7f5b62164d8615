/**
 * The one-screen summary printed at the end of `bench run` and `bench report` (pure: data in,
 * text out): status, counts, key figures against targets, comparison verdicts, where files are.
 */
import path from 'node:path';
import { countVerdicts, type Regression, type RunComparison } from '../results/compare';
import type { RunArchive } from '../results/archive';
import { MIN_HISTORY_RUNS } from '../results/judge';
import { resultLabel, shortParameters } from '../report/labels';
import { formatDuration, formatValue, humanizeMetricName } from '../report/format';
import {
  describeBaseline,
  describeChange,
  describeCurrent,
  describeMinimumEffect,
  describeRegression,
  describeSignificance,
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

const MAX_KEY_LINES = 12;

export function formatSummary(input: SummaryInput): string {
  const { archive } = input;
  const shown = (filePath: string) => {
    const relative = path.relative(input.cwd, filePath);
    return relative.startsWith('..') ? filePath : relative;
  };
  const counts = archive.counts;
  const lines = [
    `── amqp-bench ${archive.run_id} ${'─'.repeat(Math.max(4, 60 - archive.run_id.length))}`,
    `status      ${archive.status} · ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped + counts.todo} skipped${counts.failed_suites ? `, ${counts.failed_suites} file(s) could not run` : ''} · ${formatDuration(archive.duration_ms)}`,
    `selection   markers "${archive.marker_expression ?? 'all'}"${archive.test_name_filter ? `, -t "${archive.test_name_filter}"` : ''}`,
    `results     ${archive.results.length} raw result(s)${archive.invalid_result_files.length ? `, ${archive.invalid_result_files.length} unreadable (see report)` : ''}`,
  ];
  if (archive.key_metrics.length > 0) {
    lines.push('key metrics');
    const width = Math.max(...archive.key_metrics.map((metric) => metric.label.length));
    for (const metric of archive.key_metrics.slice(0, MAX_KEY_LINES)) {
      const target = metric.target
        ? `  ${metric.target.comparator} ${formatValue(metric.target.threshold, metric.target.unit)} ${metric.met === true ? 'met' : metric.met === false ? 'MISSED' : 'no value'}`
        : '';
      lines.push(
        `  ${metric.label.padEnd(width)}  ${formatValue(metric.value, metric.unit).padStart(14)}${target}  (${shortParameters(metric.parameters)})`,
      );
    }
    if (archive.key_metrics.length > MAX_KEY_LINES) lines.push(`  … ${archive.key_metrics.length - MAX_KEY_LINES} more in the report`);
    const targeted = archive.key_metrics.filter((metric) => metric.target !== null);
    if (targeted.length > 0) lines.push(`targets     ${targeted.filter((metric) => metric.met === true).length}/${targeted.length} met`);
  }
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
    `comparison with ${comparison.previous_run_id}: replicates of that run (Mann-Whitney U, Hodges-Lehmann ${confidence}% CI), else ${history} earlier run(s) of its build (t prediction test, ${MIN_HISTORY_RUNS} needed)`,
    `${counts.judged} metrics judged, Benjamini-Hochberg corrected at FDR ${comparison.alpha}; a verdict also needs the change beyond the minimum effect (~ no change that counts, ? not judged)`,
    line(header),
    ...cells.map(line),
    `${counts.better} better, ${counts.worse} worse, ${counts.same} ~, ${counts.unknown} not judged`,
    '',
  ].join('\n');
}
