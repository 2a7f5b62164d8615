/**
 * A recovery scenario's verdict (pure). What the client did wrong, each with its evidence: threads
 * that never noticed the fault, threads that noticed it but never came back, a thread that stopped
 * on an error of the client, errors nobody handled inside it. What the harness failed to do, no
 * verdict on the client: a thread of its own stopped by its bound or crashed, the fault not
 * undone, a detection before its own fault moment, a fault the proxy's timeline shows acting on no connection while no thread noticed
 * anything (nothing to notice).
 */
import { actedConnections } from '../faults/moments';
import { counted, threadFailedFinding, type Finding, type SuiteVerdict } from '../suite-kit/findings';
import type { RecoveryOutcome, ThreadRecord } from './scenario';

/** At most this many threads named in a finding's evidence. */
const NAMED_THREADS = 10;

const threadList = (threads: readonly ThreadRecord[]): string =>
  threads
    .slice(0, NAMED_THREADS)
    .map((thread) => thread.threadIndex)
    .join(', ') + (threads.length > NAMED_THREADS ? `, … (${threads.length} in all)` : '');

/**
 * The verdict of one run of a recovery scenario.
 * @param clockDisagreements detections before their own fault moment (the metrics' `clock_disagreements`): the
 *   harness cannot time them, so they are its problem, not the client's
 */
export function recoveryVerdict(outcome: RecoveryOutcome, clockDisagreements: readonly string[] = []): SuiteVerdict {
  const { threads } = outcome;
  const harnessProblems: string[] = threads.flatMap((thread) =>
    thread.harnessError ? [`thread ${thread.threadIndex}: ${thread.harnessError}`] : [],
  );
  harnessProblems.push(...(outcome.removal?.problems ?? []).map((problem) => `the fault was not undone cleanly: ${problem}`));
  harnessProblems.push(
    ...clockDisagreements.map((disagreement) => `${disagreement} (not timed: a fault not ours, or the clocks disagree)`),
  );
  // Threads the harness stopped itself say nothing about the client.
  const judged = threads.filter((thread) => !thread.harnessError);
  const findings: Finding[] = judged.flatMap((thread) =>
    thread.error ? [threadFailedFinding(`thread ${thread.threadIndex}`, thread.error)] : [],
  );
  const running = judged.filter((thread) => !thread.error);
  const unnoticed = running.filter((thread) => thread.detectedNs === null);
  const acted = outcome.faultEvents === null ? null : actedConnections(outcome.faultEvents, outcome.fault.definition).length;
  if (unnoticed.length > 0 && unnoticed.length === threads.length && acted === 0)
    harnessProblems.push(`the fault acted on no connection (the proxy's timeline shows none since the injection): nothing to notice`);
  else if (unnoticed.length > 0)
    findings.push({
      kind: 'not_detected',
      where: `thread(s) ${threadList(unnoticed)}`,
      text: `${unnoticed.length} of ${threads.length} thread(s) never noticed the fault`,
      count: unnoticed.length,
      evidence: [
        'no fault event and no drain deadline passed before the harness removed the fault',
        ...(acted === null ? [] : [`the proxy's timeline shows the fault acting on ${acted} connection(s)`]),
      ],
    });
  const notBack = running.filter((thread) => thread.detectedNs !== null && thread.recoveredNs === null);
  if (notBack.length > 0)
    findings.push({
      kind: 'not_recovered',
      where: `thread(s) ${threadList(notBack)}`,
      text: `${notBack.length} of ${threads.length} thread(s) noticed the fault but never came back (no round trip after the removal)`,
      count: notBack.length,
      evidence: notBack
        .slice(0, NAMED_THREADS)
        .map(
          (thread) =>
            `thread ${thread.threadIndex}: noticed by ${thread.detectionCause}, ${thread.reconnectAttempts} reconnection attempt(s)`,
        ),
    });
  const trapped = judged.filter((thread) => (thread.unhandled?.length ?? 0) > 0);
  if (trapped.length > 0) {
    const errors = trapped.flatMap((thread) => thread.unhandled!);
    findings.push({
      kind: 'unhandled_error',
      where: `thread(s) ${threadList(trapped)}`,
      text: `${errors.length} error(s) nobody handled inside the client (an application on Node's defaults would have crashed)`,
      count: errors.length,
      evidence: counted(errors).slice(0, 5),
    });
  }
  return { findings, harnessProblems };
}

/** Several runs' verdicts as one, each item saying which replicate it came from (when there were several). */
export function combineVerdicts(verdicts: readonly SuiteVerdict[]): SuiteVerdict {
  if (verdicts.length === 1) return verdicts[0]!;
  const where = (replicate: number) => ` (replicate ${replicate + 1})`;
  return {
    findings: verdicts.flatMap((verdict, replicate) =>
      verdict.findings.map((finding) => ({ ...finding, where: `${finding.where ?? 'the scenario'}${where(replicate)}` })),
    ),
    harnessProblems: verdicts.flatMap((verdict, replicate) => verdict.harnessProblems.map((problem) => `${problem}${where(replicate)}`)),
  };
}
