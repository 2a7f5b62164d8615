/**
 * Pure statistics over arrays of samples: ranks, the Mann-Whitney U test and the normal
 * distribution it needs. No state, no I/O; every function is exact on tiny inputs so tests can
 * pin it against published values (scipy.stats.mannwhitneyu with its defaults).
 */

/** At least one element: the functions below cannot be called on nothing. */
export type NonEmptyArray<T> = readonly [T, ...T[]];

export function isNonEmpty<T>(values: readonly T[]): values is NonEmptyArray<T> {
  return values.length > 0;
}

export interface Ranking {
  /** Rank of each input value (1-based), ties given the average of the ranks they span. */
  readonly ranks: readonly number[];
  /** Size of every group of tied values (groups of one included). */
  readonly tieGroupSizes: readonly number[];
}

/** Average ranks, as `scipy.stats.rankdata(method='average')`. */
export function rankWithTies(values: readonly number[]): Ranking {
  const order = values.map((value, index) => ({ value, index })).sort((a, b) => a.value - b.value);
  const ranks = new Array<number>(values.length);
  const tieGroupSizes: number[] = [];
  let start = 0;
  while (start < order.length) {
    let end = start;
    while (end + 1 < order.length && order[end + 1]!.value === order[start]!.value) end += 1;
    // Positions start..end (0-based) share ranks start+1..end+1: their average.
    const averageRank = (start + end + 2) / 2;
    for (let k = start; k <= end; k += 1) ranks[order[k]!.index] = averageRank;
    tieGroupSizes.push(end - start + 1);
    start = end + 1;
  }
  return { ranks, tieGroupSizes };
}

/** Complementary error function, accurate to about 1e-14 relative over the whole real line. */
export function erfc(x: number): number {
  if (Number.isNaN(x)) return Number.NaN;
  if (x < 0) return 2 - erfc(-x);
  if (x < 3) return 1 - erfSeries(x);
  return erfcContinuedFraction(x);
}

/** erf(x) = 2/sqrt(pi) * exp(-x^2) * sum 2^n x^(2n+1) / (1*3*...*(2n+1)): positive terms, no cancellation. */
function erfSeries(x: number): number {
  let term = x;
  let sum = x;
  for (let n = 1; n < 200; n += 1) {
    term *= (2 * x * x) / (2 * n + 1);
    sum += term;
    if (term < sum * 1e-17) break;
  }
  return (2 / Math.sqrt(Math.PI)) * Math.exp(-x * x) * sum;
}

/** erfc(x) = exp(-x^2)/sqrt(pi) / (x + (1/2)/(x + 1/(x + (3/2)/(x + ...)))), by Lentz's method (x >= 3). */
function erfcContinuedFraction(x: number): number {
  const tiny = 1e-300;
  let f = x;
  let c = x;
  let d = 0;
  for (let n = 1; n < 500; n += 1) {
    const a = n / 2;
    d = x + a * d;
    d = d === 0 ? tiny : d;
    c = x + a / c;
    c = c === 0 ? tiny : c;
    d = 1 / d;
    const delta = c * d;
    f *= delta;
    if (Math.abs(delta - 1) < 1e-16) break;
  }
  return Math.exp(-x * x) / Math.sqrt(Math.PI) / f;
}

/** P(Z >= z) for a standard normal Z. */
export function normalSurvival(z: number): number {
  return erfc(z / Math.SQRT2) / 2;
}

export type MannWhitneyMethod = 'exact' | 'asymptotic';

export interface MannWhitneyResult {
  /** U statistic of the first sample (number of pairs where x > y, ties counting one half). */
  readonly u1: number;
  /** Two-sided p-value. */
  readonly pValue: number;
  readonly method: MannWhitneyMethod;
  readonly n1: number;
  readonly n2: number;
}

/**
 * The exact null distribution costs about (m*n)^2/4 operations; beyond this budget the normal
 * approximation is used even where scipy would go exact (it is then very close anyway).
 */
const EXACT_WORK_LIMIT = 20_000_000;

/**
 * Two-sided Mann-Whitney U test, as `scipy.stats.mannwhitneyu(x, y)` with its defaults:
 * exact when there are no ties and one sample has at most 8 values, otherwise the normal
 * approximation with tie correction and continuity correction.
 *
 * @example mannWhitneyU([1, 2, 3, 4, 5], [6, 7, 8, 9, 10]).pValue // 0.007937 (exact)
 */
