/**
 * A client's verdict cell in the clients table (pure): its findings grouped by scenario, each
 * scenario named once by a short label (`Periodic resets`, its parameters listed once under the
 * table), and one finding of several threads said once, the threads as ranges (`consumer threads
 * 0–3 and producer threads 0–1: stopped on an error of the client`). Nothing is dropped: a counted
 * finding said of several threads says `each` (the count is each one's, not a sum), and the same
 * finding found twice in the same place says `(×2)`.
 */
import { descriptorOf } from '../scenarios/catalogue';
import { parametersText, varyingParameterKeys } from './configurations';
import { resultLabel } from './labels';

type Parameters = Readonly<Record<string, string | number | boolean>>;

/** A scenario a finding was found in: the result's name and its parameters, the client's own left out. */
export interface VerdictScenario {
  readonly name: string;
  readonly parameters: Parameters;
}

/** One finding of a client: where in the measurement (`consumer thread 2`, `the workload`; null: the scenario as a whole) and what. */
export interface ClientFinding {
  readonly scenario: VerdictScenario;
  readonly where: string | null;
  readonly text: string;
}

/** A scenario the client cannot run as named, and why (a capability its adapter declares). */
export interface CannotRun {
  readonly scenario: VerdictScenario;
  readonly reason: string;
}

/** Between a verdict's scenarios and its parts: a line break in the rendered table (a cell holds no newline). */
export const LINE_BREAK = '<br>';

/** Short labels by each scenario's full name (`fullScenarioName`). */
export type ScenarioLabels = ReadonlyMap<string, string>;

/** `realistic_periodic_resets (4 consumers · consumer_threads=4 · …)`: the scenario in full. */
export const fullScenarioName = (scenario: VerdictScenario): string => resultLabel(scenario.name, scenario.parameters);

/** The distinct scenarios, in first-seen order. */
function distinct(scenarios: readonly VerdictScenario[]): VerdictScenario[] {
  return [...new Map(scenarios.map((scenario) => [fullScenarioName(scenario), scenario] as const)).values()];
}

/**
 * A short label for each scenario, unique among `scenarios` (every row of a table, so a label
 * means the same scenario in every row): its descriptor's label (its result name where two names
 * share a label), with the parameters that tell apart two scenarios of the same name
 * (`Publish throughput (10 threads)`); its full name when even that is not unique.
 */
export function scenarioLabels(scenarios: readonly VerdictScenario[]): ScenarioLabels {
  const unique = distinct(scenarios);
  const namesOfLabel = new Map<string, Set<string>>();
  for (const { name } of unique) {
    const label = descriptorOf({ name }).label;
    namesOfLabel.set(label, (namesOfLabel.get(label) ?? new Set()).add(name));
  }
  const short = unique.map((scenario) => {
    const descriptorLabel = descriptorOf({ name: scenario.name }).label;
    const base = namesOfLabel.get(descriptorLabel)!.size > 1 ? scenario.name : descriptorLabel;
    const varying = varyingParameterKeys(unique.filter((other) => other.name === scenario.name)).filter(
      (key) => key in scenario.parameters,
    );
    return varying.length === 0 ? base : `${base} (${parametersText(scenario.parameters, varying, true)})`;
  });
  return new Map(
    unique.map((scenario, index) => {
      const label = short[index]!;
      return [fullScenarioName(scenario), short.indexOf(label) === short.lastIndexOf(label) ? label : fullScenarioName(scenario)];
    }),
  );
}

/**
 * Each scenario of `scenarios` once, by its label, with its result name and parameters: the
 * Markdown paragraph and list under the table; empty when there is none.
 */
export function scenarioList(scenarios: readonly VerdictScenario[], labels: ScenarioLabels): string {
  const entries = distinct(scenarios).map((scenario) => {
    const label = labels.get(fullScenarioName(scenario)) ?? fullScenarioName(scenario);
    const parameters = Object.keys(scenario.parameters).length === 0 ? '' : `, ${parametersText(scenario.parameters, undefined, true)}`;
    return `- **${label}**: \`${scenario.name}\`${parameters}`;
  });
  return entries.length === 0
    ? ''
    : ['The scenarios the verdicts name, each with its result name and parameters:', '', ...entries].join('\n');
}

/** `0–3, 5, 7–8`: sorted, each run of consecutive indices as a range. */
export function indexRanges(indices: readonly number[]): string {
  const sorted = [...new Set(indices)].sort((a, b) => a - b);
  const runs: [number, number][] = [];
  for (const index of sorted) {
    const last = runs.at(-1);
    if (last && index === last[1] + 1) last[1] = index;
    else runs.push([index, index]);
  }
  return runs.map(([from, to]) => (from === to ? String(from) : `${from}–${to}`)).join(', ');
}

