/**
 * The few figures a reader looks for first (peak throughput, detection and propagation after a TCP
 * reset and a partition, full recovery), picked out of the raw results by family and metric name,
 * each checked against the product's recovery targets (src/scenarios/targets.ts). Pure: results in, key metrics out. Labels use the
 * report's one name for each recovery figure (src/report/metricNames.ts).
 *
 * A recovery figure says which proxy produced it and whether it is exact or an upper bound (timed
 * from the injecting API call); an upper bound is never scored as if exact, and a figure about a
 * fault the clients did not all receive as such (an RST that arrived as a FIN) is renamed and not
 * scored. Which figures are key is the scenario descriptors' word (src/scenarios/).
 */
import { describeReceived, RECEIVED_KIND_WORDS, type ReceivedKind } from '../client/faults';
import { keyFigures } from '../scenarios/catalogue';
import type { DeepReadonly } from './deepReadonly';
import type { RawResult } from './rawResult';
import { judgedTarget } from './targetVerdict';
import type * as Schema from '../schemaTypes';

// Generated from schemas/run-archive.schema.json (the history's entries share it), read-only.
export type KeyMetric = DeepReadonly<Schema.KeyMetric>;
export type KeyMetricTarget = DeepReadonly<Schema.KeyMetricTarget>;

interface KeyMetricDefinition {
  readonly id: string;
  readonly label: string;
  readonly family: (name: string) => boolean;
  readonly metric: string;
  /** `max`/`min`: one figure over all matching results; `each`: one per parameter set. */
  readonly pick: 'max' | 'min' | 'each';
  /** Only results that pass (e.g. a clean throughput, not a producer-bound one); all of the family when absent. */
  readonly where?: (result: RawResult) => boolean;
  readonly target?: KeyMetricTarget;
  /** The figure is about this fault as the clients received it: results where they got another are renamed and not scored. */
  readonly receivedFault?: string;
  readonly otherwise?: { readonly id: string; readonly label: string };
}

/** The key figures the scenario descriptors declare (src/scenarios/), in rank order. */
export const KEY_METRIC_DEFINITIONS: readonly KeyMetricDefinition[] = keyFigures().map((figure) => ({
  id: figure.id,
  label: figure.label,
  family: (name: string) => figure.families.includes(name),
  metric: figure.metric,
  pick: figure.pick,
  ...(figure.onlyClean === 'consume' ? { where: isCleanConsume } : {}),
  ...(figure.target ? { target: figure.target } : {}),
  ...(figure.receivedFault ? { receivedFault: figure.receivedFault } : {}),
  ...(figure.otherwise ? { otherwise: figure.otherwise } : {}),
}));

/** A sustained consume result whose every window was sampled and found the queue non-empty. */
export function isCleanConsume(result: RawResult): boolean {
  return result.metrics.producer_bound_windows?.value === 0 && result.metrics.unchecked_windows?.value === 0;
}

/** Key metrics present in `results`, in definition order, parameter sets in natural order. */
export function extractKeyMetrics(
  results: readonly RawResult[],
  definitions: readonly KeyMetricDefinition[] = KEY_METRIC_DEFINITIONS,
): KeyMetric[] {
  const keyMetrics: KeyMetric[] = [];
  for (const definition of definitions) {
    const matching = results
      .filter(
        (result) =>
          definition.family(result.name) && result.metrics[definition.metric] !== undefined && (definition.where?.(result) ?? true),
      )
      .sort(compareResults);
    if (matching.length === 0) continue;
    if (definition.pick === 'each') {
      for (const result of matching) keyMetrics.push(keyMetricOf(definition, result));
      continue;
    }
    const withValue = matching.filter((result) => typeof result.metrics[definition.metric]!.value === 'number');
    const sign = definition.pick === 'max' ? 1 : -1;
    const best = withValue.reduce<RawResult | undefined>(
      (chosen, result) =>
        chosen === undefined || sign * (result.metrics[definition.metric]!.value! - chosen.metrics[definition.metric]!.value!) > 0
          ? result
          : chosen,
      undefined,
    );
    keyMetrics.push(keyMetricOf(definition, best ?? matching[0]!));
  }
  return keyMetrics;
}

