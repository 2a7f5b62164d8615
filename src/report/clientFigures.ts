/**
 * The figures the "Clients side by side" section compares, picked from a run's raw results per
 * client configuration (pure). Which figures, from which family, is what the scenario descriptors
 * declare (src/scenarios/, `clientFigures`). Each figure comes from one family in one configuration that every
 * client ran, so a row never sets one client's 100-publisher rate beside another's 10-publisher
 * rate: rates at the most publishers/consumers the clients share, latencies at the fewest
 * (queueing behind other publishers would hide the library's own round trip).
 */
import { CLIENT_NAMES } from '../client/registry';
import type { RawResult } from '../results/rawResult';
import { clientFigures, type ClientFigureOfFamily } from '../scenarios/catalogue';

/** One client configuration as results name it (`client`, `client_profile` parameters). */
export interface ClientConfiguration {
  readonly name: string;
  readonly profile: string;
  /** `rabbitmq-client (defaults)`, as the describe block of its tests when several clients ran. */
  readonly label: string;
}

/** A column's stable id (`publish_rate`, `rst_detection`): the scenario descriptors' word. */
export type FigureId = string;

/** One column of the section, from the descriptor that declares it (src/scenarios/). */
export type FigureSpec = ClientFigureOfFamily;

/** Every column, in table and column order. */
export const FIGURE_SPECS: readonly FigureSpec[] = clientFigures();

/** One picked figure: its value (null when the result has none) and the configuration it is from. */
export interface PickedFigure {
  readonly value: number | null;
  readonly unit: string;
  readonly result: RawResult;
}

/** What one figure was taken from, e.g. `threads=10` (empty for a single-configuration family). */
export interface FigureSource {
  readonly spec: FigureSpec;
  readonly parameter: string | null;
  readonly value: string | number | null;
}

/** The client configuration of a result, or undefined for a result of no client (the proxy's). */
export function configurationOf(result: RawResult): ClientConfiguration | undefined {
  const name = result.parameters.client ?? result.client?.name;
  const profile = result.parameters.client_profile ?? result.client?.profile;
  if (typeof name !== 'string' || typeof profile !== 'string') return undefined;
  return { name, profile, label: `${name} (${profile})` };
}

/** Every client configuration of the results, in the registry's order, defaults before normalised. */
export function clientConfigurations(results: readonly RawResult[]): ClientConfiguration[] {
  const found = new Map<string, ClientConfiguration>();
  for (const result of results) {
    const configuration = configurationOf(result);
    if (configuration) found.set(configuration.label, configuration);
  }
  const rank = (configuration: ClientConfiguration) => {
    const index = (CLIENT_NAMES as readonly string[]).indexOf(configuration.name);
    return (index < 0 ? CLIENT_NAMES.length : index) * 2 + (configuration.profile === 'normalised' ? 1 : 0);
  };
  return [...found.values()].sort((a, b) => rank(a) - rank(b) || a.label.localeCompare(b.label));
}

const matches = (result: RawResult, spec: FigureSpec): boolean =>
  result.name === spec.family && Object.entries(spec.where ?? {}).every(([key, value]) => result.parameters[key] === value);

/**
 * The configuration of `spec`'s family to compare: the most (or fewest) of its parameter among
 * the values every client that ran the family has; when they share none, among all values.
 */
export function figureSource(spec: FigureSpec, results: readonly RawResult[]): FigureSource {
  if (!spec.by) return { spec, parameter: null, value: null };
  const { parameter, take } = spec.by;
  const valuesByClient = new Map<string, Set<string | number>>();
  for (const result of results) {
    const configuration = configurationOf(result);
    const value = result.parameters[parameter];
    if (!configuration || !matches(result, spec) || (typeof value !== 'number' && typeof value !== 'string')) continue;
    const values = valuesByClient.get(configuration.label) ?? new Set();
    values.add(value);
    valuesByClient.set(configuration.label, values);
  }
  const sets = [...valuesByClient.values()];
  if (sets.length === 0) return { spec, parameter, value: null };
  const all = [...new Set(sets.flatMap((set) => [...set]))];
  const shared = all.filter((value) => sets.every((set) => set.has(value)));
  const candidates = (shared.length > 0 ? shared : all).sort((a, b) => Number(a) - Number(b));
  return { spec, parameter, value: take === 'most' ? candidates[candidates.length - 1]! : candidates[0]! };
}

/** The figure of one client configuration, from the latest matching result. */
export function pickFigure(
  source: FigureSource,
  configuration: ClientConfiguration,
  results: readonly RawResult[],
): PickedFigure | undefined {
  const candidates = results.filter(
    (result) =>
      matches(result, source.spec) &&
      configurationOf(result)?.label === configuration.label &&
      (source.parameter === null || result.parameters[source.parameter] === source.value),
  );
  const latest = candidates.sort((a, b) => (a.timestamp < b.timestamp ? 1 : a.timestamp > b.timestamp ? -1 : 0))[0];
  if (!latest) return undefined;
  const metric = latest.metrics[source.spec.metric];
  return { value: metric?.value ?? null, unit: metric?.unit ?? '', result: latest };
}
