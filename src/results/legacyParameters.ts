/**
 * Results written by older versions of the harness, in today's parameter names, so that a run
 * is still compared with the runs before a rename. Applied wherever results are read back
 * (raw results, run archives, the history); writers only ever write today's names.
 *
 * - `mode` → `publish_mode` in publish results: `mode` used to mean the publish mode in
 *   throughput results and the client mode in recovery results. Recovery results
 *   keep their old `mode` (manual/recovery): it named something that `client` and
 *   `client_profile` now say, and is not renamed into them.
 */
import { SCENARIOS } from '../scenarios/catalogue';

/** Results whose `mode` parameter was the publish mode (plain or confirm): their descriptors say so. */
const PUBLISH_MODE_RESULTS: ReadonlySet<string> = new Set(
  SCENARIOS.filter((descriptor) => descriptor.legacyModeIsPublishMode).map((descriptor) => descriptor.name),
);
const PUBLISH_MODES: ReadonlySet<unknown> = new Set(['plain', 'confirm']);

type Parameters<V> = Readonly<Record<string, V>>;

interface Parameterised {
  readonly name?: string;
  readonly result_name?: string;
  readonly parameters?: Parameters<unknown>;
}

/** `parameters` in today's names (the same object when nothing was renamed). */
export function upgradeParameters<V>(resultName: string | undefined, parameters: Parameters<V>): Parameters<V> {
  if (resultName === undefined || !PUBLISH_MODE_RESULTS.has(resultName)) return parameters;
  if (!('mode' in parameters) || 'publish_mode' in parameters || !PUBLISH_MODES.has(parameters.mode)) return parameters;
  // Same key order as today's writers, so identities and texts built from parameters match.
  return Object.fromEntries(Object.entries(parameters).map(([key, value]) => [key === 'mode' ? 'publish_mode' : key, value]));
}

/** A result (raw, archived or in the history) or a key metric, with its parameters in today's names. */
export function upgradeResult<T extends Parameterised>(item: T): T {
  const parameters = item.parameters;
  if (!parameters) return item;
  const upgraded = upgradeParameters(item.name ?? item.result_name, parameters);
  return upgraded === parameters ? item : { ...item, parameters: upgraded };
}

/** A run (an archive or a history entry): its results and key metrics in today's names. */
export function upgradeRun<T extends { readonly results: readonly Parameterised[]; readonly key_metrics: readonly Parameterised[] }>(
  run: T,
): T {
  return {
    ...run,
    results: Array.isArray(run.results) ? run.results.map(upgradeResult) : run.results,
    key_metrics: Array.isArray(run.key_metrics) ? run.key_metrics.map(upgradeResult) : run.key_metrics,
  };
}
