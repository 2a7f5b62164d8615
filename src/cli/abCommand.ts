/**
 * `bench ab`: a paired A/B comparison, the gate for a pull request. Two builds — two git refs of
 * the project (each checked out once into a work folder and installed), or two adapter modules —
 * run the same selection at the same time, taking turns test by test and replicate by replicate
 * (A B B A …), so that whatever the machine does during the run reaches both alike; each metric is
 * then judged on its pairs (src/results/pairedCompare.ts). Unchanged code stays green on a machine
 * whose speed drifts between runs; a slower build is caught.
 * Exit codes: 0 passed; 1 a metric judged worse beyond --threshold, a side's tests failed, or
 * nothing could be judged; 2 bad input; 130 interrupted (what both sides measured is compared).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { getConfig } from '../config';
import { BenchError } from '../errors';
import { redactUrl, secretsOf } from '../redact';
import { writeJsonSafely, writeTextSafely } from '../results/safeWrite';
import { probeProxyApi } from '../preflight/proxyProbe';
import { renderAbReport, type AbSideSummary } from '../report/abReport';
import { describeRegression } from '../report/comparisonView';
import { formatDuration } from '../report/format';
import { defaultWorkRoot, findRepository, prepareBuild, resolveBuild, WORKING_TREE, type PreparedBuild } from '../ab/builds';
import { judgePairedRun, misalignedPairs, sideSummaries, type AbJudgement } from '../ab/judgement';
import { runPairedSides, type PairedRunOutcome } from '../ab/pairedRun';
import { freeLoopbackPort, harnessOf, type Harness, type SideLaunch } from '../ab/sides';
import { SIDES, type Side } from '../ab/turnSchedule';
import { resolveAbOptions, type AbCommandInput, type AbOptions } from './abOptions';
import { QUICK_MARKERS } from './runOptions';
import { formatComparison } from './summary';

export const AB_REPORT_FILE_NAME = 'AB_REPORT.md';
export const AB_COMPARISON_FILE_NAME = 'ab_comparison.json';

export function registerAbCommand(program: Command): void {
  program
    .command('ab')
    .description(
      'paired A/B comparison (the pull-request gate): two builds run the selection together, taking turns replicate by replicate, each metric judged on its pairs',
    )
    .argument('<baseline>', 'build A: a git ref of the project (branch, tag, commit), or "." for the working tree as it is')
    .argument('<candidate>', "build B, the same way (e.g. HEAD, or the pull request's commit)")
    .option('--adapters', 'the two arguments are adapter modules (./bench/adapter.js), measured with this project as it is')
    .option('--quick', `the quick selection (markers "${QUICK_MARKERS}", as \`bench run --quick\`): the default, an explicit -m wins`)
    .option('-m, --markers <expression>', 'marker expression (default: the quick selection)')
    .option('-t, --test-name <pattern>', 'only tests whose full name matches (Jest -t), e.g. TestPublishThroughput')
    .option('--clients <list>', 'clients under test on both sides, as `bench run --clients` takes them (e.g. ./bench/adapter.js)')
    .option(
      '--replicates <n>',
      "replicates of every replicated measurement (3 or more; default: each benchmark's own, 6 publish, 5 recovery)",
    )
    .option('--threshold <percent>', 'fail (exit 1) when a metric of B is judged worse than A by more than this', '0')
    .option('-o, --output <dir>', "folder for the comparison, its report and both sides' runs (default <BENCH_REPORTS_DIR>/ab/<id>)")
    .option('--work-dir <dir>', 'folder for the checkouts of git refs, one per commit, reused (default: under the system temp dir)')
    .addHelpText(
      'after',
      `
Both builds run the same selection at once, one at a time: before each test and each replicate a side waits for its
turn (A B B A ...), so a machine that slows down during the run slows both alike. The first pair of every measurement
warms both up and is not judged; a figure measured once per side has no pairs and is not judged. Each side's own
report, archive and log are in <output>/A and <output>/B; ${AB_REPORT_FILE_NAME} and ${AB_COMPARISON_FILE_NAME} beside them.
Checkouts are reused by commit; "HEAD" with uncommitted changes is refused (compare with "." instead).

Examples:
  npx amqp-bench ab origin/main HEAD --clients ./bench/adapter.js     a pull request's gate in a client's project
  npm run bench:ab -- main HEAD                                       this project: main against the last commit
  npm run bench:ab -- . . -t TestPublishThroughput                    the working tree against itself (an A/A check)
  npm run bench:ab -- --adapters ./bench/adapter.js ./bench/new.js    two adapter modules`,
    )
    .action(async (baseline: string, candidate: string, input: AbCommandInput) => {
      process.exitCode = await runAbComparison(resolveAbOptions(baseline, candidate, input, getConfig()));
    });
}

/** Runs the paired comparison; resolves with the exit code. */
export async function runAbComparison(
  options: AbOptions,
  log: (line: string) => void = (line) => process.stdout.write(`${line}\n`),
): Promise<number> {
  return (await measureAbComparison(options, log)).exitCode;
}

