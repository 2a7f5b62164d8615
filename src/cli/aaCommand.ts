/**
 * `bench aa`: the A/A check. Runs the quick selection several times on unchanged code, each run
 * into folders of its own (never the user's history), then compares each run with the one before
 * it exactly as `bench report --threshold` does, and prints how many judged metrics were flagged
 * (the false-alarm rate of this machine) and whether the gate would have failed. Check a machine
 * this way before trusting `--threshold` on it. `--paired` checks the paired gate instead: each
 * pair is one `bench ab` of the working tree against itself, judged as a pull request would be.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Command } from 'commander';
import { getConfig } from '../config';
import { ConfigError } from '../errors';
import { secretsOf } from '../redact';
import { readHistory } from '../results/history';
import { rebuildReport } from '../run/reportOnly';
import { summarizeAaCheck, type AaPair, type AaVerdict } from './aaSummary';
import { measureAbComparison } from './abCommand';
import { resolveAbOptions } from './abOptions';
import { runBenchmarks } from './runCommand';
import { resolveRunOptions, type RunOptions } from './runOptions';

export interface AaCommandInput {
  readonly paired?: boolean;
  readonly runs?: string;
  readonly markers?: string;
  readonly testName?: string;
  readonly threshold?: string;
  readonly maxFalseAlarms?: string;
  readonly output?: string;
}

export interface AaOptions {
  /** Paired runs (`bench ab . .`), each one pair; else sequential runs, each compared with the one before. */
  readonly paired: boolean;
  readonly runs: number;
  readonly run: RunOptions;
  readonly thresholdPercent: number;
  readonly maxFalseAlarmPercent: number;
  readonly folder: string;
}

export function registerAaCommand(program: Command): void {
  program
    .command('aa')
    .description('A/A check: run the quick selection repeatedly on unchanged code and print the share of metrics flagged (false alarms)')
    .option('--paired', 'check the paired gate (`bench ab`): each pair is one paired run of the working tree against itself')
    .option(
      '--runs <n>',
      'how many runs: sequential, each compared with the one before it, 2 or more (default 4); paired, 1 or more (default 3)',
    )
    .option('-m, --markers <expression>', 'marker expression (default: the quick selection)')
    .option('-t, --test-name <pattern>', 'only tests whose full name matches (Jest -t), e.g. TestPublishThroughput')
    .option('--threshold <percent>', 'the gate to check: would `--threshold <percent>` have failed a pair?', '10')
    .option('--max-false-alarms <percent>', 'a pair flagging more than this share of its judged metrics fails the check', '5')
    .option('-o, --output <dir>', 'folder for the runs (default: a new folder under the system temp dir; never your reports folder)')
    .addHelpText(
      'after',
      `
Exit code 0 when every pair stays within --max-false-alarms and --threshold would have passed it; 1 otherwise.
Examples:
  npm run bench:aa                                 4 quick runs, each compared with the one before it
  npm run bench:aa -- --paired                     3 paired runs (bench ab of the working tree against itself)
  npm run bench:aa -- --runs 3 -t TestPublishThroughput`,
    )
    .action(async (input: AaCommandInput) => {
      process.exitCode = await runAaCheck(resolveAaOptions(input));
    });
}

export function resolveAaOptions(input: AaCommandInput, cwd: string = process.cwd()): AaOptions {
  const config = getConfig();
  const paired = input.paired === true;
  const runs = Number(input.runs ?? (paired ? '3' : '4'));
  if (!Number.isInteger(runs) || runs < (paired ? 1 : 2))
    throw new ConfigError('--runs', paired ? 'a whole number of paired runs, 1 or more' : 'a whole number of runs, 2 or more', input.runs);
  const thresholdPercent = percentage('--threshold', input.threshold ?? '10');
  const maxFalseAlarmPercent = percentage('--max-false-alarms', input.maxFalseAlarms ?? '5');
  const folder = input.output ? path.resolve(cwd, input.output) : fs.mkdtempSync(path.join(os.tmpdir(), 'amqp-bench-aa-'));
  const reportsDir = path.join(folder, 'reports');
  if ([config.reportsDir, config.rawResultsDir].some((dir) => path.resolve(dir) === reportsDir || path.resolve(dir) === folder)) {
    throw new ConfigError(
      '-o/--output',
      'a folder of its own for the A/A runs (not BENCH_REPORTS_DIR or BENCH_RAW_DIR: they would enter your history)',
      input.output,
    );
  }
  const run = resolveRunOptions({ quick: true, markers: input.markers, testName: input.testName }, config, cwd);
  return Object.freeze({
    paired,
    runs,
    thresholdPercent,
    maxFalseAlarmPercent,
    folder,
    run: Object.freeze({ ...run, reportsDir, rawResultsDir: path.join(folder, 'raw'), compare: false, thresholdPercent: null }),
  });
}