export function mannWhitneyU(x: NonEmptyArray<number>, y: NonEmptyArray<number>): MannWhitneyResult {
  for (const value of [...x, ...y]) {
    if (!Number.isFinite(value)) throw new RangeError(`Mann-Whitney U needs finite numbers; got ${value}`);
  }
  const n1 = x.length;
  const n2 = y.length;
  const { ranks, tieGroupSizes } = rankWithTies([...x, ...y]);
  let rankSumX = 0;
  for (let i = 0; i < n1; i += 1) rankSumX += ranks[i]!;
  const u1 = rankSumX - (n1 * (n1 + 1)) / 2;
  const u = Math.max(u1, n1 * n2 - u1);
  const hasTies = tieGroupSizes.some((size) => size > 1);
  const small = Math.min(n1, n2);
  const exactWork = (n1 * n2) ** 2 / 4;
  const method: MannWhitneyMethod = small <= 8 && !hasTies && exactWork <= EXACT_WORK_LIMIT ? 'exact' : 'asymptotic';
  const oneSided = method === 'exact' ? exactUpperTail(Math.round(u), n1, n2) : asymptoticUpperTail(u, n1, n2, tieGroupSizes);
  return { u1, pValue: Math.min(1, Math.max(0, 2 * oneSided)), method, n1, n2 };
}

function asymptoticUpperTail(u: number, n1: number, n2: number, tieGroupSizes: readonly number[]): number {
  const n = n1 + n2;
  const tieTerm = tieGroupSizes.reduce((sum, t) => sum + (t ** 3 - t), 0);
  const variance = ((n1 * n2) / 12) * (n + 1 - tieTerm / (n * (n - 1)));
  // All values tied: no evidence either way.
  if (!(variance > 0)) return 0.5;
  const z = (u - (n1 * n2) / 2 - 0.5) / Math.sqrt(variance);
  return normalSurvival(z);
}

/** P(U >= u) under the null hypothesis, from the exact count of rank arrangements. */
function exactUpperTail(u: number, n1: number, n2: number): number {
  const counts = exactUCounts(n1, n2);
  let total = 0;
  let tail = 0;
  for (let k = 0; k < counts.length; k += 1) {
    total += counts[k]!;
    if (k >= u) tail += counts[k]!;
  }
  return tail / total;
}

/**
 * The exact null distribution of U without ties: counts[k] = number of arrangements of n1 x's and
 * n2 y's with U = k, k = 0..n1*n2 (symmetric in n1, n2; the counts sum to C(n1+n2, n1)).
 * Recurrence on the largest value: an x above all j y's adds j to U, a y adds nothing:
 * f(i,j,k) = f(i-1,j,k-j) + f(i,j-1,k). Rows are kept for the smaller sample only, so memory
 * stays at about small^2 * large numbers. Also behind the exact Hodges–Lehmann interval.
 */
export function exactUCounts(n1: number, n2: number): Float64Array {
  const small = Math.min(n1, n2);
  const large = Math.max(n1, n2);
  // rows[i] holds f(i, j, .) for the current j; with j = 0 only U = 0 is possible.
  let rows: Float64Array[] = Array.from({ length: small + 1 }, () => Float64Array.of(1));
  for (let j = 1; j <= large; j += 1) {
    const next: Float64Array[] = [Float64Array.of(1)];
    for (let i = 1; i <= small; i += 1) {
      const row = new Float64Array(i * j + 1);
      row.set(rows[i]!);
      const withXOnTop = next[i - 1]!;
      for (let k = 0; k < withXOnTop.length; k += 1) row[k + j] = row[k + j]! + withXOnTop[k]!;
      next.push(row);
    }
    rows = next;
  }
  return rows[small]!;
}

/**
 * Samples sorted ascending, finite, at least one: the only input `quantile` takes, so a quantile
 * can never be taken of unsorted or empty samples. Build with `sortSamples`.
 */
export type SortedSamples = NonEmptyArray<number> & { readonly __sorted: unique symbol };

/** Sorted copy of the finite values; null when none is left (nothing to take a quantile of). */
export function sortSamples(values: readonly (number | null | undefined)[]): SortedSamples | null {
  const finite = values.filter((value): value is number => typeof value === 'number' && Number.isFinite(value));
  if (finite.length === 0) return null;
  return finite.sort((a, b) => a - b) as unknown as SortedSamples;
}

/**
 * The quantile of the harness (one definition everywhere): linear interpolation between closest
 * ranks, numpy's default. q in [0, 1]; q = 1 is the maximum.
 * @example quantile(sortSamples([4, 1, 3, 2])!, 0.95) // 3.85
 */
export function quantile(sorted: SortedSamples, q: number): number {
  if (!(q >= 0 && q <= 1)) throw new RangeError(`quantile q must be within [0, 1]; got ${q}`);
  const position = (sorted.length - 1) * q;
  const lower = Math.floor(position);
  const fraction = position - lower;
  const low = sorted[lower]!;
  return fraction === 0 ? low : low + (sorted[lower + 1]! - low) * fraction;
}

/** The quantile `q` of the finite values among `values`; null when there is none (a figure not measured). */
export function quantileOf(values: readonly (number | null | undefined)[], q: number): number | null {
  const sorted = sortSamples(values);
  return sorted && quantile(sorted, q);
}

export function median(values: NonEmptyArray<number>): number {
  return quantile(sortSamples(values)!, 0.5);
}
