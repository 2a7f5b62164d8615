/**
 * Interpolated quantiles over small sample sets (per-thread latencies). The input is sorted
 * once and branded, so a quantile can never be taken of unsorted or empty samples.
 */
export type SortedSamples = readonly number[] & { readonly __sorted: unique symbol };

/** Sorted copy of the finite values; null when none is left. */
export function sortSamples(values: readonly (number | null | undefined)[]): SortedSamples | null {
  const finite = values.filter((value): value is number => typeof value === 'number' && Number.isFinite(value));
  if (finite.length === 0) return null;
  return finite.sort((a, b) => a - b) as unknown as SortedSamples;
}

/** Quantile `q` (0..1) with linear interpolation between closest ranks (as numpy's default). */
export function quantile(sorted: SortedSamples, q: number): number {
  if (q <= 0) return sorted[0]!;
  if (q >= 1) return sorted[sorted.length - 1]!;
  const position = (sorted.length - 1) * q;
  const lower = Math.floor(position);
  const fraction = position - lower;
  const low = sorted[lower]!;
  return fraction === 0 ? low : low + (sorted[lower + 1]! - low) * fraction;
}
