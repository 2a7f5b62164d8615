/**
 * A raw result's metric from one figure (pure): its unit, the direction that counts as better, and
 * its value rounded once (src/measure/round.ts). One builder per unit, for every suite.
 */
import { round1, round3 } from '../measure/round';
import type { Metric } from './rawResult';

/** Milliseconds, to the µs; lower is better unless said. Null (or undefined): not measured. */
export const msMetric = (value: number | null | undefined, direction: Metric['direction'] = 'lower'): Metric => ({
  value: value === null || value === undefined ? null : round3(value),
  unit: 'ms',
  direction,
});

/** A count; it only describes unless said. */
export const countMetric = (value: number | null, direction: Metric['direction'] = 'none'): Metric => ({ value, unit: 'count', direction });

/** Messages a second, to 0.1; higher is better. */
export const rateMetric = (value: number | null): Metric => ({
  value: value === null ? null : round1(value),
  unit: 'msg/s',
  direction: 'higher',
});

/** A share in %, to 0.001 (a loss: lower is better). */
export const percentMetric = (value: number): Metric => ({ value: round3(value), unit: '%', direction: 'lower' });
