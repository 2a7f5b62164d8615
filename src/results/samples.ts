/**
 * The sample values behind one metric, for significance tests: the raw samples when a benchmark
 * kept them, otherwise the values recorded in an encoded HDR histogram.
 */
import * as hdr from 'hdr-histogram-js';
import type { EncodedHistogram } from './rawResult';

/** What a result may carry; history entries have neither. */
export interface SampleSource {
  readonly samples?: Readonly<Record<string, readonly number[]>>;
  readonly histograms?: Readonly<Record<string, EncodedHistogram>>;
}

export interface MetricSamples {
  readonly values: readonly number[];
  /** `samples` or `histogram:<name>`. */
  readonly source: string;
}

/** Statistics a histogram-backed metric name may end with: `publish_latency_p99_ms` -> `publish_latency`. */
const SUMMARY_SUFFIX = /_(?:p\d+(?:_\d+)?|max|min|mean|median|avg)(_[a-z]+)?$/;

/**
 * Histogram names that may hold the values of `metric`, most specific first:
 * `publish_latency_p99_ms` -> publish_latency_p99_ms, publish_latency_ms, publish_latency.
 */
export function histogramCandidates(metric: string): string[] {
  const candidates = [metric];
  const match = SUMMARY_SUFFIX.exec(metric);
  if (match) {
    const stem = metric.slice(0, match.index);
    if (match[1]) candidates.push(`${stem}${match[1]}`);
    candidates.push(stem);
  }
  return candidates;
}

/**
 * Values behind `metric`, or undefined when the result kept none: `samples` first, then a
 * histogram, each under the metric's own name or its stem (`thread_detection_p95_ms` is backed
 * by `samples.thread_detection_ms`, `publish_latency_p99_ms` by `histograms.publish_latency`).
 * Histograms above `maxValues` recorded values are not expanded.
 */
export function samplesForMetric(
  source: SampleSource,
  metric: string,
  maxValues = 2_000_000,
  options: { includeHistograms?: boolean } = {},
): MetricSamples | undefined {
  const candidates = histogramCandidates(metric);
  for (const name of candidates) {
    const values = source.samples?.[name];
    if (values && values.length > 0 && values.every(Number.isFinite))
      return { values, source: name === metric ? 'samples' : `samples:${name}` };
  }
  if (!source.histograms || options.includeHistograms === false) return undefined;
  for (const name of candidates) {
    const encoded = source.histograms[name];
    if (!encoded || encoded.count === 0 || encoded.count > maxValues) continue;
    const values = decodeHistogramValues(encoded.encoded, maxValues);
    if (values && values.length > 0) return { values, source: `histogram:${name}` };
  }
  return undefined;
}

/**
 * Expands an encoded HDR histogram into its recorded values (each bucket's value repeated by its
 * count), in the histogram's own unit. Undefined when it does not decode.
 */
export function decodeHistogramValues(encoded: string, maxValues = 2_000_000): number[] | undefined {
  let histogram: hdr.Histogram;
  try {
    histogram = hdr.decodeFromCompressedBase64(encoded, 64, false);
  } catch {
    return undefined;
  }
  try {
    if (!(histogram instanceof hdr.JsHistogram) || histogram.totalCount > maxValues) return undefined;
    const values: number[] = [];
    const iterator = histogram.recordedValuesIterator;
    iterator.reset();
    while (iterator.hasNext()) {
      const step = iterator.next();
      const value = histogram.medianEquivalentValue(step.valueIteratedTo);
      for (let k = 0; k < step.countAtValueIteratedTo; k += 1) values.push(value);
    }
    return values;
  } finally {
    histogram.destroy();
  }
}
