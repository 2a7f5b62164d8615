/**
 * `bench run`: the full run, in this order: the preflight (nothing is touched until it
 * passes), capture the environment, set old raw results aside, run Jest's benchmark project,
 * collect the raw results, archive the run, append to the history, compare with the previous
 * run, write the report; then a one-screen summary. A run that executed no test writes nothing
 * and puts the old raw results back.
 * Exit codes: 0 all passed; 1 a test failed, a preflight check failed, nothing ran, or a
 * regression beyond --threshold; 2 bad option; 130 interrupted (what was produced is archived
 * all the same).
 */
import path from 'node:path';
import { Option, type Command } from 'commander';
import { getConfig, PROJECT_ROOT } from '../config';
import { clientLabel, type ClientSpec } from '../client/api';
import { CLIENT_NAMES } from '../client/registry';
import { captureEnvironment, type EnvironmentRecord } from '../environment';
import { runPreflight, type PreflightPassed } from '../preflight';
import { removeOutcome } from '../results/outcome';
import { HISTORY_FILE_NAME } from '../results/history';
import { REPORT_FILE_NAME } from '../report/render';
import { redactUrl, secretsOf } from '../redact';
import { runJest, type JestRunOutcome } from './jestProcess';
import { finishRun } from './runFinish';
import { openRunSession, type RunSession } from './runSession';
import { shownPath as shown } from './shownPath';
import { finishShardRun, shardArguments } from './shard';
import { formatShard } from '../results/shardManifest';
import { CLIENTS_MARKERS, FULL_MARKERS, QUICK_MARKERS, resolveRunOptions, type RunCommandInput, type RunOptions } from './runOptions';

/** Jest project the benchmarks live in (jest.config.ts). */
export const BENCHMARK_PROJECT = 'benchmark';

export function registerRunCommand(program: Command): void {
  program
    .command('run')
    .description('run the benchmarks, then archive the run, update the history, compare with the previous run and write the report')
    .option(
      '-m, --markers <expression>',
      `marker expression selecting benchmarks, with and/or/not and parentheses (default: BENCH_MARKERS if set, else "${FULL_MARKERS}"; passed to Jest as BENCH_MARKERS)`,
    )
    .option('--quick', `quick run: markers "${QUICK_MARKERS}" (an explicit -m or BENCH_MARKERS wins)`)
    .option(
      '-t, --test-name <pattern>',
      'only tests whose full name matches this regular expression (Jest -t), e.g. test_recovery_after_reset_peer',
    )
    .option('--keep-results', "keep the raw results of earlier runs in the raw-results folder (they are then collected with this run's)")
    .option(
      '-o, --output <dir>',
      'folder for the report, charts, archives, history and junit.xml (default BENCH_REPORTS_DIR or reports/benchmarks)',
    )
    .option('--compare', 'also print the comparison with the previous run in the terminal (the report always has it)')
    .option(
      '--threshold <percent>',
      'exit 1 when a metric is judged worse (significant after Benjamini-Hochberg correction and beyond its minimum effect) by more than this percentage, and name it; implies --compare',
    )
    .option('--template <file>', 'Handlebars template for the Markdown report (default src/report/templates/report.md.hbs)')
    .option('-n, --numprocesses <n>', 'Jest workers running benchmark files at once (1 = in band, as jest.config.ts sets by default)')
    .option('--run-in-band', 'run every benchmark file in the Jest process itself (same as -n 1)')
    .addOption(
      new Option(
        '--jest-config <file>',
        'Jest config to use instead of jest.config.ts (it must define a "benchmark" project; its own globalSetup checks the broker and proxy it needs)',
      ),
    )
    .option('--no-broker', 'do not ask the broker its version for the environment record')
    .option(
      '--clients <list>',
      `clients under test, each benchmark once per entry: "all" (every client, defaults and normalised profiles) or a comma-separated list of ${CLIENT_NAMES.join(', ')}, each optionally :defaults or :normalised (default BENCH_CLIENTS or amqplib:defaults)`,
    )
    .option(
      '--replicates <n>',
      "replicates of every replicated measurement, replacing each benchmark's own (6 publish, 5 recovery); fewer is faster, but a comparison needs 5-6 to judge a change (default BENCH_REPLICATES)",
    )
    .option(
      '--fail-on-findings',
      "a client's finding (a fault-matrix cell that failed: not noticed, stopped consuming, publishes hung, ...) fails the run; by default findings are results and the run passes (BENCH_FAIL_ON_FINDINGS)",
    )
    .option(
      '--shard <i/n>',
      'run only shard i of n of the benchmark files (Jest --shard); leaves the raw results and a shard manifest for `bench merge`, no archive or report',
    )
    .addHelpText(
      'after',
      `
Order: preflight -> environment -> set old raw results aside -> jest --selectProjects ${BENCHMARK_PROJECT} -> collect -> archive -> history -> compare -> report.
The preflight (marker expression, output folders, broker, fault proxy API) touches nothing; a failure is one line, exit 1 (2 for a bad option).
A run that executed no test archives nothing, keeps the last report and history, and puts the old raw results back (exit 1).
Ctrl-C stops Jest and still archives what it produced (exit code 130).

Examples:
  npm run bench                                   full run (markers "${FULL_MARKERS}")
  npm run bench:quick                             markers "${QUICK_MARKERS}"
  npm run bench -- -m "not stress" -n 1           fewer resources
  npm run bench -- -t test_recovery_after_reset_peer
  npm run bench:compare -- --threshold 10         fail on a metric judged worse by more than 10%
  npm run bench:clients                           every client side by side (-m "${CLIENTS_MARKERS}" --clients all --replicates 1)
  npm run bench:faults                            the fault matrix: every fault for every client (-m "faults and not slow" --clients all)
  npm run bench:quick -- --clients amqplib,rabbitmq-client:normalised`,
    )
    .action(async (input: RunCommandInput) => {
      process.exitCode = await runBenchmarks(resolveRunOptions(input, getConfig()));
    });
}