function keyMetricOf(definition: KeyMetricDefinition, result: RawResult): KeyMetric {
  const metric = result.metrics[definition.metric]!;
  // A target the benchmark itself declared (e.g. a stricter goal) wins over the product's default.
  const declared = result.targets?.find((target) => target.metric === definition.metric);
  const target: KeyMetricTarget | null = declared
    ? { comparator: declared.comparator, threshold: declared.threshold, unit: declared.unit }
    : (definition.target ?? null);
  const reference = result.fault ? (result.fault.reference.exact ? 'exact' : 'upper_bound') : null;
  const common = {
    result_name: result.name,
    parameters: result.parameters,
    metric: definition.metric,
    value: metric.value,
    unit: metric.unit,
    direction: metric.direction,
    fault_proxy: result.fault_proxy?.label ?? null,
    reference,
  } as const;
  const fault = result.fault;
  if (definition.receivedFault && fault && Object.keys(fault.received).some((kind) => kind !== definition.receivedFault)) {
    // Not the fault this figure is named after: say what it is, score nothing.
    const received = describeReceived(fault.received);
    const expectedWords = RECEIVED_KIND_WORDS[definition.receivedFault as ReceivedKind] ?? definition.receivedFault;
    return {
      ...common,
      // Another id, so a trend never draws a FIN figure beside the RST figures it is not.
      id: definition.otherwise?.id ?? `${definition.id}_not_${definition.receivedFault}`,
      label: `${definition.otherwise?.label ?? definition.label} (clients received ${received}, not ${expectedWords} only)`,
      target: null,
      met: null,
      met_reason: `the clients received ${received}: not a figure of ${expectedWords} only`,
    };
  }
  const unscored = declared !== undefined && declared.met === null && declared.reason !== undefined;
  const upperBound = reference === 'upper_bound' && metric.unit === 'ms';
  // The specification's target, where the result declared none, judged on the replicates' interval.
  const judged =
    declared || upperBound || target === null
      ? undefined
      : judgedTarget({ metric: definition.metric, ...target }, result.replicates?.[definition.metric] ?? [metric.value]);
  return {
    ...common,
    id: definition.id,
    label: upperBound ? `${definition.label} (upper bound)` : definition.label,
    target,
    met: declared ? declared.met : upperBound ? null : (judged?.met ?? null),
    met_reason: unscored
      ? declared.reason
      : upperBound && target !== null && metric.value !== null
        ? 'an upper bound (timed from the injecting API call): not scored against the exact-moment target'
        : (judged?.reason ?? null),
  };
}

/** Today's label of a key metric, whatever label the archive or history it was read from stored. */
export function keyMetricLabel(metric: Pick<KeyMetric, 'id' | 'label'>): string {
  const today = KEY_METRIC_DEFINITIONS.find((definition) => definition.id === metric.id)?.label;
  if (today === undefined) return metric.label;
  // What the figure was (an upper bound) stays said, whatever it was called then.
  return metric.label.endsWith(' (upper bound)') ? `${today} (upper bound)` : today;
}

export function evaluateTarget(value: number | null, target: KeyMetricTarget | null): boolean | null {
  if (target === null || value === null) return null;
  return target.comparator === '<' ? value < target.threshold : value > target.threshold;
}

/** Results of one family in a stable, natural order: by name, then parameters (numbers numerically). */
export function compareResults(a: RawResult, b: RawResult): number {
  return a.name.localeCompare(b.name) || compareParameters(a.parameters, b.parameters);
}

export function compareParameters(a: Readonly<Record<string, unknown>>, b: Readonly<Record<string, unknown>>): number {
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
  for (const key of keys) {
    const left = a[key];
    const right = b[key];
    if (left === right) continue;
    if (typeof left === 'number' && typeof right === 'number') return left - right;
    return String(left ?? '').localeCompare(String(right ?? ''), 'en', { numeric: true });
  }
  return 0;
}

/** `threads=10, mode=manual`; empty string for no parameters. */
export function describeParameters(parameters: Readonly<Record<string, unknown>>): string {
  return Object.entries(parameters)
    .map(([key, value]) => `${key}=${String(value)}`)
    .join(', ');
}
