/**
 * `bench merge DIR...`: combines the shards of one sharded run (each `bench run --shard i/n`
 * leaves its raw results and a shard manifest in its raw-results folder) into one run archive,
 * history entry and report. Refuses shards of different commits, saying which.
 */
import type { Command } from 'commander';
import path from 'node:path';
import { getConfig } from '../config';
import { mergeShardRuns } from '../run/merge';
import { secretsOf } from '../redact';
import { resolveReportOptions, type ReportCommandInput } from './runOptions';
import { formatComparison, formatSummary } from './summary';

export function registerMergeCommand(program: Command): void {
  program
    .command('merge')
    .description('merge the raw results of the shards of one run (bench run --shard i/n) into one archive, history entry and report')
    .argument('<dirs...>', "each shard's raw-results folder (holding its raw results and .shard-manifest.json)")
    .option('-o, --output <dir>', 'folder for the report, charts, archive and history (default BENCH_REPORTS_DIR or reports/benchmarks)')
    .option('--compare', 'also print the comparison with the previous run in the terminal')
    .option(
      '--threshold <percent>',
      'exit 1 when a metric got significantly worse (p < 0.05) by more than this percentage; implies --compare',
    )
    .option('--template <file>', 'Handlebars template for the Markdown report (default src/report/templates/report.md.hbs)')
    .addHelpText(
      'after',
      `
Example (three shards, then one report):
  BENCH_RAW_DIR=out/shard-1 npm run bench -- --quick --shard 1/3
  BENCH_RAW_DIR=out/shard-2 npm run bench -- --quick --shard 2/3
  BENCH_RAW_DIR=out/shard-3 npm run bench -- --quick --shard 3/3
  node bin/bench.js merge out/shard-1 out/shard-2 out/shard-3`,
    )
    .action(async (dirs: string[], input: Omit<ReportCommandInput, 'run'>) => {
      process.exitCode = await mergeShards(dirs, input);
    });
}

export async function mergeShards(
  dirs: readonly string[],
  input: Omit<ReportCommandInput, 'run'>,
  log: (line: string) => void = (line) => process.stdout.write(`${line}\n`),
): Promise<number> {
  const options = resolveReportOptions(input, getConfig());
  const merged = await mergeShardRuns({
    dirs: dirs.map((dir) => path.resolve(dir)),
    reportsDir: options.reportsDir,
    templatePath: options.templatePath,
    thresholdPercent: options.thresholdPercent,
    secrets: secretsOf(getConfig().amqpUrl),
    warn: (message) => log(`bench: warning: ${message}`),
  });
  log(
    `bench: merged ${merged.plan.shards.map((shard) => `shard ${shard.shard} (${shard.tests} tests, ${shard.results} results)`).join(', ')} of commit ${merged.plan.environment.git_commit.slice(0, 12)}`,
  );
  if (options.compare && merged.comparison) log(formatComparison(merged.comparison));
  else if (options.compare) log(`bench: nothing to compare with: ${merged.comparisonNote ?? 'no previous run'}`);
  log(
    formatSummary({
      archive: merged.archive,
      archivePath: merged.archivePath,
      reportPath: merged.reportPath,
      chartCount: merged.view?.charts.length ?? 0,
      historyPath: merged.history ? merged.historyPath : null,
      historyRuns: merged.history?.runs.length ?? null,
      junitPath: null,
      comparison: merged.comparison,
      regressions: merged.regressions,
      thresholdPercent: options.thresholdPercent,
      cwd: process.cwd(),
    }),
  );
  if (merged.archive.status !== 'passed' || merged.historyError || merged.reportError || merged.regressions.length > 0) return 1;
  return 0;
}
