/**
 * `bench load-merge PATH...`: a fleet's agent result files (agent-<i>.json, as each agent of a CI
 * matrix job uploads it) merged into one load result, report and run record — what a
 * coordinator does with the results it collects through the broker, for agents that never met
 * one. Refuses files of different runs, naming them; names every agent without a file.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { getConfig, workDir } from '../config';
import { BenchError } from '../errors';
import { readAgentResult, loadResultOf, type FleetAgentResult } from '../fleet/agentResult';
import { mergeFleet } from '../fleet/merge';
import { checkOutputFolder } from '../preflight/folders';
import { recordFleet } from './loadFleetOutput';
import { outputFolder } from './loadOutput';

export function registerLoadMergeCommand(program: Command): void {
  program
    .command('load-merge')
    .description(
      "merge the result files of a fleet's agents (bench load --agent ... writes agent-<index>.json) into one load result, report and run record",
    )
    .argument('<paths...>', 'agent-<index>.json files, or folders holding them (searched two levels down, as downloaded CI artifacts are)')
    .option('-o, --output <dir>', 'folder for result.json, timeseries.csv, report.md and the chart (default <reports>/load/<name>_<time>)')
    .addHelpText(
      'after',
      `
Example (a CI matrix of two agents without a coordinator, each starting at the same wall-clock time):
  bench load -x 2 -y 2 --queues 2 --rate 2000 --agents 2 --agent 0 --run-id ci-42 --start-at 2026-11-27T10:00:00Z -o out/agent-0
  bench load -x 2 -y 2 --queues 2 --rate 2000 --agents 2 --agent 1 --run-id ci-42 --start-at 2026-11-27T10:00:00Z -o out/agent-1
  bench load-merge out/agent-0 out/agent-1`,
    )
    .action(async (paths: string[], flags: { output?: string }) => {
      process.exitCode = await loadMerge(paths, flags.output);
    });
}

export async function loadMerge(paths: readonly string[], output: string | undefined): Promise<number> {
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const files = paths.flatMap((each) => agentFilesUnder(path.resolve(workDir(), each)));
  if (files.length === 0)
    throw new BenchError(
      'CONFIG_INVALID',
      `no agent-<index>.json under ${paths.join(', ')}: give the agents' result files or their folders`,
    );
  const results = files.map(readAgentResult);
  const plan = mergePlan(results, files);
  const config = getConfig();
  const startedAt = new Date();
  const workload = loadResultOf(plan.ran)!.workload;
  const outDir = outputFolder(output, workDir(), config.reportsDir, workload.name, startedAt);
  checkOutputFolder({ path: outDir, setting: '-o/--output' });
  const merged = mergeFleet({ runId: plan.runId, agentCount: plan.count, workload, files: results, absent: [] });
  for (const each of merged.fleet.absent) log(`bench load-merge: MISSING agent ${each.agent}: ${each.reason}`);
  return recordFleet(merged, { outDir, startedAt, amqpUrl: config.amqpUrl, reportsDir: config.reportsDir, log });
}

/** The files' one run and agent count, and a file whose share ran (for the workload). @throws BenchError naming what disagrees */
function mergePlan(
  results: readonly FleetAgentResult[],
  files: readonly string[],
): { runId: string; count: number; ran: FleetAgentResult } {
  const runs = [...new Set(results.map((result) => result.run_id))];
  if (runs.length > 1)
    throw new BenchError(
      'RESULT_INVALID',
      `refusing to merge agents of different runs: ${runs.map((run) => `${run} (${files.filter((_, index) => results[index]!.run_id === run).join(', ')})`).join('; ')}`,
    );
  const counts = [...new Set(results.map((result) => result.agent.count))];
  if (counts.length > 1)
    throw new BenchError(
      'RESULT_INVALID',
      `the files disagree on the fleet's size (--agents ${counts.join(' vs ')}): they are not one run`,
    );
  const indexes = results.map((result) => result.agent.index);
  const twice = indexes.find((index, position) => indexes.indexOf(index) !== position);
  if (twice !== undefined)
    throw new BenchError(
      'RESULT_INVALID',
      `agent ${twice} has two files (${files.filter((_, index) => indexes[index] === twice).join(', ')}): keep one`,
    );
  const ran = results.find((result) => result.result !== null);
  if (!ran)
    throw new BenchError(
      'RESULT_INVALID',
      `no agent of run ${runs[0]!} ran its share: ${results.map((result) => `agent ${result.agent.index} ${result.status}${result.error ? ` (${result.error})` : ''}`).join('; ')}`,
    );
  return { runId: runs[0]!, count: counts[0]!, ran };
}

/** `agent-<i>.json` at `target`, or under it (two levels). */
function agentFilesUnder(target: string, depth = 2): string[] {
  if (!fs.existsSync(target))
    throw new BenchError('CONFIG_INVALID', `${target} does not exist: give the agents' result files or their folders`);
  if (fs.statSync(target).isFile()) return [target];
  return fs
    .readdirSync(target, { withFileTypes: true })
    .flatMap((entry) =>
      entry.isFile() && /^agent-\d+\.json$/.test(entry.name)
        ? [path.join(target, entry.name)]
        : entry.isDirectory() && depth > 0
          ? agentFilesUnder(path.join(target, entry.name), depth - 1)
          : [],
    )
    .sort();
}
