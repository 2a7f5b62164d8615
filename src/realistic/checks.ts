/**
 * A workload's verdict (pure): what the client under test did wrong (findings, each with its
 * evidence: results, recorded and listed, the test passes) told apart from what the harness failed
 * to do (harness problems: the test fails, and the result is no verdict on the client).
 */
import { accountFindings, threadFailedFinding, unhandledErrorFinding, type Finding, type SuiteVerdict } from '../suite-kit/findings';
import type { ResetCyclesResult } from './faultCycles';
import type { WorkloadFigures } from './summary';
import type { WorkloadOutcome } from './workload';

/** The reset cycles a workload ran under, and how many were planned. */
export interface CyclesRun {
  readonly result: ResetCyclesResult | undefined;
  readonly planned: number;
}

/**
 * Any workload: findings for each thread's unhandled errors and the client error it stopped on,
 * lost messages and duplicates at-least-once does not explain, deliveries never published, rounds
 * that did not drain, connections still down at the end, messages left in the queue; harness
 * problems for its own threads and the fault cycles (when there were some) that did not act.
 */
export function workloadVerdict(outcome: WorkloadOutcome, figures: WorkloadFigures, cycles?: CyclesRun): SuiteVerdict {
  const findings: Finding[] = [...threadFindings(outcome), ...accountFindings(figures.account)];
  const { account } = figures;
  if (account.phantom > 0 || outcome.foreignDeliveries > 0)
    findings.push({
      kind: 'foreign_delivery',
      where: 'the workload',
      text: `${account.phantom + outcome.foreignDeliveries} deliveries of messages never published`,
      count: account.phantom + outcome.foreignDeliveries,
      evidence: [
        `${account.phantom} with a sequence number never published${account.phantomSeqs.length > 0 ? ` (e.g. ${account.phantomSeqs.slice(0, 5).join(', ')})` : ''}`,
        `${outcome.foreignDeliveries} with a body the harness cannot read`,
      ],
    });
  for (const round of outcome.rounds)
    if (round.problem) findings.push({ kind: 'stalled', where: round.round.label, text: 'did not drain', evidence: [round.problem] });
  if (outcome.rounds.length < outcome.options.rounds.length && outcome.rounds.every((round) => round.drained))
    findings.push({
      kind: 'stalled',
      where: 'the workload',
      text: `only ${outcome.rounds.length} of ${outcome.options.rounds.length} rounds ran`,
      evidence: [],
    });
  if (outcome.connectionsDownAtEnd > 0)
    findings.push({
      kind: 'not_recovered',
      where: 'the workload',
      text: `${outcome.connectionsDownAtEnd} connection(s) still down at the end`,
      count: outcome.connectionsDownAtEnd,
      evidence: [`not back ${outcome.options.recoveryGraceMs} ms after the last round's grace`],
    });
  if (outcome.queueMessagesLeft !== null && outcome.queueMessagesLeft > 0)
    findings.push({
      kind: 'stalled',
      where: 'the queue',
      text: `${outcome.queueMessagesLeft} message(s) left in the queue at the end`,
      count: outcome.queueMessagesLeft,
      evidence: ['not consumed by the end of the grace after the last round'],
    });
  const harnessProblems = [...outcome.harnessProblems];
  if (outcome.queueMessagesLeft === null) harnessProblems.push('the queue could not be checked at the end');
  if (cycles) harnessProblems.push(...cycleProblems(outcome, cycles));
  return { findings, harnessProblems };
}

/** Each thread's unhandled errors, and the client error it stopped on. */
function threadFindings(outcome: WorkloadOutcome): Finding[] {
  const threads = [
    ...outcome.consumerReports.map((report) => ({ where: `consumer thread ${report.threadIndex}`, report })),
    ...outcome.producerReports.map((report) => ({ where: `producer thread ${report.threadIndex}`, report })),
  ];
  return threads.flatMap(({ where, report }) => [
    ...(report.error ? [threadFailedFinding(where, report.error)] : []),
    ...[unhandledErrorFinding(where, report.unhandled)].filter((finding): finding is Finding => finding !== undefined),
  ]);
}

/** The harness's part of a workload under periodic resets: every planned cycle ran, and the faults hit both sides. */
function cycleProblems(outcome: WorkloadOutcome, { result, planned }: CyclesRun): string[] {
  const problems: string[] = [];
  if (!result) {
    problems.push('the reset cycles never ran');
  } else {
    if (result.error) problems.push(`reset cycles failed: ${result.error}`);
    if (result.cycles.length !== planned) problems.push(`${result.cycles.length} of ${planned} reset cycles ran (the round ended first?)`);
  }
  // Hit: the client told of a fault, or came back from one (a client that then could not reconnect is a finding, not a fault that missed).
  const hit = (reports: readonly { readonly faults: number; readonly reconnects: number }[]) =>
    reports.some((report) => report.faults > 0 || report.reconnects > 0);
  if (!hit(outcome.consumerReports)) problems.push('the resets hit no consumer connection (none told of a fault or reconnected)');
  if (!hit(outcome.producerReports)) problems.push('the resets hit no producer connection (none told of a fault or reconnected)');
  return problems;
}
