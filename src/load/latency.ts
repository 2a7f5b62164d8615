/**
 * Latency figures of a load run (pure): HDR histograms (src/measure/histogram.ts, µs) reported at
 * p50, p90, p99, p99.9, p99.99 and max, with the sample count beside them; nulls for an empty
 * histogram, never a made-up zero.
 */
import type { LatencyHistogram } from '../measure/histogram';

export const REPORTED_PERCENTILES = [50, 90, 99, 99.9, 99.99] as const;

export interface LatencyFiguresMs {
  readonly count: number;
  readonly p50: number | null;
  readonly p90: number | null;
  readonly p99: number | null;
  readonly p99_9: number | null;
  readonly p99_99: number | null;
  readonly max: number | null;
}

const usToMs = (us: number) => Math.round(us) / 1000;

/**
 * @example latencyFiguresMs(histogramOf([1000, 2000, 3000])) // { count: 3, p50: 2, ..., max: 3 }
 */
export function latencyFiguresMs(histogram: LatencyHistogram): LatencyFiguresMs {
  if (histogram.totalCount === 0) return { count: 0, p50: null, p90: null, p99: null, p99_9: null, p99_99: null, max: null };
  const at = (percentile: number) => usToMs(histogram.getValueAtPercentile(percentile));
  return {
    count: histogram.totalCount,
    p50: at(50),
    p90: at(90),
    p99: at(99),
    p99_9: at(99.9),
    p99_99: at(99.99),
    max: usToMs(histogram.maxValue),
  };
}

/** A percentile in ms, null for an empty histogram (time-series points). */
export function percentileMs(histogram: LatencyHistogram, percentile: number): number | null {
  return histogram.totalCount === 0 ? null : usToMs(histogram.getValueAtPercentile(percentile));
}
