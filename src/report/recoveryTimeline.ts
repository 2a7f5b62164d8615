/**
 * One timeline chart per recovery scenario (pure): per thread, one row, ordered by the moment the
 * fault reached its connection: the fault on its connection -> its detection -> its proven
 * recovery, in ms from the run's first fault moment, with the removal of the toxic as a dashed
 * line. The subtitle says what bounds the figures (threads vs cores, the fault spread, the bare
 * floor when one was measured). Read from `details.threads` (of the replicate whose propagation
 * is the median, when the result combines replicates).
 */
import type { TopLevelSpec } from 'vega-lite';
import type { RawResult } from '../results/rawResult';
import { recoveryReplicates, type RecoveryDetailsRead } from '../results/recoveryDetails';
import { PLOT_WIDTH_PX, values, type ChartSpec } from './chartSpec';
import { recoveryScenarioLabel } from './configurations';
import { formatValue } from './format';
import { isRecoveryScenario } from './recoveryFloor';

export const TIMELINE_CHART_PREFIX = 'recovery-timeline-';

export interface TimelineRow {
  /** 1 = the first connection the fault reached. */
  readonly rank: number;
  readonly thread: number;
  /** ms from the run's first fault moment; null when the timeline did not name this thread's connection. */
  readonly fault_ms: number | null;
  readonly detected_ms: number | null;
  readonly recovered_ms: number | null;
}

export interface Timeline {
  readonly rows: readonly TimelineRow[];
  readonly removalMs: number | null;
  /** 0-based replicate shown, when the result combines replicates (else null). */
  readonly replicate: number | null;
  readonly replicates: number;
}

function threadsOf(details: RecoveryDetailsRead): TimelineRow[] {
  const rows = (details.threads ?? []).map((thread) => ({
    thread: thread.thread,
    fault_ms: thread.fault_after_reference_ms ?? null,
    detected_ms: thread.detected_after_reference_ms ?? null,
    recovered_ms: thread.recovered_after_reference_ms ?? null,
  }));
  // By fault moment (unknown last), then detection: the rows read as the fault travelled.
  const key = (value: number | null) => value ?? Number.POSITIVE_INFINITY;
  rows.sort((a, b) => key(a.fault_ms) - key(b.fault_ms) || key(a.detected_ms) - key(b.detected_ms) || a.thread - b.thread);
  return rows.map((row, index) => ({ rank: index + 1, ...row }));
}

const propagationOf = (rows: readonly TimelineRow[]): number =>
  Math.max(Number.NEGATIVE_INFINITY, ...rows.map((row) => row.detected_ms ?? Number.NEGATIVE_INFINITY));

/** The result's per-thread timeline (the median-propagation replicate's, for combined replicates); null when it has none. */
export function recoveryTimeline(result: RawResult): Timeline | null {
  const { replicated, replicates } = recoveryReplicates(result);
  if (!replicated) {
    const details = replicates[0]!;
    const rows = threadsOf(details);
    return rows.some((row) => row.detected_ms !== null)
      ? { rows, removalMs: details.removal_after_reference_ms ?? null, replicate: null, replicates: 1 }
      : null;
  }
  const candidates = replicates
    .map((replicate, index) => ({ index, details: replicate, rows: threadsOf(replicate) }))
    .filter((candidate) => candidate.rows.some((row) => row.detected_ms !== null))
    .sort((a, b) => propagationOf(a.rows) - propagationOf(b.rows));
  if (candidates.length === 0) return null;
  const chosen = candidates[Math.floor((candidates.length - 1) / 2)]!;
  return {
    rows: chosen.rows,
    removalMs: chosen.details.removal_after_reference_ms ?? null,
    replicate: chosen.index,
    replicates: replicates.length,
  };
}

/** `TCP reset · 50 threads` -> `recovery-timeline-tcp-reset-50-threads`. */
export function timelineChartId(label: string): string {
  return `${TIMELINE_CHART_PREFIX}${label
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')}`;
}

const PHASE_COLOURS = { fault: '#e45756', detection: '#4c78a8', recovery: '#54a24b' } as const;