/** `consumer thread 2` → role `consumer`, threads [2]; `thread(s) 0, 2, 3` → no role, [0, 2, 3]; anything else: null. */
function threadsOf(where: string): { readonly role: string; readonly threads: number[] } | null {
  const match = /^(?:(.+) )?thread(?: (\d+)|\(s\) (\d+(?:, \d+)*))$/.exec(where);
  if (!match) return null;
  return { role: match[1] ?? '', threads: (match[2] ?? match[3]!).split(', ').map(Number) };
}

/** `consumer threads 0–3 and producer threads 0–1`, `the workload and the queue`: the places of one finding. */
export function placesText(wheres: readonly string[]): string {
  const parts: (string | { role: string; threads: number[] })[] = [];
  for (const where of wheres) {
    const parsed = threadsOf(where);
    const same = parsed && parts.find((part) => typeof part !== 'string' && part.role === parsed.role);
    if (!parsed) parts.push(where);
    else if (same && typeof same !== 'string') same.threads.push(...parsed.threads);
    else parts.push({ role: parsed.role, threads: [...parsed.threads] });
  }
  const said = parts.map((part) => {
    if (typeof part === 'string') return part;
    const plural = new Set(part.threads).size > 1 ? 's' : '';
    return `${part.role ? `${part.role} ` : ''}thread${plural} ${indexRanges(part.threads)}`;
  });
  return said.length <= 1 ? (said[0] ?? '') : `${said.slice(0, -1).join(', ')} and ${said.at(-1)}`;
}

/** One scenario's findings, the same finding at several places said once: `a; b; c`. */
function scenarioFindings(findings: readonly ClientFinding[]): string {
  // How often each (where, what) was found: twice in the same place is said, not dropped.
  const times = new Map<string, { where: string | null; text: string; times: number }>();
  for (const { where, text } of findings) {
    const key = JSON.stringify([where, text]);
    times.set(key, { where, text, times: (times.get(key)?.times ?? 0) + 1 });
  }
  const groups = new Map<string, { wheres: string[]; text: string; times: number }>();
  for (const [key, item] of times) {
    // A finding already about several threads stays on its own: its count is theirs together.
    const several = item.where !== null && (threadsOf(item.where)?.threads.length ?? 1) > 1;
    const groupKey = item.where === null || several ? key : JSON.stringify([item.text, item.times]);
    const group = groups.get(groupKey) ?? { wheres: [], text: item.text, times: item.times };
    if (item.where !== null) group.wheres.push(item.where);
    groups.set(groupKey, group);
  }
  return [...groups.values()]
    .map(({ wheres, text, times: found }) => {
      // `each`: a count said of several places is each one's count, not their sum.
      const each = wheres.length > 1 && /\d/.test(text) ? ', each' : '';
      const place = wheres.length === 0 ? '' : `${placesText(wheres)}${each}: `;
      return `${place}${text}${found > 1 ? ` (×${found})` : ''}`;
    })
    .join('; ');
}

/** Every finding of a row, scenario by scenario (first-seen order), each scenario's line `**label**: …`, joined by line breaks. */
export function groupedFindings(findings: readonly ClientFinding[], labels: ScenarioLabels = new Map()): string {
  const byScenario = new Map<string, ClientFinding[]>();
  for (const finding of findings) {
    const full = fullScenarioName(finding.scenario);
    byScenario.set(full, [...(byScenario.get(full) ?? []), finding]);
  }
  return [...byScenario.entries()].map(([full, own]) => `**${labels.get(full) ?? full}**: ${scenarioFindings(own)}`).join(LINE_BREAK);
}

/**
 * The verdict: the findings are it (❌); a harness failure is never one (⚠, said apart); nothing
 * of either: ✅. A scenario the client cannot run (➖) is said after them, and takes the ✅ away:
 * what it could not run was not shown to work. Scenarios are named by `labels` (their full names
 * without it).
 */
export function rowVerdict(
  findings: readonly ClientFinding[],
  harnessFailures: readonly string[],
  cannotRun: readonly CannotRun[] = [],
  labels: ScenarioLabels = new Map(),
): string {
  const labelOf = (scenario: VerdictScenario) => labels.get(fullScenarioName(scenario)) ?? fullScenarioName(scenario);
  const parts = [
    findings.length > 0 ? `❌ ${groupedFindings(findings, labels)}` : '',
    harnessFailures.length > 0 ? `⚠ harness failure, no verdict: ${harnessFailures.join('; ')}` : '',
    cannotRun.length > 0 ? `➖ cannot run: ${cannotRun.map((each) => `**${labelOf(each.scenario)}**: ${each.reason}`).join('; ')}` : '',
  ].filter((part) => part !== '');
  if (parts.length === 0) return '✅ recovered every time, nothing lost';
  if (findings.length === 0 && harnessFailures.length === 0) return `${parts[0]}; everything else recovered every time, nothing lost`;
  return parts.join(LINE_BREAK);
}
