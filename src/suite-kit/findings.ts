/**
 * Findings: what the client under test did wrong in a measurement, each with its evidence (pure).
 * A finding is a result, not a failure: the suite records it in the raw result's `findings` and
 * its test passes; what fails a test is the harness's own failure (`harness_problems`: a fault
 * not injected, a thread of its own that could not start, a bound of its own hit), which is no
 * verdict on the client at all. Every suite builds its findings from these pieces, so a lost
 * message or an unhandled rejection reads the same in each.
 */
import type { ClientInfo } from '../client/api';
import type { Finding } from '../schemaTypes';
import type { DeliveryAccount } from './accounting';

export type { Finding };

/** A measurement's verdict: its findings (results) and its harness problems (failures of the harness, not the client). */
export interface SuiteVerdict {
  readonly findings: readonly Finding[];
  readonly harnessProblems: readonly string[];
}

/** At most this many examples (sequence numbers, errors) in a finding's evidence. */
const EXAMPLES = 5;

/** Errors nobody handled inside the client in one thread (trapped: unhandled rejections, uncaught exceptions). */
export function unhandledErrorFinding(where: string, trapped: readonly string[]): Finding | undefined {
  if (trapped.length === 0) return undefined;
  return {
    kind: 'unhandled_error',
    where,
    text: `${trapped.length} error(s) nobody handled inside the client (an application on Node's defaults would have crashed)`,
    count: trapped.length,
    evidence: counted(trapped).slice(0, EXAMPLES),
  };
}

/** Each distinct text once, in first-seen order, with how often it came when more than once: `write ECONNRESET (×389)`. */
export function counted(texts: readonly string[]): string[] {
  const times = new Map<string, number>();
  for (const text of texts) times.set(text, (times.get(text) ?? 0) + 1);
  return [...times].map(([text, count]) => (count > 1 ? `${text} (×${count})` : text));
}

/** A thread that stopped on an error of the client (could not reconnect within its bound, an operation that threw). */
export function threadFailedFinding(where: string, error: string): Finding {
  return { kind: 'thread_failed', where, text: 'stopped on an error of the client', evidence: [error] };
}

/**
 * Loss and duplicates of a delivery account. Duplicates the at-least-once rules explain (a
 * delivery flagged redelivered, one more per republished copy) are no finding; they are said in
 * the evidence of the unexplained ones so a reader sees both.
 * @param where which messages (`the workload`, `the queue`)
 */
export function accountFindings(account: DeliveryAccount, where = 'the workload'): Finding[] {
  const findings: Finding[] = [];
  if (account.lost > 0)
    findings.push({
      kind: 'message_lost',
      where,
      text: `${account.lost} ${account.baseline} message(s) lost: never delivered`,
      count: account.lost,
      evidence: [
        `e.g. seq ${account.lostSeqs.slice(0, EXAMPLES).join(', ')}`,
        `${account.deliveredUnique} of ${account.published} delivered`,
      ],
    });
  if (account.unexplainedDuplicates > 0)
    findings.push({
      kind: 'unexplained_duplicate',
      where,
      text: `${account.unexplainedDuplicates} duplicate(s) at-least-once does not explain (neither flagged redelivered nor a republished copy)`,
      count: account.unexplainedDuplicates,
      evidence: [
        `e.g. seq ${account.unexplainedSeqs.slice(0, EXAMPLES).join(', ')}`,
        `${explainedDuplicates(account)} other duplicate(s) explained: ${account.redeliveries} delivered flagged redelivered, ${account.republished} republished copies`,
      ],
    });
  return findings;
}

/** Duplicates the at-least-once rules explain (redeliveries, republished copies). */
export function explainedDuplicates(account: DeliveryAccount): number {
  return account.duplicates - account.unexplainedDuplicates;
}

/**
 * The client as evidence of a finding about its publishes: its library and version, and how it
 * confirms in its own words where its settings say (an adapter names there what its library
 * version is known to do with a confirm, with the upstream report).
 */
export function clientEvidence(client: Pick<ClientInfo, 'library' | 'version' | 'settings'>): string {
  const confirms = client.settings.confirms;
  return `${client.library} ${client.version}${typeof confirms === 'string' ? `; its confirms: ${confirms}` : ''}`;
}

/** `thread 3: 2 error(s) nobody handled ... (unhandled rejection: write ECONNRESET)`: one line, for progress lines and assertions. */
export function findingLine(finding: Finding): string {
  const evidence = finding.evidence.length > 0 ? ` (${finding.evidence.slice(0, 2).join('; ')})` : '';
  return `${finding.where ? `${finding.where}: ` : ''}${finding.text}${evidence}`;
}

/** The progress line's tail: nothing, or each finding on a line of its own. */
export function findingsProgress(findings: readonly Finding[]): string {
  return findings.map((finding) => `\n      finding: ${findingLine(finding)}`).join('');
}
