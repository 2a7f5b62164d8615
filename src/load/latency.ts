/**
 * Latency figures of a load run (pure): HDR histograms (src/measure/histogram.ts, µs) reported at
 * p50, p90, p99, p99.9, p99.99 and max, with the sample count beside them; nulls for an empty
 * histogram, never a made-up zero.
 */
import { percentileMs, usToMs, type LatencyHistogram } from '../measure/histogram';

export interface LatencyFiguresMs {
  readonly count: number;
  readonly p50: number | null;
  readonly p90: number | null;
  readonly p99: number | null;
  readonly p99_9: number | null;
  readonly p99_99: number | null;
  readonly max: number | null;
}

/**
 * @example latencyFiguresMs(histogramOf([1000, 2000, 3000])) // { count: 3, p50: 2, ..., max: 3 }
 */
export function latencyFiguresMs(histogram: LatencyHistogram): LatencyFiguresMs {
  if (histogram.totalCount === 0) return { count: 0, p50: null, p90: null, p99: null, p99_9: null, p99_99: null, max: null };
  const at = (percentile: number) => percentileMs(histogram, percentile);
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
