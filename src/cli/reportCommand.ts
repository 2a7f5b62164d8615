/**
 * `bench report`: rebuilds LATEST_REPORT.md and its charts from what is on disk (the latest
 * archive, or --run, with the history and the previous archive); runs nothing.
 */
import type { Command } from 'commander';
import { getConfig } from '../config';
import { historyPath } from '../results/history';
import { rebuildReport } from '../run/reportOnly';
import { secretsOf } from '../redact';
import { resolveReportOptions, type ReportCommandInput, type ReportOptions } from './runOptions';
import { formatComparison, formatSummary } from './summary';

export function registerReportCommand(program: Command): void {
  program
    .command('report')
    .description('rebuild the Markdown report and charts from the archived runs on disk (runs no benchmark)')
    .option(
      '-o, --output <dir>',
      'folder holding the archives and history, where the report is written (default BENCH_REPORTS_DIR or reports/benchmarks)',
    )
    .option('--run <run_id>', 'report on this archived run instead of the latest (e.g. run_20250131_235959_1a2b3c4d)')
    .option('--compare', 'also print the comparison with the previous run in the terminal')
    .option(
      '--threshold <percent>',
      'exit 1 when a metric is judged worse (significant after Benjamini-Hochberg correction and beyond its minimum effect) by more than this percentage, and name it; implies --compare',
    )
    .option('--template <file>', 'Handlebars template for the Markdown report (default src/report/templates/report.md.hbs)')
    .action(async (input: ReportCommandInput) => {
      process.exitCode = await buildReportFromDisk(resolveReportOptions(input, getConfig()));
    });
}

export async function buildReportFromDisk(
  options: ReportOptions,
  log: (line: string) => void = (line) => process.stdout.write(`${line}\n`),
): Promise<number> {
  const rebuilt = await rebuildReport({
    reportsDir: options.reportsDir,
    runId: options.runId,
    templatePath: options.templatePath,
    thresholdPercent: options.thresholdPercent,
    secrets: secretsOf(getConfig().amqpUrl),
    warn: (message) => log(`bench: warning: ${message}`),
  });
  if (options.compare && rebuilt.comparison) log(formatComparison(rebuilt.comparison));
  else if (options.compare) log(`bench: nothing to compare with: ${rebuilt.comparisonNote ?? 'no previous run'}`);
  log(
    formatSummary({
      archive: rebuilt.archive,
      archivePath: rebuilt.archivePath,
      reportPath: rebuilt.reportPath,
      chartCount: rebuilt.view?.charts.length ?? 0,
      historyPath: historyPath(options.reportsDir),
      historyRuns: rebuilt.historyRuns,
      junitPath: null,
      comparison: rebuilt.comparison,
      regressions: rebuilt.regressions,
      thresholdPercent: options.thresholdPercent,
      cwd: process.cwd(),
    }),
  );
  return rebuilt.reportError || rebuilt.regressions.length > 0 ? 1 : 0;
}
