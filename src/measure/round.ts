/**
 * The one rounding of figures for results (pure): what a result stores is rounded once, here, so
 * the same figure never reads differently in two places.
 */

/** `value` to `digits` decimals. @example roundTo(2.34567, 2) // 2.35 */
export function roundTo(value: number, digits: number): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

/** To 3 decimals: a figure in ms to the µs, as results store them. */
export function round3(value: number): number {
  return roundTo(value, 3);
}

/** `round3`, passing null through (a figure not measured). */
export function round3OrNull(value: number | null): number | null {
  return value === null ? null : round3(value);
}

/** To 1 decimal: a rate in msg/s, a ratio in %. */
export function round1(value: number): number {
  return roundTo(value, 1);
}
