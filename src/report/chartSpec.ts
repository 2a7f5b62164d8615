/** What every chart builder returns, and the sizes and colours all charts share. */
import type { TopLevelSpec } from 'vega-lite';

export interface ChartSpec {
  /** Stable id, also the file name stem: `chart-<id>.svg`. */
  readonly id: string;
  readonly title: string;
  /** One line saying how to read it, shown under the image in the report. */
  readonly caption: string;
  readonly spec: TopLevelSpec;
}

/**
 * Width of a chart's plot area (px). With its labels and padding a chart stays within about
 * 620 px, the docs site's content column at 1280 px: shown there at full size, 11 px text stays
 * 11 px (a 1,244 px chart was shown at 56%, its text at 6 px).
 */
export const PLOT_WIDTH_PX = 400;

export const PALETTE = ['#4c78a8', '#f58518', '#54a24b', '#e45756', '#72b7b2', '#b279a2', '#eeca3b', '#9d755d', '#ff9da6', '#bab0ac'];

export const TARGET_COLOUR = '#c0392b';

/** Vega-Lite's data values from typed rows. */
export function values<T extends object>(rows: readonly T[]): Record<string, unknown>[] {
  return rows as unknown as Record<string, unknown>[];
}