/**
 * Runs everything; resolves with the exit code. One run at a time per raw-results folder: a
 * second run would set the first one's results aside mid-run, so it is refused with who holds it;
 * a run that was killed is recovered first (src/cli/runSession.ts).
 */
export async function runBenchmarks(
  options: RunOptions,
  log: (line: string) => void = (line) => process.stdout.write(`${line}\n`),
): Promise<number> {
  const config = getConfig();
  // Before anything is created, deleted or started: a failure here leaves the disk as it was.
  const preflight = await runPreflight({
    folders: [
      { path: options.rawResultsDir, setting: 'BENCH_RAW_DIR' },
      // Archives and the history live in the reports folder; these files there are replaced.
      { path: options.reportsDir, setting: options.reportsDirSetting, replaces: [HISTORY_FILE_NAME, REPORT_FILE_NAME, 'junit.xml'] },
    ],
    // Another Jest config brings its own globalSetup, which checks what its benchmarks need.
    services: options.jestConfigPath ? null : config,
  });
  if (preflight.proxy) {
    log(
      `bench: preflight passed: RabbitMQ ${preflight.brokerVersion ?? '(version not said)'} at ${redactUrl(config.amqpUrl)}; ` +
        proxyPlanText(preflight.proxy, config.proxyApiUrl),
    );
  }
  const session = openRunSession({
    rawResultsDir: options.rawResultsDir,
    secrets: secretsOf(config.amqpUrl),
    log,
    runIdClaimsDir: config.runIdClaimsDir,
  });
  try {
    return await runBenchmarksUnlocked(options, session, log);
  } finally {
    session.close();
  }
}

/** What the preflight found, as the run will use it: the run's own proxy, or the API at TOXIPROXY_URL. */
function proxyPlanText(proxy: NonNullable<PreflightPassed['proxy']>, apiUrl: string): string {
  switch (proxy.state) {
    case 'own':
      return "the run's own embedded fault proxy will start on a free port (TOXIPROXY_URL unset)";
    case 'toxiproxy':
      return `Toxiproxy API ${proxy.version} at ${apiUrl}`;
    case 'absent':
      return `nothing listens at ${apiUrl}, the embedded proxy will start there`;
  }
}

