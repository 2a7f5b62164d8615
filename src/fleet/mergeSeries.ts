/**
 * A fleet's time series (pure): the agents' points, taken at the same moments from one start,
 * summed point by point (counts, outstanding confirms, connections up), with each point's
 * percentiles read from the agents' interval histograms added together — never from the agents'
 * percentiles, which cannot be added.
 */
import { mergeHistograms, percentileMs, type EncodedHistogram, type LatencyHistogram } from '../measure/histogram';
import type { IntervalHistograms, TimeSeriesPoint } from '../load/timeseries';

export interface AgentSeries {
  readonly points: readonly TimeSeriesPoint[];
  /** One per point; shorter or empty when the agent kept none (its percentiles then count as missing). */
  readonly histograms: readonly IntervalHistograms[];
}

/**
 * The fleet's points: point k is the sum of every agent's point k (agents that stopped early add
 * nothing to later points); its percentiles come from the merged histograms of the agents that
 * kept them, and end-to-end ones only when `endToEnd` (the clocks allow it).
 */
export function mergeTimeSeries(series: readonly AgentSeries[], endToEnd: boolean): TimeSeriesPoint[] {
  const length = Math.max(0, ...series.map((each) => each.points.length));
  return Array.from({ length }, (_, k) => mergePoint(series, k, endToEnd));
}

function mergePoint(series: readonly AgentSeries[], k: number, endToEnd: boolean): TimeSeriesPoint {
  const present = series.filter((each) => each.points[k] !== undefined);
  const points = present.map((each) => each.points[k]!);
  const sum = (read: (point: TimeSeriesPoint) => number) => points.reduce((total, point) => total + read(point), 0);
  const histograms = present.map((each) => each.histograms[k]).filter((each): each is IntervalHistograms => each !== undefined);
  const complete = histograms.length === present.length;
  const merged = (pick: (each: IntervalHistograms) => EncodedHistogram): LatencyHistogram | null =>
    complete ? mergeHistograms(histograms.map(pick)) : null;
  const confirm = merged((each) => each.confirm);
  const e2e = endToEnd ? merged((each) => each.end_to_end) : null;
  const lag = merged((each) => each.schedule_lag);
  const at = (histogram: LatencyHistogram | null, percentile: number) => (histogram ? percentileMs(histogram, percentile) : null);
  const states = [...new Set(points.map((point) => point.fault_state).filter((state) => state !== 'none'))];
  return {
    t_s: Math.max(...points.map((point) => point.t_s)),
    published: sum((point) => point.published),
    confirmed: sum((point) => point.confirmed),
    consumed: sum((point) => point.consumed),
    confirm_p50_ms: at(confirm, 50),
    confirm_p99_ms: at(confirm, 99),
    e2e_p50_ms: at(e2e, 50),
    e2e_p99_ms: at(e2e, 99),
    schedule_lag_p99_ms: at(lag, 99),
    outstanding_confirms: sum((point) => point.outstanding_confirms),
    connections_up: sum((point) => point.connections_up),
    fault_state: states.length === 0 ? 'none' : states.join('+'),
  };
}
