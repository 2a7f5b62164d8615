/**
 * `bench verify`: the harness checking itself, apart from the quick run. Runs the witnesses
 * (harness/bare ratios of publish, consume and recovery, the proxy's overhead: tests marked
 * `witness`) and the reset_peer scenario marked `capture` while tshark captures the RSTs leaving
 * the proxy's port, checks the proxy's fault timeline against that capture, optionally runs the
 * A/A check, and appends what it found to verifications.json in the reports folder — which every
 * report then cites (the latest verification of its build, or the nearest earlier one).
 */
import fs from 'node:fs';
import net, { type AddressInfo } from 'node:net';
import path from 'node:path';
import type { Command } from 'commander';
import { getConfig } from '../config';
import { readRunArchive } from '../results/archive';
import { readHistory } from '../results/history';
import { appendVerification, thisMachine, verificationsPath, type Verification } from '../results/verifications';
import { secretsOf } from '../redact';
import { checkResult, readRstCapture } from '../verify/capture';
import { captureVerdict, verificationVerdict, witnessChecks } from '../verify/checks';
import { startRstCapture } from '../verify/tshark';
import { measureAaCheck, resolveAaOptions } from './aaCommand';
import { runBenchmarks } from './runCommand';
import { resolveRunOptions } from './runOptions';

/** The witnesses, and the scenario whose fault timeline is checked against the capture. */
export const VERIFY_MARKERS = 'witness or capture';

export interface VerifyCommandInput {
  readonly capture?: boolean;
  readonly aa?: boolean | string;
  readonly threshold?: string;
  readonly maxFalseAlarms?: string;
  readonly output?: string;
  readonly testName?: string;
  readonly clients?: string;
}

export function registerVerifyCommand(program: Command): void {
  program
    .command('verify')
    .description(
      "Check the harness itself: its witnesses (harness/bare ratios, the proxy's overhead), the fault timeline against a packet capture, optionally the A/A check; every report cites the result",
    )
    .option('--no-capture', 'leave out the packet-capture check (it needs tshark and root or the wireshark group)')
    .option('--aa [runs]', 'also run the A/A check: that many quick runs on unchanged code (default 3), each compared with the one before')
    .option('--threshold <percent>', 'with --aa: the gate to check', '10')
    .option('--max-false-alarms <percent>', 'with --aa: a pair flagging more than this share of its metrics fails', '5')
    .option('-o, --output <dir>', 'folder for the verification runs (default: verify/ in the reports folder)')
    .option(
      '--clients <list>',
      'client configurations whose harness/bare witnesses run (as `bench run --clients`; default the default client)',
    )
    .option('-t, --test-name <pattern>', 'only the witnesses whose full name matches (Jest -t): a partial verification, said as such')
    .addHelpText(
      'after',
      `
The verdict goes to verifications.json in the reports folder (BENCH_REPORTS_DIR): sound (every
check met), inconclusive (none missed, one's interval straddles its target), unsound (a check
missed, the capture disagreed or the A/A check failed) or incomplete (a witness had no value).
Exit code 0 when sound or inconclusive, 1 otherwise.
Examples:
  npm run bench:verify                     witnesses and the capture check (about 4 minutes)
  npm run bench:verify -- --aa 4           and the A/A check over 4 quick runs
  npm run bench:verify -- --no-capture     without tshark`,
    )
    .action(async (input: VerifyCommandInput) => {
      process.exitCode = await runVerify(input);
    });
}

export async function runVerify(
  input: VerifyCommandInput,
  log: (line: string) => void = (line) => process.stdout.write(`${line}\n`),
  cwd: string = process.cwd(),
): Promise<number> {
  const config = getConfig();
  const folder = input.output ? path.resolve(cwd, input.output) : path.join(config.reportsDir, 'verify');
  // Bad --aa options are found before anything runs.
  const aaOptions = aaOptionsOf(input, folder, cwd);
  const run = {
    ...resolveRunOptions({ markers: VERIFY_MARKERS, testName: input.testName, clients: input.clients }, config, cwd),
    reportsDir: folder,
    reportsDirSetting: '-o/--output' as const,
    rawResultsDir: path.join(folder, '.test-output'),
  };
  fs.mkdirSync(folder, { recursive: true });
  const startedAt = new Date();
  const measured = await runWitnesses(run, folder, input.capture !== false, log);
  if (measured.exitCode === 130) return 130;

  const archive = latestArchiveSince(folder, startedAt);
  const results = archive?.results ?? [];
  const checks = witnessChecks(results);
  const { capture, captured } = measured;
  const captureCheck =
    'skipped' in capture
      ? { status: 'skipped' as const, detail: capture.skipped }
      : captureVerdict(results.flatMap((result) => checkResult(result, readRstCapture(captured, capture.port))));

  let aa: Verification['aa'] = null;
  if (aaOptions) {
    const verdict = await measureAaCheck(aaOptions, log);
    if (verdict === 'interrupted') return 130;
    aa = {
      runs: aaOptions.runs,
      false_alarm_percent: verdict.worstSharePercent,
      max_false_alarm_percent: aaOptions.maxFalseAlarmPercent,
      threshold_percent: aaOptions.thresholdPercent,
      gate_passed: verdict.gatePassed,
      passed: verdict.exitCode === 0,
    };
  }

  const environment = archive?.environment;
  const verification: Verification = {
    verified_at: new Date().toISOString(),
    fingerprint: environment?.fingerprint ?? 'unknown',
    git_commit: environment?.git_commit ?? 'unknown',
    machine: thisMachine(),
    run_id: archive?.run_id ?? null,
    test_name_filter: input.testName ?? null,
    checks,
    capture: captureCheck,
    aa,
    verdict: verificationVerdict(checks, captureCheck, aa, true),
  };
  if (measured.exitCode !== 0 && verification.verdict === 'sound') verification.verdict = 'incomplete';
  appendVerification(config.reportsDir, verification, { secrets: secretsOf(config.amqpUrl) });
  log('');
  log(formatVerification(verification, measured.exitCode));
  log(`bench verify: recorded in ${verificationsPath(config.reportsDir)}; reports of this build cite it`);
  return verification.verdict === 'sound' || verification.verdict === 'inconclusive' ? 0 : 1;
}