function percentage(option: string, raw: string): number {
  const value = Number(raw.trim().replace(/%$/, ''));
  if (raw.trim() === '' || !Number.isFinite(value) || value < 0) throw new ConfigError(option, 'a percentage of 0 or more (e.g. 10)', raw);
  return value;
}

export async function runAaCheck(
  options: AaOptions,
  log: (line: string) => void = (line) => process.stdout.write(`${line}\n`),
): Promise<number> {
  const verdict = await measureAaCheck(options, log);
  return verdict === 'interrupted' ? 130 : verdict.exitCode;
}

/** The A/A runs and their verdict (`bench aa`, `bench verify --aa`). */
export async function measureAaCheck(options: AaOptions, log: (line: string) => void): Promise<AaVerdict | 'interrupted'> {
  if (options.paired) return measurePairedAaCheck(options, log);
  log(`bench aa: ${options.runs} runs of markers "${options.run.markerExpression}" into ${options.folder}`);
  for (let run = 1; run <= options.runs; run += 1) {
    log(`bench aa: run ${run} of ${options.runs}`);
    const exitCode = await runBenchmarks(options.run, log);
    if (exitCode === 130) return 'interrupted';
    if (exitCode !== 0)
      log(
        `bench aa: run ${run} did not pass (exit ${exitCode}); it cannot serve as a baseline, the next run is compared with an earlier one`,
      );
  }
  const entries = readHistory(options.run.reportsDir).history.runs;
  const secrets = secretsOf(getConfig().amqpUrl);
  const pairs: AaPair[] = [];
  for (const entry of entries.slice(1)) {
    const rebuilt = await rebuildReport({
      reportsDir: options.run.reportsDir,
      runId: entry.run_id,
      thresholdPercent: options.thresholdPercent,
      secrets,
      warn: (message) => log(`bench aa: warning: ${message}`),
    });
    pairs.push({ run_id: entry.run_id, comparison: rebuilt.comparison, regressions: rebuilt.regressions, note: rebuilt.comparisonNote });
  }
  const verdict = summarizeAaCheck(pairs, options.thresholdPercent, options.maxFalseAlarmPercent);
  log('');
  log(verdict.text);
  log(`bench aa: runs, reports and history are in ${options.folder}`);
  return verdict;
}

/** Paired A/A: each pair is one `bench ab` of the working tree against itself, judged as a pull request's gate is. */
async function measurePairedAaCheck(options: AaOptions, log: (line: string) => void): Promise<AaVerdict | 'interrupted'> {
  log(
    `bench aa: ${options.runs} paired run(s) of the working tree against itself, markers "${options.run.markerExpression}", into ${options.folder}`,
  );
  const pairs: AaPair[] = [];
  for (let run = 1; run <= options.runs; run += 1) {
    log(`bench aa: paired run ${run} of ${options.runs}`);
    const ab = resolveAbOptions(
      '.',
      '.',
      {
        markers: options.run.markerExpression,
        testName: options.run.testNameFilter ?? undefined,
        threshold: String(options.thresholdPercent),
        output: path.join(options.folder, `paired-${run}`),
      },
      getConfig(),
    );
    const judgement = await measureAbComparison(ab, log);
    if (judgement.exitCode === 130) return 'interrupted';
    pairs.push({
      run_id: `paired-${run}`,
      comparison: judgement.comparison,
      regressions: judgement.regressions,
      note: judgement.problems.length > 0 ? judgement.problems.join('; ') : judgement.comparisonNote,
    });
  }
  const verdict = summarizeAaCheck(pairs, options.thresholdPercent, options.maxFalseAlarmPercent, 'paired');
  log('');
  log(verdict.text);
  log(`bench aa: every paired run's report and both sides' runs are in ${options.folder}`);
  return verdict;
}
