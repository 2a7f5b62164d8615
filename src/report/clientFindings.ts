/**
 * What went wrong for one client configuration, in words a reader can act on (pure): the findings
 * its results carry (an error nobody handled, confirmed messages lost, duplicates at-least-once
 * does not explain, a thread that never came back...), each with its scenario; for results
 * written before findings were recorded, what their figures say (a scenario it never recovered
 * from, a fault it never noticed, lost messages). A failing client is a finding of the run, not
 * the end of it: its row says so and the other clients' rows stand. A test that failed on the
 * harness's part is no verdict on the client: it is said apart, as a harness failure; so is a
 * scenario the client cannot run as named (its result's `cannot_run`: a capability it lacks).
 */
import { findingsOf, harnessProblemsOf } from '../results/findings';
import type { TestOutcome } from '../results/outcome';
import type { RawResult } from '../results/rawResult';
import { splitTestId } from '../results/testMatch';
import { configurationOf, type ClientConfiguration } from './clientFigures';
import type { CannotRun, ClientFinding, VerdictScenario } from './verdictText';

/** A result's worst replicate of `metric` (the median would hide one replicate that never recovered). */
function worstReplicate(result: RawResult, metric: string, worst: 'min' | 'max'): number | null {
  const replicates = result.replicates?.[metric];
  if (replicates && replicates.length > 0) return worst === 'min' ? Math.min(...replicates) : Math.max(...replicates);
  return result.metrics[metric]?.value ?? null;
}

/** The result's scenario: its name and parameters without the client's own. */
function scenarioOf(result: RawResult): VerdictScenario {
  const { client: _client, client_profile: _profile, ...parameters } = result.parameters;
  return { name: result.name, parameters };
}

/** Thread counts: every `…threads_detected` / `…threads_recovered` metric against the result's threads. */
function threadFindings(result: RawResult): ClientFinding[] {
  const threads = result.parameters.threads;
  if (typeof threads !== 'number') return [];
  const findings: ClientFinding[] = [];
  for (const metric of Object.keys(result.metrics)) {
    const match = /^(?:(\w+?)_)?threads_(detected|recovered)$/.exec(metric);
    if (!match) continue;
    const count = worstReplicate(result, metric, 'min');
    if (count === null || count >= threads) continue;
    // `consumer_threads_recovered`: the consumer threads' count.
    const where = match[1] ? `${match[1].replace(/_/g, ' ')} threads` : null;
    const replicates = result.replicates?.[metric]?.length ?? 1;
    const inReplicate = replicates > 1 ? ` in a replicate of ${replicates}` : '';
    findings.push({
      scenario: scenarioOf(result),
      where,
      text:
        match[2] === 'recovered'
          ? `did not recover: ${count}/${threads} threads back${inReplicate}`
          : `did not notice the fault: ${count}/${threads} threads${inReplicate}`,
    });
  }
  return findings;
}

/** Messages: lost (confirmed ones, when the producers used confirms) and unexplained duplicates. */
function messageFindings(result: RawResult): ClientFinding[] {
  const found = (text: string): ClientFinding => ({ scenario: scenarioOf(result), where: null, text });
  const findings: ClientFinding[] = [];
  const lost = worstReplicate(result, 'messages_lost', 'max');
  if (lost !== null && lost > 0) {
    const confirmed = (result.metrics.messages_confirmed?.value ?? 0) > 0;
    findings.push(found(`lost ${lost}${confirmed ? ' confirmed' : ''} message${lost === 1 ? '' : 's'}`));
  }
  const unexplained = worstReplicate(result, 'unexplained_duplicates', 'max');
  if (unexplained !== null && unexplained > 0)
    findings.push(found(`${unexplained} duplicate${unexplained === 1 ? '' : 's'} at-least-once does not explain`));
  return findings;
}

/**
 * A test belongs to a configuration when its describe path starts with the configuration's
 * label (several clients in a run), or when only one configuration ran.
 */
function testsOf(configuration: ClientConfiguration, tests: readonly TestOutcome[], onlyOne: boolean): TestOutcome[] {
  return tests.filter((test) => onlyOne || splitTestId(test.test_id).titles[0] === configuration.label);
}

export interface ClientVerdict {
  /** What the client did wrong, most serious first, each with its scenario and where; empty when it did everything asked. */
  readonly findings: ClientFinding[];
  /** Its tests that failed on the harness's part (⚠: no verdict on the client), with the reason. */
  readonly harnessFailures: string[];
  /** Scenarios it cannot run as named (a capability its adapter declares), each with why: neither a finding nor a failure. */
  readonly cannotRun: CannotRun[];
}

/** The findings of `configuration` in the run, and its tests the harness failed. */
export function clientVerdict(
  configuration: ClientConfiguration,
  results: readonly RawResult[],
  tests: readonly TestOutcome[],
  configurationsInRun: number,
): ClientVerdict {
  const own = results.filter((result) => configurationOf(result)?.label === configuration.label);
  const cannotRun = own.flatMap((result) => (result.cannot_run ? [{ scenario: scenarioOf(result), reason: result.cannot_run }] : []));
  const findings = own.flatMap((result): ClientFinding[] => {
    const recorded = findingsOf(result);
    if (!recorded) return [...threadFindings(result), ...messageFindings(result)];
    return recorded.map((finding) => ({ scenario: scenarioOf(result), where: finding.where, text: finding.what }));
  });
  const harnessFailures: string[] = [];
  for (const test of testsOf(configuration, tests, configurationsInRun === 1).filter((each) => each.status === 'failed')) {
    const recorded = own.filter((result) => result.test_id === test.test_id);
    // Failed on its findings alone (--fail-on-findings): they are listed already, and the harness did its part.
    const onFindings =
      recorded.length > 0 && recorded.every((result) => harnessProblemsOf(result).length === 0 && (findingsOf(result)?.length ?? 0) > 0);
    if (onFindings) continue;
    const name = splitTestId(test.test_id).titles.at(-1) ?? test.full_name;
    const reason = failureReason(test.failure_message);
    harnessFailures.push(`${name}${reason ? `: ${reason}` : ''}`);
  }
  return { findings, harnessFailures, cannotRun };
}

/** At most this many problems of one failed test in a row (the report's Failed list has the whole message). */
const MAX_PROBLEMS = 3;

/**
 * Why a test failed, in its own words: the benchmarks assert a list of problems to be empty, so
 * the items Jest shows as received (`+   "1 connections still down at the end",`) are the reason;
 * otherwise the first line that is not Jest's matcher header.
 */
export function failureReason(message: string | null): string {
  if (!message) return '';
  const lines = message.split('\n');
  const problems = lines.flatMap((line) => /^\s*\+\s+"(.*)",?\s*$/.exec(line)?.[1] ?? []);
  if (problems.length > 0)
    return (
      problems.slice(0, MAX_PROBLEMS).join('; ') + (problems.length > MAX_PROBLEMS ? `; and ${problems.length - MAX_PROBLEMS} more` : '')
    );
  const first = lines
    .map((line) => line.trim())
    .find((line) => line !== '' && !/^(?:Error: )?expect\(/.test(line) && !/^[-+] (?:Expected|Received)/.test(line));
  return (first ?? '').slice(0, 200);
}
