/**
 * Configurations of one family of results (pure): what tells them apart (the parameters that
 * vary, shown on each row) and what they share (shown once, under the family's heading). Short
 * row labels are what keeps a table with configurations as rows inside 100 columns.
 */
import type { RawResult } from '../results/rawResult';
import { descriptorOf, familyTitle } from '../scenarios/catalogue';

type ParameterValue = string | number | boolean;
type Parameters = Readonly<Record<string, ParameterValue>>;

/** Parameters whose value differs between the results (or that some lack), in first-seen order. */
export function varyingParameterKeys(results: readonly { readonly parameters: Parameters }[]): string[] {
  const keys = [...new Set(results.flatMap((result) => Object.keys(result.parameters)))];
  return keys.filter((key) => {
    const values = new Set(results.map((result) => (key in result.parameters ? JSON.stringify(result.parameters[key]) : undefined)));
    return values.size > 1;
  });
}

/** Parameters every result has with the same value. */
export function sharedParameters(results: readonly { readonly parameters: Parameters }[]): Parameters {
  if (results.length === 0) return {};
  const varying = new Set(varyingParameterKeys(results));
  return Object.fromEntries(Object.entries(results[0]!.parameters).filter(([key]) => !varying.has(key)));
}

/** One parameter, short: `10 threads`, `256 B`, `confirm`, `rounds=5`. */
export function parameterText(key: string, value: ParameterValue, explicit = false): string {
  if (key === 'threads') return `${value} threads`;
  if (key === 'consumers') return `${value} consumers`;
  if (key === 'message_size_bytes' || key === 'message_bytes') return `${value} B`;
  if (key === 'messages_per_thread') return `${value} msgs/thread`;
  if (key === 'messages') return `${value} msgs`;
  if (key === 'mode' || key === 'publish_mode') return String(value);
  if (typeof value === 'string' && !explicit) return value;
  return `${key}=${String(value)}`;
}

/** `10 threads · confirm`: the given parameters in their order; `default` when there are none. */
export function parametersText(parameters: Parameters, keys: readonly string[] = Object.keys(parameters), explicit = false): string {
  const parts = keys.filter((key) => key in parameters).map((key) => parameterText(key, parameters[key]!, explicit));
  return parts.join(' · ') || 'default';
}

/** A configuration's row label within its family: its varying parameters only. */
export function configurationLabel(result: { readonly parameters: Parameters }, varying: readonly string[]): string {
  return varying.length === 0 ? 'this run' : parametersText(result.parameters, varying);
}

/** The family's shared parameters for its caption, each named (`mode=confirm`), so nothing reads as a bare word. */
export function sharedParametersText(results: readonly RawResult[]): string {
  const shared = sharedParameters(results);
  return Object.keys(shared).length === 0 ? '' : parametersText(shared, Object.keys(shared), true);
}

/** A scenario's short name, as its descriptor gives it (src/scenarios/): `TCP reset`, `Partition`. */
export function recoveryScenarioName(resultName: string): string {
  return descriptorOf({ name: resultName }).label;
}

/**
 * A recovery configuration, short enough for an axis: `TCP reset · 50 threads`, plus the client
 * mode when not the default, plus whatever else tells it apart from the rest of its `family`
 * (e.g. the client under test, when several were run).
 */
export function recoveryScenarioLabel(
  result: { readonly name: string; readonly parameters: Parameters },
  family: readonly { readonly parameters: Parameters }[] = [],
): string {
  const threads = result.parameters.threads === undefined ? '' : ` · ${result.parameters.threads} threads`;
  const mode = result.parameters.mode !== undefined && result.parameters.mode !== 'manual' ? ` · ${result.parameters.mode}` : '';
  const others = varyingParameterKeys(family).filter((key) => key !== 'threads' && key !== 'mode' && key in result.parameters);
  return `${recoveryScenarioName(result.name)}${threads}${mode}${others.length === 0 ? '' : ` · ${parametersText(result.parameters, others, true)}`}`;
}

export { familyTitle };