/** The A/A check's options when asked for (`--aa`), resolved now so that bad ones stop the command before anything runs. */
function aaOptionsOf(input: VerifyCommandInput, folder: string, cwd: string) {
  if (input.aa === undefined || input.aa === false) return null;
  return resolveAaOptions(
    {
      runs: input.aa === true ? '3' : input.aa,
      threshold: input.threshold,
      maxFalseAlarms: input.maxFalseAlarms,
      output: path.join(folder, `aa-${new Date().toISOString().replace(/[-:.]/g, '').slice(0, 15)}`),
    },
    cwd,
  );
}

/**
 * Runs the witnesses and the capture scenario; with a capture, through a proxy entry on a port of
 * its own, so the capture sees this run's connections only. Without one the configured entry is
 * used as it is (a Toxiproxy in a container listens where it was told).
 */
async function runWitnesses(
  run: Parameters<typeof runBenchmarks>[0],
  folder: string,
  withCapture: boolean,
  log: (line: string) => void,
): Promise<{ exitCode: number; capture: { skipped: string } | { port: number }; captured: string }> {
  const port = await freePort();
  const capture = withCapture ? await startRstCapture(port, path.join(folder, `rst-${port}.tsv`)) : { skipped: 'left out (--no-capture)' };
  log(`bench verify: witnesses and the capture scenario (markers "${VERIFY_MARKERS}") into ${folder}`);
  log(`bench verify: packet capture of port ${port}: ${'skipped' in capture ? `skipped: ${capture.skipped}` : 'running (tshark)'}`);
  if ('skipped' in capture) return { exitCode: await runBenchmarks(run, log), capture, captured: '' };
  const restoreEnv = setEnv({ BENCH_PROXY_LISTEN: `127.0.0.1:${port}`, BENCH_PROXY_NAME: 'rabbitmq-verify' });
  let exitCode: number;
  let captured: string;
  try {
    exitCode = await runBenchmarks(run, log);
  } finally {
    restoreEnv();
    // Stopped whatever happened: tshark never outlives the command.
    captured = await capture.stop();
  }
  return { exitCode, capture: { port }, captured };
}

/** The verification in the terminal: one line per check, the capture, the A/A check, the verdict. */
export function formatVerification(verification: Verification, runExitCode: number): string {
  const round = (value: number) => Number(value.toPrecision(4));
  const mark = { met: '✅', missed: '❌', inconclusive: '➖', differ: '≠', 'no value': '⚠️' } as const;
  const lines = ['Harness verification', ''];
  for (const check of verification.checks) {
    const interval =
      check.interval && check.interval.n > 1
        ? ` (interval ${round(check.interval.low)}–${round(check.interval.high)}, n=${check.interval.n})`
        : '';
    lines.push(
      `${mark[check.verdict]} ${check.label} · ${check.configuration}: ${check.metric} ${check.value === null ? 'n/a' : round(check.value)} ${check.unit}${interval}, target ${check.comparator} ${check.threshold} ${check.unit}: ${check.verdict === 'differ' ? 'the two sides differ' : check.verdict}`,
    );
    // The sides' own figures where the ratio alone would mislead (two sides that differ).
    if (check.verdict === 'differ' && check.detail) lines.push(`    ${check.detail}`);
  }
  if (verification.checks.length === 0) lines.push('⚠️ no witness produced a result');
  const captureMark = { agreed: '✅', disagreed: '❌', skipped: '➖' } as const;
  lines.push(
    `${captureMark[verification.capture.status]} fault timeline vs packet capture: ${verification.capture.status}: ${verification.capture.detail}`,
  );
  if (verification.aa)
    lines.push(
      `${verification.aa.passed ? '✅' : '❌'} A/A: worst pair ${verification.aa.false_alarm_percent}% of metrics flagged (limit ${verification.aa.max_false_alarm_percent}%), --threshold ${verification.aa.threshold_percent} ${verification.aa.gate_passed ? 'passed every pair' : 'failed a pair'}`,
    );
  if (runExitCode !== 0) lines.push(`⚠️ the witness run did not pass (exit ${runExitCode}); its report says why`);
  lines.push('', `verdict: ${verification.verdict} (build ${verification.fingerprint}, commit ${verification.git_commit.slice(0, 8)})`);
  return lines.join('\n');
}

/** The archive of the latest run in `folder` that started at or after `since`. */
function latestArchiveSince(folder: string, since: Date) {
  const runs = readHistory(folder).history.runs;
  const latest = runs[runs.length - 1];
  if (!latest || Date.parse(latest.started_at) < since.getTime() - 1000) return null;
  return readRunArchive(path.join(folder, latest.archive_file));
}

function setEnv(values: Readonly<Record<string, string>>): () => void {
  const before = Object.fromEntries(Object.keys(values).map((key) => [key, process.env[key]]));
  Object.assign(process.env, values);
  return () => {
    for (const [key, value] of Object.entries(before)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
