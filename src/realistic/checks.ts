/**
 * What must hold after a workload, as a list of problems (pure). Empty means correct; a test
 * asserts `toEqual([])`, so a failure shows every problem at once, in words.
 */
import type { ResetCyclesResult } from './faultCycles';
import type { WorkloadFigures } from './summary';
import type { WorkloadOutcome } from './workload';

/**
 * Any workload: no thread error, every round ran and drained, nothing lost, duplicates only
 * where at-least-once allows, no phantom or foreign message, every connection up at the end,
 * the queue empty.
 */
export function workloadProblems(outcome: WorkloadOutcome, figures: WorkloadFigures): string[] {
  const problems = [...outcome.errors];
  const { account } = figures;
  if (account.lost > 0)
    problems.push(`${account.lost} messages lost (baseline: ${account.baseline}), e.g. seq ${account.lostSeqs.slice(0, 5).join(', ')}`);
  if (account.unexplainedDuplicates > 0)
    problems.push(
      `${account.unexplainedDuplicates} duplicates not explained by redelivery or republish, e.g. seq ${account.unexplainedSeqs.slice(0, 5).join(', ')}`,
    );
  if (account.phantom > 0 || outcome.foreignDeliveries > 0)
    problems.push(`${account.phantom} phantom and ${outcome.foreignDeliveries} foreign deliveries`);
  if (outcome.rounds.length !== outcome.options.rounds.length)
    problems.push(`only ${outcome.rounds.length} of ${outcome.options.rounds.length} rounds ran`);
  if (outcome.connectionsDownAtEnd !== 0)
    problems.push(
      `${outcome.connectionsDownAtEnd} connections still down at the end (${outcome.options.recoveryGraceMs} ms after the last round's grace)`,
    );
  if (outcome.queueMessagesLeft !== 0)
    problems.push(`queue holds ${outcome.queueMessagesLeft ?? 'an unknown number of'} messages at the end`);
  return problems;
}

/** A workload under periodic resets: every planned cycle ran, and the faults hit (and were recovered by) both sides. */
export function faultProblems(outcome: WorkloadOutcome, cycles: ResetCyclesResult | undefined, planned: number): string[] {
  const problems: string[] = [];
  if (!cycles) {
    problems.push('the reset cycles never ran');
  } else {
    if (cycles.error) problems.push(`reset cycles failed: ${cycles.error}`);
    if (cycles.cycles.length !== planned) problems.push(`${cycles.cycles.length} of ${planned} reset cycles ran (the round ended first?)`);
  }
  if (outcome.consumerReconnects === 0) problems.push('no consumer connection was reset and reconnected');
  if (outcome.producerReconnects === 0) problems.push('no producer connection was reset and reconnected');
  return problems;
}
