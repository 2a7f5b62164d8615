/**
 * Every scenario's descriptor, by result name: what the report and the results read instead of
 * naming scenarios themselves. A result whose family is not here (a user's own benchmark, an
 * older name) gets a descriptor made from its name and category, so it still renders.
 */
import { CLUSTER_SUITE } from './cluster';
import { LOAD_SUITE } from './load';
import { MATRIX_SUITE } from './matrix';
import { PROXY_SUITE } from './proxy';
import { REALISTIC_SUITE } from './realistic';
import { RECOVERY_SUITE } from './recovery';
import { RESILIENCE_SUITE } from './resilience';
import { STABILITY_SUITE } from './stability';
import { THROUGHPUT_SUITE } from './throughput';
import type { ClientFigure, KeyFigure, ScenarioDescriptor, SuiteDescriptor } from './types';

/** Every suite, one line each, in report order: its section, then its scenarios by `order`. */
export const SUITES: readonly SuiteDescriptor[] = [
  THROUGHPUT_SUITE,
  REALISTIC_SUITE,
  RECOVERY_SUITE,
  MATRIX_SUITE,
  RESILIENCE_SUITE,
  STABILITY_SUITE,
  CLUSTER_SUITE,
  PROXY_SUITE,
  LOAD_SUITE,
];

/** Every scenario, in report order (suites, then each suite's scenarios). */
export const SCENARIOS: readonly ScenarioDescriptor[] = SUITES.flatMap((suite) =>
  suite.scenarios.map((scenario) => ({ ...scenario, suite: suite.name })),
);

const BY_NAME: ReadonlyMap<string, ScenarioDescriptor> = new Map(SCENARIOS.map((descriptor) => [descriptor.name, descriptor]));

/**
 * The suite a result belongs to: its scenario's, or — for a family the catalogue does not know (a
 * user's own benchmark, an older name) — the suite its category names, a category recorded
 * before suites named them read as the suite that took it over (`scalability` → realistic).
 * The one place a stored category becomes a suite.
 */
export function suiteOf(result: { readonly name: string; readonly category?: string }): SuiteDescriptor {
  const named = BY_NAME.get(result.name)?.suite ?? result.category ?? 'load';
  return (
    SUITES.find((suite) => suite.name === named || suite.formerCategories?.includes(named)) ?? {
      name: named,
      title: familyTitle(named),
      folder: false,
      scenarios: [],
    }
  );
}

/** Whether a result's times are recovery figures (their own minimum effect), by its scenario, else its suite. */
export function timesAreRecovery(result: { readonly name: string; readonly category?: string }): boolean {
  return BY_NAME.get(result.name)?.timesAreRecovery ?? suiteOf(result).timesAreRecovery ?? false;
}

/** `publish_throughput` -> `Publish throughput`. */
export function familyTitle(name: string): string {
  const text = name.replace(/_/g, ' ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** The descriptor of a result family (made from its name and category when the catalogue has none). */
export function descriptorOf(result: { readonly name: string; readonly category?: string }): ScenarioDescriptor {
  return (
    BY_NAME.get(result.name) ?? {
      name: result.name,
      suite: suiteOf(result).name,
      label: familyTitle(result.name),
      order: Number.MAX_SAFE_INTEGER,
      role: 'measurement',
    }
  );
}

/** Known to the catalogue (a scenario of this harness, not a user's own). */
export function isKnownScenario(name: string): boolean {
  return BY_NAME.has(name);
}

/** Orders results of several families as the report shows them: suite order, then scenario order, then name. */
export function scenarioRank(name: string): number {
  const index = SCENARIOS.findIndex((descriptor) => descriptor.name === name);
  return index < 0 ? SCENARIOS.length : index;
}

/** A key figure with the families it is taken from. */
export interface KeyFigureOfFamilies extends KeyFigure {
  readonly families: readonly string[];
}

/** Every key figure, once, with every family that has it, in rank order. */
export function keyFigures(scenarios: readonly ScenarioDescriptor[] = SCENARIOS): KeyFigureOfFamilies[] {
  const byId = new Map<string, { figure: KeyFigure; families: string[] }>();
  for (const descriptor of scenarios) {
    for (const figure of descriptor.keyFigures ?? []) {
      const known = byId.get(figure.id);
      if (known) known.families.push(descriptor.name);
      else byId.set(figure.id, { figure, families: [descriptor.name] });
    }
  }
  return [...byId.values()].map(({ figure, families }) => ({ ...figure, families })).sort((a, b) => a.rank - b.rank);
}

/** A client figure with the family it is taken from. */
export interface ClientFigureOfFamily extends ClientFigure {
  readonly family: string;
}

/** Every column of "Clients side by side", in table and column order. */
export function clientFigures(scenarios: readonly ScenarioDescriptor[] = SCENARIOS): ClientFigureOfFamily[] {
  return scenarios
    .flatMap((descriptor) => (descriptor.clientFigures ?? []).map((figure) => ({ ...figure, family: descriptor.name })))
    .sort((a, b) => Number(a.table === 'faults') - Number(b.table === 'faults') || a.order - b.order);
}

/** The families a chart role draws. */
export function familiesWithChart(role: ScenarioDescriptor['chart']): string[] {
  return SCENARIOS.filter((descriptor) => descriptor.chart === role).map((descriptor) => descriptor.name);
}

/** The witness that is the bare floor of `name`, if any. */
export function floorOf(name: string): string | undefined {
  return SCENARIOS.find((descriptor) => descriptor.floorOf === name)?.name;
}
