/**
 * Correction for many tests at once. A comparison judges dozens of metrics; at α = 0.05 each,
 * an unchanged build would show a "significant" change in about one metric in twenty. The
 * Benjamini–Hochberg procedure bounds the expected share of false discoveries among the metrics
 * it calls changed (the false discovery rate) at α instead. Pure; pinned in tests to R's
 * `p.adjust(p, "BH")` / scipy's `false_discovery_control(p, method="bh")` and to the example of
 * Benjamini & Hochberg (1995).
 */

/**
 * Benjamini–Hochberg adjusted p-values (q-values), in the order given: for the i-th smallest of
 * m p-values, min over j >= i of (m / j) * p_(j), capped at 1, exactly as R's `p.adjust(p, "BH")`.
 * A metric is a discovery at level α when its adjusted p-value is at most α (which is the
 * step-up rule p_(i) <= i α / m of the 1995 paper).
 * @throws RangeError for a p-value outside [0, 1].
 * @example benjaminiHochberg([0.01, 0.04, 0.03, 0.04, 0.2, 0.0001]) // [0.03, 0.048, 0.048, 0.048, 0.2, 0.0006]
 */
export function benjaminiHochberg(pValues: readonly number[]): number[] {
  for (const p of pValues) {
    if (!(p >= 0 && p <= 1)) throw new RangeError(`a p-value must lie within [0, 1]; got ${p}`);
  }
  const m = pValues.length;
  // Largest first, ties in input order (R's order(p, decreasing = TRUE) is stable too).
  const order = pValues.map((p, index) => ({ p, index })).sort((a, b) => b.p - a.p || a.index - b.index);
  const adjusted = new Array<number>(m);
  let running = 1;
  order.forEach(({ p, index }, position) => {
    const rank = m - position;
    running = Math.min(running, (m / rank) * p);
    adjusted[index] = running;
  });
  return adjusted;
}
