/**
 * Recovery times by scenario (pure spec): one horizontal-bar panel per phase (detection,
 * propagation, full recovery, recovery after removal), each on its own linear scale. Values are
 * printed in a column right of the plot, so a target mark can never run through them; a target is
 * a red tick on its rows, labelled once per value, or named in the panel's title when it is far
 * off the panel's scale.
 */
import type { TopLevelSpec } from 'vega-lite';
import type { RawResult } from '../results/rawResult';
import { recoveryRows, type RecoveryRow } from './chartData';
import { PLOT_WIDTH_PX, TARGET_COLOUR, values, type ChartSpec } from './chartSpec';
import { formatValue } from './format';
import { RECOVERY_FIGURE_NAMES } from './metricNames';

/** A target is drawn when it lies within this factor of the panel's largest value. */
const DRAWN_TARGET_FACTOR = 3;
const ROW_STEP_PX = 20;

function targetText(ms: number): string {
  return ms >= 1000 ? `${ms / 1000} s` : `${ms} ms`;
}

/** The panel's rows with what the spec needs precomputed: value labels, the domain, the drawn targets and their labels. */
export function recoveryPanel(phaseRows: readonly RecoveryRow[]) {
  const maxLatency = Math.max(...phaseRows.map((row) => row.latency));
  const drawn = phaseRows.filter((row) => row.target !== null && row.target <= maxLatency * DRAWN_TARGET_FACTOR);
  const far = [...new Set(phaseRows.filter((row) => row.target !== null && !drawn.includes(row)).map((row) => row.target!))];
  const domainMax = Math.max(maxLatency, ...drawn.map((row) => row.target!)) * 1.04;
  // One label per target value, on the first row that has it; on the side of the tick with more room.
  const labelled = new Set<number>();
  const targetLabels = drawn.flatMap((row) => {
    if (labelled.has(row.target!)) return [];
    labelled.add(row.target!);
    return [{ ...row, text: `target < ${targetText(row.target!)}`, side: row.target! > domainMax / 2 ? 'left' : 'right' }];
  });
  return {
    rows: phaseRows.map((row) => ({ ...row, value_label: formatValue(row.latency, 'ms') })),
    domain: [0, domainMax] as const,
    drawn,
    targetLabels,
    farTargets: far,
  };
}

export function recoveryByScenario(results: readonly RawResult[]): ChartSpec | undefined {
  const rows = recoveryRows(results);
  if (rows.length === 0) return undefined;
  const scenarios = [...new Set(rows.map((row) => row.scenario))];
  const faults = [...new Set(rows.map((row) => row.fault))];
  const phases = [...new Set([...rows].sort((a, b) => a.order - b.order).map((row) => row.phase))];
  return {
    id: 'recovery-by-scenario',
    title: 'Recovery times by scenario',
    caption:
      'Per scenario, from the fault: detection (first thread), propagation (all threads), full recovery (every thread consuming again), and recovery after removal (timed from the removal of the fault); red ticks are the targets.',
    spec: {
      title: {
        text: 'Recovery times by scenario',
        subtitle: 'milliseconds, lower is better; each panel has its own scale; red tick = target',
      },
      vconcat: phases.map((phase) => phasePanel(phase, rows, scenarios, faults)),
      spacing: 16,
      resolve: { scale: { x: 'independent' } },
    } as TopLevelSpec,
  };
}

/** One phase's panel: a bar per scenario, its value in a column right of the plot, the targets as red ticks. */
function phasePanel(phase: string, rows: readonly RecoveryRow[], scenarios: readonly string[], faults: readonly string[]) {
  const { rows: panelRows, domain, drawn, targetLabels, farTargets } = recoveryPanel(rows.filter((row) => row.phase === phase));
  const y = { field: 'scenario', type: 'nominal', title: null, sort: scenarios, axis: { labelLimit: 0 } } as const;
  const x = {
    field: 'latency',
    type: 'quantitative',
    title:
      phase === RECOVERY_FIGURE_NAMES.recovery_after_removal_ms
        ? 'milliseconds from the removal of the fault'
        : 'milliseconds from the fault',
    scale: { domain, nice: false },
    axis: { format: ',~f' },
  } as const;
  const note = farTargets.length > 0 ? ` (target < ${farTargets.map(targetText).join(', ')}: off this scale)` : '';
  const labelLayer = (side: 'left' | 'right', halo: boolean) => ({
    data: { values: values(targetLabels.filter((label) => label.side === side)) },
    mark: {
      type: 'text',
      align: side === 'right' ? 'left' : 'right',
      dx: side === 'right' ? 5 : -5,
      fontSize: 9,
      fontWeight: 600,
      color: halo ? 'white' : TARGET_COLOUR,
      ...(halo ? { stroke: 'white', strokeWidth: 3 } : {}),
    },
    encoding: { y, x: { field: 'target', type: 'quantitative' }, text: { field: 'text' } },
  });
  return {
    title: { text: `${phase.charAt(0).toUpperCase()}${phase.slice(1)}${note}`, fontSize: 12, fontWeight: 500, anchor: 'start' },
    width: PLOT_WIDTH_PX - 40,
    height: { step: ROW_STEP_PX },
    layer: [
      {
        data: { values: values(panelRows) },
        mark: { type: 'bar', cornerRadiusEnd: 2, height: { band: 0.65 } },
        encoding: { y, x, color: { field: 'fault', type: 'nominal', sort: faults, legend: null } },
      },
      // Values in their own column right of the plot: clear of bars and targets alike.
      {
        data: { values: values(panelRows) },
        mark: { type: 'text', align: 'left', x: PLOT_WIDTH_PX - 40 + 8, fontSize: 10, color: '#333333' },
        encoding: { y, text: { field: 'value_label' } },
      },
      ...(drawn.length === 0
        ? []
        : [
            {
              data: { values: values(drawn) },
              mark: { type: 'tick', color: TARGET_COLOUR, thickness: 2, bandSize: ROW_STEP_PX - 2 },
              encoding: { y, x: { field: 'target', type: 'quantitative' } },
            },
            labelLayer('right', true),
            labelLayer('right', false),
            labelLayer('left', true),
            labelLayer('left', false),
          ]),
    ],
  };
}
