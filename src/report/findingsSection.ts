/**
 * The report's "Findings" (pure): per client configuration, what it did wrong in each scenario,
 * every finding with its evidence, whichever suite found it (the results' own `findings`, a
 * fault-matrix cell's verdict); and apart from them, the tests whose harness part failed (⚠: a
 * fault not injected, a thread of the harness's that could not start, a bound of its own hit),
 * which are no verdict on the client. Shown whenever the run has either, one client or several.
 */
import { findingsOf, harnessProblemsOf, type FindingView } from '../results/findings';
import type { TestOutcome } from '../results/outcome';
import type { RawResult } from '../results/rawResult';
import { splitTestId } from '../results/testMatch';
import { descriptorOf } from '../scenarios/catalogue';
import { failureReason } from './clientFindings';
import { clientConfigurations, configurationOf } from './clientFigures';
import { shortParameters } from './labels';

export interface FindingsSection {
  /** Client configurations with findings, in the registry's order; each result's findings with their evidence. */
  readonly clients: readonly {
    readonly client: string;
    readonly count: number;
    readonly results: readonly { readonly scenario: string; readonly items: readonly FindingView[] }[];
  }[];
  /** Findings in the run. */
  readonly count: number;
  /** Tests that failed on the harness's part, with the reason (no verdict on the client). */
  readonly harness_failures: readonly { readonly test: string; readonly reason: string }[];
  /** Tests that failed on their findings alone (the run asked to: `--fail-on-findings`). */
  readonly failed_on_findings: readonly string[];
}

/** `Recovery correctness (threads=10)`: the descriptor's label and the result's own parameters, without the client's. */
function scenarioOf(result: RawResult): string {
  const { client: _client, client_profile: _profile, ...parameters } = result.parameters;
  const label = descriptorOf({ name: result.name }).label;
  return Object.keys(parameters).length === 0 ? label : `${label} (${shortParameters(parameters)})`;
}

/** The section, or null when the run has neither findings nor harness failures. */
export function buildFindingsSection(results: readonly RawResult[], tests: readonly TestOutcome[]): FindingsSection | null {
  const withFindings = results.filter((result) => (findingsOf(result)?.length ?? 0) > 0);
  const labels = [...clientConfigurations(withFindings).map((configuration) => configuration.label)];
  if (withFindings.some((result) => !configurationOf(result))) labels.push('the client');
  const clients = labels.map((client) => {
    const own = withFindings.filter((result) => (configurationOf(result)?.label ?? 'the client') === client);
    const entries = own.map((result) => ({ scenario: scenarioOf(result), items: findingsOf(result)! }));
    return { client, count: entries.reduce((sum, entry) => sum + entry.items.length, 0), results: entries };
  });
  const { harnessFailures, failedOnFindings } = failedTests(results, tests);
  if (clients.length === 0 && harnessFailures.length === 0) return null;
  return {
    clients,
    count: clients.reduce((sum, client) => sum + client.count, 0),
    harness_failures: harnessFailures,
    failed_on_findings: failedOnFindings,
  };
}

/** Failed tests, told apart: on their findings alone (every result of theirs has findings and no harness problem), or the harness's. */
function failedTests(
  results: readonly RawResult[],
  tests: readonly TestOutcome[],
): { harnessFailures: { test: string; reason: string }[]; failedOnFindings: string[] } {
  const harnessFailures: { test: string; reason: string }[] = [];
  const failedOnFindings: string[] = [];
  for (const test of tests.filter((each) => each.status === 'failed')) {
    const name = splitTestId(test.test_id).titles.join(' › ') || test.full_name;
    const recorded = results.filter((result) => result.test_id === test.test_id);
    const problems = recorded.flatMap((result) => harnessProblemsOf(result));
    const onFindings = recorded.length > 0 && problems.length === 0 && recorded.every((result) => (findingsOf(result)?.length ?? 0) > 0);
    if (onFindings) failedOnFindings.push(name);
    else
      harnessFailures.push({
        test: name,
        reason: problems.length > 0 ? problems.slice(0, 3).join('; ') : failureReason(test.failure_message) || 'no message',
      });
  }
  return { harnessFailures, failedOnFindings };
}
