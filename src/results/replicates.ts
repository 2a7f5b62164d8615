/**
 * Replicates: the same scenario measured k times within one run, each time from scratch (a fresh
 * session: connections, channels, queue, worker pool), combined into one raw result whose
 * metric values are the medians of the k values and whose `replicates` keep the k values.
 *
 * Why: the comparison asks "did this build get slower?", a question about repetitions of the
 * scenario, not about the threads or messages inside one repetition. Per-thread and per-round
 * samples share one session's conditions (its connections, its moment on the machine); tested as
 * if independent they call run-to-run drift a change (31% of metrics came out "significant" between
 * two runs of identical code). Samples stay in the result to show the spread; only replicates are tested.
 *
 * @example
 * const drafts = await runReplicates(6, async () => publishThroughputResult(await measure(workload)));
 * recordResult(combineReplicates(drafts, { totals: ['errors', 'messages_total'] }));
 */
import { mergeHistograms, encodeHistogram } from '../measure/histogram';
import { median, isNonEmpty, type NonEmptyArray } from '../measure/statistics';
import { takeTurn } from '../ab/turnClient';
import { rejudged } from './targetVerdict';
import type { EncodedHistogram, Metric, RawResult, ResultDraft } from './rawResult';

export interface CombineOptions {
  /**
   * Metrics whose value is the total over the replicates rather than their median: counts of
   * events (errors, messages lost, messages published). Their replicates still hold each count.
   */
  readonly totals?: readonly string[];
  /** Applied to each combined value (e.g. the suite's significant-figure rounding). @default identity */
  readonly round?: (value: number) => number;
}

/**
 * Runs `measure` `count` times, one after the other (never concurrently: replicates must not
 * share the machine with each other), and returns the k outcomes in order. In a paired run
 * (`bench ab`) each replicate waits for its side's turn, so the two builds' replicates alternate.
 * @throws RangeError when count is not a whole number of at least 1; whatever `measure` throws.
 */
export async function runReplicates<T>(count: number, measure: (replicate: number) => Promise<T>): Promise<NonEmptyArray<T>> {
  if (!Number.isInteger(count) || count < 1) throw new RangeError(`replicates must be a whole number of at least 1; got ${count}`);
  const outcomes: T[] = [];
  for (let replicate = 0; replicate < count; replicate += 1) {
    await takeTurn(`replicate ${replicate + 1} of ${count}`);
    outcomes.push(await measure(replicate));
  }
  return outcomes as unknown as NonEmptyArray<T>;
}

/**
 * One result from k drafts of the same scenario (same name, category and parameters):
 * - each metric's value is the median of the replicates that have one (or their total, for
 *   `totals`); `replicates[metric]` holds every replicate's value, in order;
 * - `samples` of the same name are concatenated in replicate order (the spread within each);
 * - histograms of the same name and unit are merged (percentile charts cover every replicate);
 * - targets are evaluated again against the combined values;
 * - notes say how the value was formed; each draft's `details` is kept under `details.replicates`;
 * - any other field (client, fault_proxy, fault) is the first draft's.
 * @throws Error when the drafts are not of one scenario, or a metric's unit or direction differs.
 */