/**
 * @param boundNote what bounds this scenario's figures (recoveryFloor.ts: threads vs cores, fault spread, bare floor)
 */
export function recoveryTimelineChart(result: RawResult, family: readonly RawResult[], boundNote: string): ChartSpec | undefined {
  const timeline = recoveryTimeline(result);
  if (timeline === null) return undefined;
  const label = recoveryScenarioLabel(result, family);
  const n = timeline.rows.length;
  const step = Math.max(3, Math.min(14, Math.floor(360 / Math.max(1, n))));
  const shown =
    timeline.replicate === null ? '' : ` (replicate ${timeline.replicate + 1} of ${timeline.replicates}: the median propagation)`;
  const y = {
    field: 'rank',
    type: 'ordinal',
    title: `threads, by when the fault reached each (${n})`,
    axis: { labels: n <= 20, ticks: n <= 20, labelFontSize: 9 },
  } as const;
  const x = { type: 'quantitative', title: 'milliseconds from the first fault moment', axis: { format: ',~f' } } as const;
  const point = (field: 'fault_ms' | 'detected_ms' | 'recovered_ms', colour: string) => ({
    transform: [{ filter: `datum.${field} !== null` }],
    mark: { type: 'point', filled: true, size: n > 50 ? 10 : n > 20 ? 18 : 30, color: colour },
    encoding: { y, x: { field, ...x } },
  });
  const rows = values(timeline.rows.map((row) => ({ ...row, fault_or_start: row.fault_ms ?? 0 })));
  return {
    id: timelineChartId(label),
    title: `Recovery timeline: ${label}`,
    caption: `Per thread, one row, in the order the fault reached its connection: red = the fault on its connection (the RST the proxy sent), blue = its detection, green = its proven recovery; the dashed line is the removal of the toxic${shown}. ${boundNote}`,
    spec: {
      title: {
        text: `Recovery timeline: ${label}`,
        subtitle: `red fault → blue detection → green recovery; dashed: toxic removed${shown}`,
      },
      width: PLOT_WIDTH_PX,
      height: { step },
      data: { values: rows },
      layer: [
        {
          transform: [{ filter: 'datum.detected_ms !== null' }],
          mark: { type: 'rule', color: PHASE_COLOURS.fault, strokeWidth: Math.min(3, Math.max(1, step / 3)) },
          encoding: { y, x: { field: 'fault_or_start', ...x }, x2: { field: 'detected_ms' } },
        },
        {
          transform: [{ filter: 'datum.detected_ms !== null && datum.recovered_ms !== null' }],
          mark: { type: 'rule', color: '#bbbbbb', strokeWidth: 1 },
          encoding: { y, x: { field: 'detected_ms', ...x }, x2: { field: 'recovered_ms' } },
        },
        point('fault_ms', PHASE_COLOURS.fault),
        point('detected_ms', PHASE_COLOURS.detection),
        point('recovered_ms', PHASE_COLOURS.recovery),
        ...(timeline.removalMs === null
          ? []
          : [
              {
                data: { values: [{ removal_ms: timeline.removalMs, text: `toxic removed (${formatValue(timeline.removalMs, 'ms')})` }] },
                layer: [
                  { mark: { type: 'rule', strokeDash: [4, 3], color: '#555555' }, encoding: { x: { field: 'removal_ms', ...x } } },
                  {
                    mark: { type: 'text', align: 'left', dx: 4, y: -6, fontSize: 9, color: '#555555' },
                    encoding: { x: { field: 'removal_ms', ...x }, text: { field: 'text' } },
                  },
                ],
              },
            ]),
      ],
    } as TopLevelSpec,
  };
}

/** Every recovery scenario's timeline, in the report's order; `boundNoteOf` says what bounds each. */
export function recoveryTimelineCharts(results: readonly RawResult[], boundNoteOf: (result: RawResult) => string): ChartSpec[] {
  const scenarios = results.filter(isRecoveryScenario);
  return scenarios
    .map((result) =>
      recoveryTimelineChart(
        result,
        scenarios.filter((candidate) => candidate.name === result.name),
        boundNoteOf(result),
      ),
    )
    .filter((chart): chart is ChartSpec => chart !== undefined);
}
