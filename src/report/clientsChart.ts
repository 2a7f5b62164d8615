/**
 * The "Clients side by side" chart (pure): one small panel per key figure, one bar per client
 * configuration, each panel on its own axis and unit. Both profiles of a library share its
 * colour; a client without a value in a panel gets a label saying so instead of a bar.
 */
import type { TopLevelSpec } from 'vega-lite';
import type { RawResult } from '../results/rawResult';
import { clientConfigurations, FIGURE_SPECS, figureSource, pickFigure } from './clientFigures';
import { PLOT_WIDTH_PX, values, type ChartSpec } from './chartSpec';
import { formatValue } from './format';

/** Rates in thousands (`40k`); milliseconds as plain numbers (`~s` would write 0.8 ms as `800m`). */
const RATE_FORMAT = '~s';
// ',~r' (significant digits, never an exponent): Vega fits the precision to the ticks, which turned '~g' into '1e+1'.
const MS_FORMAT = ',~r';

/** The columns that are also chart panels, in column order. */
const PANELS = FIGURE_SPECS.filter((spec) => spec.chart !== undefined);

export interface ClientChartRow {
  readonly panel: string;
  readonly client: string;
  readonly library: string;
  /** null: no value (not measured, or never recovered); `label` says which. */
  readonly value: number | null;
  readonly label: string;
}

/** The chart's rows: one per panel and client configuration that has the panel's family. */
export function clientChartRows(results: readonly RawResult[]): ClientChartRow[] {
  const configurations = clientConfigurations(results);
  if (configurations.length < 2) return [];
  const rows: ClientChartRow[] = [];
  for (const panel of PANELS) {
    const source = figureSource(panel, results);
    for (const configuration of configurations) {
      const picked = pickFigure(source, configuration, results);
      if (!picked) continue;
      const missing = panel.cell?.kind === 'recovery' ? 'did not recover' : 'no value';
      rows.push({
        panel: `${panel.chart!.title}, ${panel.chart!.better} is better`,
        client: configuration.label,
        library: configuration.name,
        value: picked.value,
        label: picked.value === null ? missing : formatValue(picked.value, picked.unit),
      });
    }
  }
  return rows;
}

export function clientsSideBySide(results: readonly RawResult[]): ChartSpec | undefined {
  const rows = clientChartRows(results);
  if (rows.length === 0) return undefined;
  const clients = [...new Set(rows.map((row) => row.client))];
  const libraries = [...new Set(rows.map((row) => row.library))];
  const panels = [...new Set(rows.map((row) => row.panel))];
  const y = { field: 'client', type: 'nominal', title: null, sort: clients, axis: { labelLimit: 0 } } as const;
  const panel = (title: string) => ({
    title: { text: title, fontSize: 12, fontWeight: 500, anchor: 'start' },
    width: PLOT_WIDTH_PX - 80,
    height: { step: 16 },
    transform: [{ filter: { field: 'panel', equal: title } }],
    layer: [
      {
        transform: [{ filter: 'datum.value != null' }],
        mark: { type: 'bar', cornerRadiusEnd: 2, height: { band: 0.7 } },
        encoding: {
          y,
          x: {
            field: 'value',
            type: 'quantitative',
            title: null,
            axis: { format: title.includes('msg/s') ? RATE_FORMAT : MS_FORMAT, tickCount: 4 },
          },
          color: { field: 'library', type: 'nominal', title: 'Library', sort: libraries },
        },
      },
      {
        // A missing value's label sits at zero, where its bar would start.
        transform: [{ calculate: 'datum.value == null ? 0 : datum.value', as: 'at' }],
        mark: { type: 'text', align: 'left', dx: 3, fontSize: 9, color: '#333333' },
        encoding: { y, x: { field: 'at', type: 'quantitative' }, text: { field: 'label', type: 'nominal' } },
      },
    ],
  });
  return {
    id: 'clients-side-by-side',
    title: 'Clients side by side',
    caption:
      'Each key figure per client configuration (both profiles of a library share its colour), each panel on its own axis; a label instead of a bar: no value (never recovered, or not measured).',
    spec: {
      title: { text: 'Clients side by side', subtitle: 'one bar per client configuration; each panel its own axis' },
      data: { values: values(rows) },
      concat: panels.map(panel),
      // One column: client names take the room of a second one, and the docs column is ~620 px.
      columns: 1,
      spacing: 18,
      resolve: { scale: { x: 'independent' } },
    } as TopLevelSpec,
  };
}
