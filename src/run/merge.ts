/**
 * `bench merge`: the shards of one run (each a raw-results folder with its shard manifest),
 * combined into one run archive, one history entry and one report through the run's own step
 * (record.ts), as if the run had not been split. The checks and the combination are
 * src/results/merge.ts (pure). Nothing is written when the shards are refused.
 */
import { BenchError } from '../errors';
import { buildRunArchive } from '../results/archive';
import { planMerge, readShardRun, type MergePlan } from '../results/merge';
import { recordRun, type RecordedRun } from './record';

export interface MergeShardsOptions {
  readonly dirs: readonly string[];
  readonly reportsDir: string;
  readonly templatePath?: string;
  readonly thresholdPercent: number | null;
  readonly secrets: readonly string[];
  readonly warn: (message: string) => void;
}

export interface MergeShardsResult extends RecordedRun {
  readonly plan: MergePlan;
}

/** Reads, checks, combines and writes: archive, history entry, report. Nothing is written when the shards are refused. */
export async function mergeShardRuns(options: MergeShardsOptions): Promise<MergeShardsResult> {
  const plan = planMerge(
    options.dirs.map((dir) => {
      try {
        return readShardRun(dir);
      } catch (error) {
        throw new BenchError('RESULT_INVALID', (error as Error).message);
      }
    }),
  );
  for (const warning of plan.warnings) options.warn(warning);
  const built = buildRunArchive({
    environment: plan.environment,
    startedAt: plan.startedAt,
    finishedAt: plan.finishedAt,
    markerExpression: plan.markerExpression,
    testNameFilter: plan.testNameFilter,
    invokedBy: 'cli',
    jestExitCode: plan.jestExitCode,
    interrupted: plan.interrupted,
    tests: plan.tests,
    suiteErrors: plan.suiteErrors,
    results: plan.results,
    invalidResultFiles: plan.invalid,
    warnings: [...plan.warnings],
  });
  const recorded = await recordRun(
    { ...built, shards: plan.shards },
    {
      reportsDir: options.reportsDir,
      templatePath: options.templatePath,
      thresholdPercent: options.thresholdPercent,
      secrets: options.secrets,
      warnings: built.warnings,
      warn: options.warn,
    },
  );
  return { plan, ...recorded };
}