async function runBenchmarksUnlocked(options: RunOptions, session: RunSession, log: (line: string) => void): Promise<number> {
  const startedAt = new Date();
  const environment = await captureEnvironment({
    amqpUrl: options.queryBroker ? getConfig().amqpUrl : undefined,
    faultProxy: { apiUrl: getConfig().proxyApiUrl, embeddedProxy: getConfig().embeddedProxy, scope: getConfig().proxyScope },
  });
  log(
    `bench: environment ${environment.fingerprint} (node ${environment.node_version}, RabbitMQ ${environment.rabbitmq_version ?? 'not reached'}, fault proxy ${environment.fault_proxy_kind ? `${environment.fault_proxy_kind} ${environment.fault_proxy_version ?? ''}`.trim() : 'none'}, commit ${environment.git_commit.slice(0, 8)}${environment.git_dirty ? ' dirty' : ''})`,
  );
  setOldResultsAside(options, session, environment, startedAt, log);
  let jest: JestRunOutcome;
  try {
    jest = await runBenchmarkJest(options, environment, log);
  } catch (error) {
    session.putBack();
    throw error;
  }
  const finishedAt = new Date();
  if (options.shard) {
    const exitCode = finishShardRun(
      { ...options, shard: options.shard, environment, startedAt, finishedAt, jestExitCode: jest.exitCode, interrupted: jest.interrupted },
      log,
    );
    session.finish();
    return exitCode;
  }
  return finishRun({ options, session, environment, startedAt, finishedAt, jest }, log);
}

function setOldResultsAside(
  options: RunOptions,
  session: RunSession,
  environment: EnvironmentRecord,
  startedAt: Date,
  log: (line: string) => void,
): void {
  // Old results may be kept, an old test outcome never: it would be taken for this run's.
  if (options.keepResults) removeOutcome(options.rawResultsDir);
  const setAside = session.begin({
    started_at: startedAt.toISOString(),
    environment,
    marker_expression: options.markerExpression,
    test_name_filter: options.testNameFilter,
    reports_dir: path.resolve(options.reportsDir),
    shard: options.shard ? formatShard(options.shard) : null,
    keepResults: options.keepResults,
  });
  if (setAside > 0)
    log(
      `bench: set ${setAside} old raw result file(s) aside in ${shown(options.rawResultsDir)} (deleted once a benchmark has run, put back if none does)`,
    );
}

async function runBenchmarkJest(options: RunOptions, environment: EnvironmentRecord, log: (line: string) => void): Promise<JestRunOutcome> {
  const args = [
    // The benchmark project alone (also what an installed package runs: Jest compiles no config under node_modules/).
    '--config',
    options.jestConfigPath ?? path.join(PROJECT_ROOT, 'jest', 'benchmarks.config.js'),
    ...(options.testNameFilter ? ['-t', options.testNameFilter] : []),
    ...(options.maxWorkers === 1 ? ['--runInBand'] : options.maxWorkers ? ['--maxWorkers', String(options.maxWorkers)] : []),
    ...shardArguments(options.shard),
    // Zero selected tests is reported by us, in plain words, below.
    '--passWithNoTests',
  ];
  log(`bench: jest --selectProjects ${BENCHMARK_PROJECT} ${args.join(' ')} (markers "${options.markerExpression}")`);
  log(
    `bench: ${options.clients.length === 1 ? 'client' : `${options.clients.length} clients`} ${options.clients.map(clientLabel).join(', ')}` +
      (options.replicates === null ? '' : `; ${options.replicates} replicate(s) per replicated measurement`),
  );
  return runJest({
    project: BENCHMARK_PROJECT,
    args,
    cwd: PROJECT_ROOT,
    env: {
      ...process.env,
      BENCH_PIPELINE_OWNER: 'cli',
      BENCH_MARKERS: options.markerExpression,
      BENCH_RAW_DIR: options.rawResultsDir,
      BENCH_REPORTS_DIR: options.reportsDir,
      BENCH_FINGERPRINT: environment.fingerprint,
      BENCH_CLIENTS: clientSelectionText(options.clients),
      // Empty reads as unset: each benchmark's own count.
      BENCH_REPLICATES: options.replicates === null ? '' : String(options.replicates),
      BENCH_FAIL_ON_FINDINGS: String(options.failOnFindings),
    },
    onSignal: (signal) => log(`bench: ${signal}: stopping Jest; what it produced will be archived (again to kill it at once)`),
  });
}

/** `amqplib:defaults,/abs/bench/myClient.ts:normalised`: the selection as BENCH_CLIENTS reads it back. */
export function clientSelectionText(clients: readonly ClientSpec[]): string {
  // An adapter from outside travels as its module's absolute path: Jest's processes load it from there.
  return clients.map((client) => `${client.module ?? client.name}:${client.profile}`).join(',');
}
