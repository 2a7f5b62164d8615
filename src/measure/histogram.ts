/**
 * Latency histograms (hdr-histogram-js, pure JS). Values are recorded as integer
 * microseconds: 3 significant digits from 1 µs to 1 hour. Workers encode theirs
 * (compressed base64) to send to the main thread, which merges them; the encoded form is also
 * what a raw result keeps, so percentiles can be recomputed later.
 */
import * as hdr from 'hdr-histogram-js';

/**
 * An HDR histogram kept encoded, so percentiles and comparisons can be recomputed later: the shape
 * of the raw result's `encodedHistogram` (schemas/raw-result.schema.json), declared here so that
 * measuring imports nothing above it.
 */
export interface EncodedHistogram {
  /** hdr-histogram-js `encodeIntoCompressedBase64`. */
  readonly encoded: string;
  readonly unit: string;
  readonly count: number;
}

export type LatencyHistogram = hdr.Histogram;

const HIGHEST_TRACKABLE_US = 3_600_000_000;

export function createLatencyHistogram(): LatencyHistogram {
  return hdr.build({
    lowestDiscernibleValue: 1,
    highestTrackableValue: HIGHEST_TRACKABLE_US,
    numberOfSignificantValueDigits: 3,
    useWebAssembly: false,
  });
}

/** Records a latency given in nanoseconds (a difference of `process.hrtime.bigint()` readings). */
export function recordLatencyNs(histogram: LatencyHistogram, latencyNs: bigint): void {
  const us = Number(latencyNs / 1000n);
  histogram.recordValue(Math.min(HIGHEST_TRACKABLE_US, Math.max(1, us)));
}

/** `counts[i]` latencies of `valuesUs[i]` µs each (a histogram a client in another process measured). */
export function recordLatenciesUs(histogram: LatencyHistogram, valuesUs: readonly number[], counts: readonly number[]): void {
  valuesUs.forEach((us, index) => histogram.recordValueWithCount(Math.min(HIGHEST_TRACKABLE_US, Math.max(1, us)), counts[index] ?? 0));
}

export function encodeHistogram(histogram: LatencyHistogram): EncodedHistogram {
  return { encoded: hdr.encodeIntoCompressedBase64(histogram), unit: 'us', count: histogram.totalCount };
}

export function decodeHistogram(encoded: EncodedHistogram | string): LatencyHistogram {
  return hdr.decodeFromCompressedBase64(typeof encoded === 'string' ? encoded : encoded.encoded, 32, false);
}

/** Merges encoded histograms (e.g. one per worker) into one. */
export function mergeHistograms(parts: readonly (EncodedHistogram | string | LatencyHistogram)[]): LatencyHistogram {
  const merged = createLatencyHistogram();
  for (const part of parts) merged.add(typeof part === 'string' || 'encoded' in part ? decodeHistogram(part) : part);
  return merged;
}

export interface LatencySummaryMs {
  readonly count: number;
  readonly p50: number | null;
  readonly p95: number | null;
  readonly p99: number | null;
  readonly max: number | null;
  readonly mean: number | null;
}

/** A histogram value (µs) in milliseconds, to the microsecond. */
export const usToMs = (us: number): number => Math.round(us) / 1000;

/** One percentile in milliseconds; null for an empty histogram (never a made-up zero). */
export function percentileMs(histogram: LatencyHistogram, percentile: number): number | null {
  return histogram.totalCount === 0 ? null : usToMs(histogram.getValueAtPercentile(percentile));
}

/** Percentiles in milliseconds; nulls for an empty histogram (never a made-up zero). */
export function summarizeMs(histogram: LatencyHistogram): LatencySummaryMs {
  if (histogram.totalCount === 0) return { count: 0, p50: null, p95: null, p99: null, max: null, mean: null };
  return {
    count: histogram.totalCount,
    p50: percentileMs(histogram, 50),
    p95: percentileMs(histogram, 95),
    p99: percentileMs(histogram, 99),
    max: usToMs(histogram.maxValue),
    mean: usToMs(histogram.mean),
  };
}