/** The paired comparison and its judgement (`bench ab`, and `bench aa --paired` once per pair). */
export async function measureAbComparison(options: AbOptions, log: (line: string) => void): Promise<AbJudgement> {
  const config = getConfig();
  const startedAt = new Date();
  const prepared = await prepareBuilds(options, log);
  const harnesses = mapSides((side) => harnessOf(prepared[side].projectDir, `${side}: ${prepared[side].build.label}`));
  for (const side of SIDES) refuseOldHarness(side, prepared[side], harnesses[side]);
  const launches = await sideLaunches(options, prepared, harnesses);
  fs.mkdirSync(options.outputDir, { recursive: true });
  const selection = `markers "${options.markerExpression}"${options.testNameFilter ? `, -t "${options.testNameFilter}"` : ''}`;
  log(`bench ab: A ${prepared.A.build.label} against B ${prepared.B.build.label}; ${selection}; RabbitMQ at ${redactUrl(config.amqpUrl)}`);
  for (const side of SIDES)
    log(
      `bench ab: ${side}: ${prepared[side].how}; amqp-bench ${harnesses[side].version}; log ${path.join(options.outputDir, side, 'side.log')}`,
    );
  const outcome = await runPairedSides(launches, log, { secrets: secretsOf(config.amqpUrl), runIdClaimsDir: runIdClaimsOf(options) });
  const judgement = judgePairedRun({
    outcome,
    thresholdPercent: options.thresholdPercent,
    minimumEffects: config.minimumEffects,
    ignoreParameters: options.mode === 'adapters' ? ['client'] : [],
  });
  const misaligned = misalignedPairs(outcome.grants);
  if (misaligned.pairs > 0)
    log(
      `bench ab: warning: the sides ran different tests at ${misaligned.pairs} pair(s) of turns, first at ${misaligned.first}; those results are paired by name but were not measured back to back`,
    );
  const builds = mapSides((side) => ({ build: prepared[side].build.label, harness: `amqp-bench ${harnesses[side].version}` }));
  const reportPath = writeAbOutputs({ options, startedAt, selection, outcome, judgement, sides: sideSummaries(outcome, builds) });
  if (judgement.comparison) log(formatComparison(judgement.comparison).trimEnd());
  for (const problem of judgement.problems) log(`bench ab: ✗ ${problem}`);
  for (const regression of judgement.regressions) log(`bench ab: ✗ ${describeRegression(regression)}`);
  log(`bench ab: ${judgement.verdict}`);
  log(`bench ab: ${formatDuration(outcome.wallMs)} for both sides; report ${reportPath}`);
  return judgement;
}

interface AbOutputs {
  readonly options: AbOptions;
  readonly startedAt: Date;
  readonly selection: string;
  readonly outcome: PairedRunOutcome;
  readonly judgement: AbJudgement;
  readonly sides: readonly AbSideSummary[];
}

/** The comparison as JSON (with every turn) and its report, beside both sides' folders; returns the report's path. */
function writeAbOutputs({ options, startedAt, selection, outcome, judgement, sides }: AbOutputs): string {
  const id = path.basename(options.outputDir);
  const reportPath = path.join(options.outputDir, AB_REPORT_FILE_NAME);
  const comparisonPath = path.join(options.outputDir, AB_COMPARISON_FILE_NAME);
  const turns = Math.max(0, ...SIDES.map((side) => outcome.grants.filter((grant) => grant.side === side).length));
  const secrets = secretsOf(getConfig().amqpUrl);
  writeJsonSafely(
    comparisonPath,
    {
      id,
      started_at: startedAt.toISOString(),
      selection,
      wall_ms: outcome.wallMs,
      sides,
      verdict: judgement.verdict,
      exit_code: judgement.exitCode,
      regressions: judgement.regressions.map((regression) => regression.result),
      comparison: judgement.comparison,
      turns: outcome.grants,
    },
    secrets,
  );
  const markdown = renderAbReport({
    id,
    selection,
    wallMs: outcome.wallMs,
    turns,
    sides,
    problems: judgement.problems,
    comparison: judgement.comparison,
    comparisonNote: judgement.comparisonNote,
    thresholdPercent: options.thresholdPercent,
    regressions: judgement.regressions,
    verdict: judgement.verdict,
    files: [reportPath, comparisonPath, ...SIDES.map((side) => path.join(options.outputDir, side))],
  });
  writeTextSafely(reportPath, markdown, secrets);
  return reportPath;
}