export function combineReplicates(drafts: NonEmptyArray<ResultDraft>, options: CombineOptions = {}): ResultDraft {
  const [first] = drafts;
  for (const draft of drafts) {
    if (draft.name !== first.name || draft.category !== first.category || !sameParameters(draft.parameters, first.parameters)) {
      throw new Error(
        `replicates must be of one scenario: ${first.name} ${JSON.stringify(first.parameters)} and ${draft.name} ${JSON.stringify(draft.parameters)} differ`,
      );
    }
  }
  const k = drafts.length;
  const totals = new Set(options.totals ?? []);
  const round = options.round ?? ((value: number) => value);
  const metrics: Record<string, Metric> = {};
  const replicates: Record<string, [number, ...number[]]> = {};
  const partial: string[] = [];
  for (const name of unionOfKeys(drafts.map((draft) => draft.metrics))) {
    const present = drafts.map((draft) => draft.metrics[name]).filter((metric): metric is Metric => metric !== undefined);
    const reference = present[0]!;
    const mismatch = present.find((metric) => metric.unit !== reference.unit || metric.direction !== reference.direction);
    if (mismatch)
      throw new Error(
        `metric ${name} changes unit or direction between replicates (${reference.unit}/${reference.direction} vs ${mismatch.unit}/${mismatch.direction})`,
      );
    const values = present.map((metric) => metric.value).filter((value): value is number => value !== null && Number.isFinite(value));
    let value: number | null = null;
    if (isNonEmpty(values)) {
      value = round(totals.has(name) ? values.reduce((sum, each) => sum + each, 0) : median(values));
      replicates[name] = [...values] as [number, ...number[]];
    }
    if (values.length < k)
      partial.push(`${name}: ${values.length} of ${k} replicates had a value; the ${totals.has(name) ? 'total' : 'median'} is over those`);
    metrics[name] = { value, unit: reference.unit, direction: reference.direction };
  }
  const notes = [
    `value: the median of ${k} replicates (independent repetitions of the scenario in this run, each from a fresh session); replicates.<metric> holds each replicate's value, in order, and is what the comparison tests`,
    ...(totals.size > 0
      ? [`${[...totals].filter((name) => name in metrics).join(', ')}: the total over the ${k} replicates, not the median`]
      : []),
    `samples: the spread within each replicate (rounds, threads), concatenated in replicate order; they are shown, never tested as replicates`,
    ...partial,
    ...new Set(drafts.flatMap((draft) => draft.notes ?? [])),
  ];
  const samples = concatenateSamples(drafts);
  const histograms = mergeHistogramsOf(drafts);
  // Judged on the replicates' interval, not on their median alone.
  // A total is judged as the one figure it is.
  const targets = first.targets?.map((target) =>
    rejudged(target, totals.has(target.metric) ? [metrics[target.metric]?.value ?? null] : (replicates[target.metric] ?? [])),
  );
  return {
    // What the replicates share and no rule here combines (the client, the fault proxy, a suite's
    // own record such as a recovery `fault`) comes from the first; a suite may combine it itself.
    ...first,
    name: first.name,
    category: first.category,
    parameters: first.parameters,
    metrics,
    replicates,
    ...(samples ? { samples } : {}),
    ...(histograms ? { histograms } : {}),
    ...(targets ? { targets } : {}),
    notes,
    details: { replicates: drafts.map((draft) => draft.details ?? {}) },
  };
}

function sameParameters(a: RawResult['parameters'], b: RawResult['parameters']): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => a[key] === b[key]);
}

function unionOfKeys(records: readonly (Readonly<Record<string, unknown>> | undefined)[]): string[] {
  return [...new Set(records.flatMap((record) => Object.keys(record ?? {})))];
}

function concatenateSamples(drafts: readonly ResultDraft[]): Record<string, number[]> | undefined {
  const names = unionOfKeys(drafts.map((draft) => draft.samples));
  if (names.length === 0) return undefined;
  return Object.fromEntries(names.map((name) => [name, drafts.flatMap((draft) => [...(draft.samples?.[name] ?? [])])]));
}

/** Histograms every replicate recorded under the same name and unit, merged; others are left out (and said so nowhere else: they would mix units). */
function mergeHistogramsOf(drafts: readonly ResultDraft[]): Record<string, EncodedHistogram> | undefined {
  const merged: Record<string, EncodedHistogram> = {};
  for (const name of unionOfKeys(drafts.map((draft) => draft.histograms))) {
    const parts = drafts.map((draft) => draft.histograms?.[name]).filter((part): part is EncodedHistogram => part !== undefined);
    if (parts.length !== drafts.length || parts.some((part) => part.unit !== parts[0]!.unit)) continue;
    const recorded = parts.filter((part) => part.count > 0);
    if (recorded.length === 0) {
      merged[name] = parts[0]!;
      continue;
    }
    const histogram = mergeHistograms(recorded);
    try {
      merged[name] = { ...encodeHistogram(histogram), unit: parts[0]!.unit };
    } finally {
      histogram.destroy();
    }
  }
  return Object.keys(merged).length > 0 ? merged : undefined;
}
