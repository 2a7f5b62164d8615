/**
 * `bench faults`: the fault matrix (`-m "faults and not slow"`, every client in both profiles, one
 * replicate), run `--repeat N` times as `npm run bench:faults` runs it, each run archived and
 * reported like any other; then every cell's verdict side by side, run by run, and the cells whose
 * verdict class changed (✅ with what told it, ❌ with what failed, ⚠; figures left out). A cell
 * that changes is a flaky cell: fix it, do not hide it.
 * Exit codes: 0 every run passed and no cell changed class; 1 a run failed (a harness problem is a
 * failure; findings alone are not) or a cell changed; 2 bad option; 130 interrupted.
 */
import type { Command } from 'commander';
import { clientLabel, type ClientProfile } from '../client/api';
import { getConfig } from '../config';
import { ConfigError } from '../errors';
import { verdictClass } from '../matrix/verdict';
import { markdownTable } from '../report/markdown';
import { collectRawResults } from '../results/collect';
import type { RawResult } from '../results/rawResult';
import { descriptorOf, scenarioRank } from '../scenarios/catalogue';
import type { MatrixVerdict } from '../schemaTypes';
import { runBenchmarks } from './runCommand';
import { resolveRunOptions, type RunOptions } from './runOptions';

/** The fault matrix's selection: what `npm run bench:faults` runs. */
export const FAULTS_MARKERS = 'faults and not slow';

export interface FaultsCommandInput {
  readonly repeat?: string;
  readonly clients?: string;
  readonly testName?: string;
  readonly output?: string;
}

export function registerFaultsCommand(program: Command): void {
  program
    .command('faults')
    .description('run the fault matrix (every fault for every client), --repeat N times, and print the cells whose verdict class changed')
    .option('--repeat <n>', 'how many runs of the matrix, one after another', '1')
    .option('--clients <list>', 'clients under test, as `bench run --clients` takes them', 'all')
    .option('-t, --test-name <pattern>', 'only cells whose test name matches (Jest -t), e.g. test_fault_dead_peer')
    .option('-o, --output <dir>', 'folder for the reports, archives and history (default BENCH_REPORTS_DIR or reports/benchmarks)')
    .addHelpText(
      'after',
      `
Each run is \`bench run -m "${FAULTS_MARKERS}" --clients all --replicates 1\` (npm run bench:faults), archived as any run.
Exit 0 when every run passed and every cell kept its verdict class; 1 otherwise (the changed cells are named).
Examples:
  node bin/bench.js faults --repeat 3
  node bin/bench.js faults --repeat 10 --clients amqplib:normalised -t test_fault_dead_peer`,
    )
    .action(async (input: FaultsCommandInput) => {
      process.exitCode = await runFaultMatrix(resolveFaultsOptions(input));
    });
}

export interface FaultsOptions {
  readonly repeat: number;
  readonly run: RunOptions;
}

export function resolveFaultsOptions(input: FaultsCommandInput, cwd: string = process.cwd()): FaultsOptions {
  const repeat = Number(input.repeat ?? '1');
  if (!Number.isInteger(repeat) || repeat < 1) throw new ConfigError('--repeat', 'a whole number of runs, 1 or more', input.repeat);
  const run = resolveRunOptions(
    { markers: FAULTS_MARKERS, clients: input.clients ?? 'all', replicates: '1', testName: input.testName, output: input.output },
    getConfig(),
    cwd,
  );
  return { repeat, run };
}

/** One cell of one run: its verdict as the result recorded it. */
export interface MatrixCellRecord {
  readonly fault: string;
  readonly configuration: string;
  readonly verdict: MatrixVerdict;
}

export async function runFaultMatrix(
  options: FaultsOptions,
  log: (line: string) => void = (line) => process.stdout.write(`${line}\n`),
): Promise<number> {
  const runs: { readonly cells: readonly MatrixCellRecord[]; readonly exitCode: number; readonly wallMs: number }[] = [];
  for (let run = 1; run <= options.repeat; run += 1) {
    log(`bench faults: run ${run} of ${options.repeat}`);
    const startedMs = Date.now();
    const exitCode = await runBenchmarks(options.run, log);
    if (exitCode === 130) return 130;
    runs.push({ cells: matrixCells(collectRawResults(options.run.rawResultsDir).results), exitCode, wallMs: Date.now() - startedMs });
  }
  const comparison = compareRuns(runs.map((run) => run.cells));
  log('');
  log(comparison.table);
  log('');
  runs.forEach((run, index) =>
    log(`bench faults: run ${index + 1}: exit ${run.exitCode}, ${formatDuration(run.wallMs)}, ${run.cells.length} cells`),
  );
  log(
    comparison.changed.length === 0
      ? `bench faults: every cell kept its verdict class in ${runs.length} of ${runs.length} run(s)`
      : `bench faults: ${comparison.changed.length} cell(s) changed verdict class: ${comparison.changed.join('; ')}`,
  );
  return runs.every((run) => run.exitCode === 0) && comparison.changed.length === 0 ? 0 : 1;
}

/** The fault-matrix cells among a run's raw results. */
export function matrixCells(results: readonly RawResult[]): MatrixCellRecord[] {
  return results.flatMap((result) => {
    const details = result.details as { readonly kind?: string; readonly verdict?: MatrixVerdict } | undefined;
    if (details?.kind !== 'fault_matrix' || !details.verdict) return [];
    const parameters = result.parameters as Readonly<Record<string, unknown>>;
    const configuration = clientLabel({ name: String(parameters.client), profile: String(parameters.client_profile) as ClientProfile });
    return [{ fault: result.name, configuration, verdict: details.verdict }];
  });
}

/** Every cell's verdict run by run (a table), and the cells whose class changed (or that a run lacks). */
export function compareRuns(runs: readonly (readonly MatrixCellRecord[])[]): { readonly table: string; readonly changed: string[] } {
  const key = (cell: Pick<MatrixCellRecord, 'fault' | 'configuration'>) => `${cell.fault}\u0000${cell.configuration}`;
  const byRun = runs.map((cells) => new Map(cells.map((cell) => [key(cell), cell])));
  const all = [...new Map(runs.flat().map((cell) => [key(cell), cell])).values()].sort(
    (a, b) => scenarioRank(a.fault) - scenarioRank(b.fault) || a.configuration.localeCompare(b.configuration),
  );
  const changed: string[] = [];
  const rows = all.map((cell) => {
    const verdicts = byRun.map((cells) => cells.get(key(cell))?.verdict);
    const classes = new Set(verdicts.map((verdict) => (verdict ? verdictClass(verdict) : 'missing')));
    const name = `${descriptorOf({ name: cell.fault }).label} × ${cell.configuration}`;
    if (classes.size > 1) changed.push(`${name} (${[...classes].join(' | ')})`);
    return [classes.size > 1 ? `≠ ${name}` : name, ...verdicts.map((verdict) => verdict?.cell ?? '—')];
  });
  const header = ['Cell', ...runs.map((_, index) => `run ${index + 1}`)];
  return {
    table: markdownTable(
      header,
      rows,
      header.map(() => false),
    ),
    changed,
  };
}

function formatDuration(ms: number): string {
  const seconds = Math.round(ms / 1000);
  return `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
}