/** Where the two sides claim their run ids (each its own, whoever archives first). */
const runIdClaimsOf = (options: AbOptions): string => path.join(options.outputDir, '.run-ids');

const mapSides = <T>(each: (side: Side) => T): Record<Side, T> => ({ A: each('A'), B: each('B') });

/** Both builds' project folders: checkouts of refs (one per commit, reused), or the project itself. */
async function prepareBuilds(options: AbOptions, log: (line: string) => void): Promise<Record<Side, PreparedBuild>> {
  if (options.mode === 'adapters') {
    const itself = (spec: string) => ({
      build: { spec, commit: null, label: path.relative(options.projectDir, spec) || spec },
      projectDir: options.projectDir,
      how: `adapter module ${spec} with this project's harness`,
    });
    return { A: itself(options.baseline), B: itself(options.candidate) };
  }
  const repository = await findRepository(options.projectDir);
  const a = await resolveBuild(options.baseline, 'baseline', repository);
  const b = await resolveBuild(options.candidate, 'candidate', repository);
  const workRoot = options.workRoot ?? defaultWorkRoot(repository);
  // Two commits install side by side (npm waits on the network and the disk as much as on the CPU).
  const [preparedA, preparedB] = await Promise.all([
    prepareBuild(a, repository, options.projectDir, workRoot, log),
    // The same commit twice is one checkout (an A/A check of a commit).
    b.commit !== null && b.commit === a.commit ? null : prepareBuild(b, repository, options.projectDir, workRoot, log),
  ]);
  return { A: preparedA, B: preparedB ?? { ...preparedA, build: b } };
}

function refuseOldHarness(side: Side, prepared: PreparedBuild, harness: Harness): void {
  if (harness.takesTurns) return;
  throw new BenchError(
    'BUILD_FAILED',
    `${side}: ${prepared.build.label} runs amqp-bench ${harness.version}, which predates paired runs (it cannot take turns): compare builds whose amqp-bench has \`bench ab\`${prepared.build.spec === WORKING_TREE ? '' : ', or update it at that commit'}`,
  );
}

/** Each side's `bench run` options and environment: its own folders, and its own embedded fault proxy where the proxy is embedded. */
async function sideLaunches(
  options: AbOptions,
  prepared: Record<Side, PreparedBuild>,
  harnesses: Record<Side, Harness>,
): Promise<Record<Side, Omit<SideLaunch, 'side'>>> {
  const config = getConfig();
  const common = [
    '-m',
    options.markerExpression,
    ...(options.testNameFilter ? ['-t', options.testNameFilter] : []),
    ...(options.replicates === null ? [] : ['--replicates', String(options.replicates)]),
  ];
  const clients = (side: Side) =>
    options.mode === 'adapters'
      ? ['--clients', side === 'A' ? options.baseline : options.candidate]
      : options.clients
        ? ['--clients', options.clients]
        : [];
  // A Toxiproxy that answers is shared (one side at a time); an embedded one is each side's own, from its own build.
  // Each side is told its ports: a side's harness may predate runs that take free ones by themselves.
  const ownProxies =
    config.proxyScope === 'own' || ((await probeProxyApi(config.proxyApiUrl)).state === 'absent' && config.embeddedProxy === 'auto');
  const proxyEnv = async (): Promise<Record<string, string>> =>
    ownProxies
      ? { TOXIPROXY_URL: `http://127.0.0.1:${await freeLoopbackPort()}`, BENCH_PROXY_LISTEN: `127.0.0.1:${await freeLoopbackPort()}` }
      : {};
  const launch = async (side: Side) => ({
    projectDir: prepared[side].projectDir,
    harness: harnesses[side],
    runArgs: [...common, ...clients(side)],
    folder: path.join(options.outputDir, side),
    // The same build on both sides starts in the same second with the same fingerprint: one run id, unless claimed.
    env: { ...(await proxyEnv()), BENCH_RUN_ID_CLAIMS: runIdClaimsOf(options) },
  });
  return { A: await launch('A'), B: await launch('B') };
}
