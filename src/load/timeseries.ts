/**
 * The time series of a load run: one point per interval (1 s unless asked finer), written as
 * `timeseries.csv` beside the result. The CSV is pure (`timeSeriesCsv`); the sampler is the thin
 * shell that reads the recorder and the connections on a timer.
 */
import { encodeHistogram, percentileMs, type EncodedHistogram } from '../measure/histogram';
import type { LoadRecorder } from './recorder';

export interface TimeSeriesPoint {
  /** End of the interval, seconds from the start of the run. */
  readonly t_s: number;
  readonly published: number;
  readonly confirmed: number;
  readonly consumed: number;
  readonly confirm_p50_ms: number | null;
  readonly confirm_p99_ms: number | null;
  readonly e2e_p50_ms: number | null;
  readonly e2e_p99_ms: number | null;
  readonly schedule_lag_p99_ms: number | null;
  readonly outstanding_confirms: number;
  readonly connections_up: number;
  /** `none`, or the faults in place at the end of the interval (`latency:200ms`; several joined by `+`). */
  readonly fault_state: string;
}

/** The CSV's columns, in order (its header). */
export const TIME_SERIES_COLUMNS = [
  't_s',
  'published',
  'confirmed',
  'consumed',
  'confirm_p50_ms',
  'confirm_p99_ms',
  'e2e_p50_ms',
  'e2e_p99_ms',
  'schedule_lag_p99_ms',
  'outstanding_confirms',
  'connections_up',
  'fault_state',
] as const satisfies readonly (keyof TimeSeriesPoint)[];

/** The CSV text: the header, then one line per point (an empty cell for a latency with no sample). */
export function timeSeriesCsv(points: readonly TimeSeriesPoint[]): string {
  const cell = (value: string | number | null) =>
    value === null ? '' : typeof value === 'string' ? (/[",\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value) : String(value);
  const lines = points.map((point) => TIME_SERIES_COLUMNS.map((column) => cell(point[column])).join(','));
  return `${[TIME_SERIES_COLUMNS.join(','), ...lines].join('\n')}\n`;
}

export interface SamplerInputs {
  readonly recorder: LoadRecorder;
  readonly intervalMs: number;
  outstandingConfirms(): number;
  connectionsUp(): number;
  faultState(): string;
  /** Monotonic now. */
  nowNs(): bigint;
  /** Called with each point as it is taken (progress, metrics). */
  onPoint?(point: TimeSeriesPoint): void;
  /**
   * Keep each interval's histograms (encoded) beside its point: a fleet's points are merged from
   * them, since percentiles of parts cannot be added. @default false
   */
  readonly keepIntervalHistograms?: boolean;
}

/** One interval's latency histograms, encoded (the point's percentiles come from them). */
export interface IntervalHistograms {
  readonly confirm: EncodedHistogram;
  readonly end_to_end: EncodedHistogram;
  readonly schedule_lag: EncodedHistogram;
}

export interface TimeSeriesSampler {
  readonly points: readonly TimeSeriesPoint[];
  /** One entry per point, when `keepIntervalHistograms` was asked; empty otherwise. */
  readonly intervalHistograms: readonly IntervalHistograms[];
  /** Takes the last (partial) point and stops the timer; safe to call twice. */
  stop(): void;
}

export function startSampler(inputs: SamplerInputs): TimeSeriesSampler {
  const points: TimeSeriesPoint[] = [];
  const intervalHistograms: IntervalHistograms[] = [];
  const { recorder } = inputs;
  let ticks = 0;
  let stopped = false;
  const take = (final = false) => {
    // The last, partial interval is kept only when it is a real part of one (not a few ms of shutdown).
    const lastEndNs = recorder.startNs + BigInt(points.length * inputs.intervalMs) * 1_000_000n;
    if (final && Number(inputs.nowNs() - lastEndNs) / 1e6 < inputs.intervalMs / 10) return;
    const interval = recorder.takeInterval();
    const point: TimeSeriesPoint = {
      t_s: Math.round(Number(inputs.nowNs() - recorder.startNs) / 1e6) / 1000,
      published: interval.published,
      confirmed: interval.confirmed,
      consumed: interval.consumed,
      confirm_p50_ms: percentileMs(interval.confirm, 50),
      confirm_p99_ms: percentileMs(interval.confirm, 99),
      e2e_p50_ms: percentileMs(interval.endToEnd, 50),
      e2e_p99_ms: percentileMs(interval.endToEnd, 99),
      schedule_lag_p99_ms: percentileMs(interval.lag, 99),
      outstanding_confirms: inputs.outstandingConfirms(),
      connections_up: inputs.connectionsUp(),
      fault_state: inputs.faultState(),
    };
    points.push(point);
    if (inputs.keepIntervalHistograms)
      intervalHistograms.push({
        confirm: encodeHistogram(interval.confirm),
        end_to_end: encodeHistogram(interval.endToEnd),
        schedule_lag: encodeHistogram(interval.lag),
      });
    inputs.onPoint?.(point);
  };
  // Each tick aims at its own slot from the start, so points do not drift with timer delays.
  let timer: NodeJS.Timeout | undefined;
  const schedule = () => {
    ticks += 1;
    const dueNs = recorder.startNs + BigInt(ticks * inputs.intervalMs) * 1_000_000n;
    const waitMs = Math.max(0, Number(dueNs - inputs.nowNs()) / 1e6);
    timer = setTimeout(() => {
      if (stopped) return;
      take();
      schedule();
    }, waitMs);
  };
  schedule();
  return {
    points,
    intervalHistograms,
    stop() {
      if (stopped) return;
      stopped = true;
      clearTimeout(timer);
      take(true);
    },
  };
}
