/**
 * The distributions the comparison needs beyond the normal tail of statistics.ts: the normal
 * quantile and Student's t (tail and quantile), through the regularized incomplete beta
 * function. Pure; pinned in tests to scipy.stats (norm.ppf, t.sf, t.ppf) to 1e-10 or better.
 */
import { normalSurvival } from './statistics';

/** ln Γ(x) for x > 0, Lanczos approximation (g = 7, 9 terms): about 1e-15 relative. */
export function logGamma(x: number): number {
  if (!(x > 0)) throw new RangeError(`logGamma needs x > 0; got ${x}`);
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x);
  const c = [
    0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059, 12.507343278686905,
    -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
  ];
  const z = x - 1;
  let sum = c[0]!;
  for (let k = 1; k < c.length; k += 1) sum += c[k]! / (z + k);
  const t = z + 7.5;
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(sum);
}

/**
 * I_x(a, b), the regularized incomplete beta function, by its continued fraction (modified
 * Lentz), using the symmetry I_x(a, b) = 1 - I_{1-x}(b, a) where the fraction converges slowly.
 */
export function regularizedIncompleteBeta(x: number, a: number, b: number): number {
  if (!(x >= 0 && x <= 1)) throw new RangeError(`regularizedIncompleteBeta needs x in [0, 1]; got ${x}`);
  if (x === 0 || x === 1) return x;
  const front = Math.exp(logGamma(a + b) - logGamma(a) - logGamma(b) + a * Math.log(x) + b * Math.log1p(-x));
  if (x > (a + 1) / (a + b + 2)) return 1 - (front * betaContinuedFraction(1 - x, b, a)) / b;
  return (front * betaContinuedFraction(x, a, b)) / a;
}

function betaContinuedFraction(x: number, a: number, b: number): number {
  const tiny = 1e-300;
  let c = 1;
  let d = 1 - ((a + b) * x) / (a + 1);
  d = Math.abs(d) < tiny ? tiny : d;
  d = 1 / d;
  let f = d;
  for (let m = 1; m <= 1000; m += 1) {
    const even = (m * (b - m) * x) / ((a + 2 * m - 1) * (a + 2 * m));
    d = 1 + even * d;
    d = Math.abs(d) < tiny ? tiny : d;
    c = 1 + even / c;
    c = Math.abs(c) < tiny ? tiny : c;
    d = 1 / d;
    f *= d * c;
    const odd = -((a + m) * (a + b + m) * x) / ((a + 2 * m) * (a + 2 * m + 1));
    d = 1 + odd * d;
    d = Math.abs(d) < tiny ? tiny : d;
    c = 1 + odd / c;
    c = Math.abs(c) < tiny ? tiny : c;
    d = 1 / d;
    const delta = d * c;
    f *= delta;
    if (Math.abs(delta - 1) < 1e-16) break;
  }
  return f;
}

/** P(T >= t) for Student's t with `degreesOfFreedom` (> 0, not necessarily whole). */
export function studentTSurvival(t: number, degreesOfFreedom: number): number {
  if (!(degreesOfFreedom > 0)) throw new RangeError(`Student's t needs degrees of freedom > 0; got ${degreesOfFreedom}`);
  if (Number.isNaN(t)) return Number.NaN;
  if (t === Infinity) return 0;
  if (t === -Infinity) return 1;
  const tail = 0.5 * regularizedIncompleteBeta(degreesOfFreedom / (degreesOfFreedom + t * t), degreesOfFreedom / 2, 0.5);
  return t >= 0 ? tail : 1 - tail;
}

/**
 * The p-quantile of Student's t (0 < p < 1): bisection on the tail to the last representable
 * step (the tail is monotone, so this cannot miss; ~1e-15 relative).
 * @example studentTQuantile(0.975, 4) // 2.7764451051977934
 */
export function studentTQuantile(p: number, degreesOfFreedom: number): number {
  return invertSurvival(p, (x) => studentTSurvival(x, degreesOfFreedom), 'studentTQuantile');
}

/**
 * The p-quantile of the standard normal distribution (0 < p < 1).
 * @example normalQuantile(0.975) // 1.959963984540054
 */
export function normalQuantile(p: number): number {
  return invertSurvival(p, normalSurvival, 'normalQuantile');
}

/** x with survival(x) = 1 - p, for a decreasing survival function of a distribution symmetric around 0. */
function invertSurvival(p: number, survival: (x: number) => number, name: string): number {
  if (!(p > 0 && p < 1)) throw new RangeError(`${name} needs p strictly between 0 and 1; got ${p}`);
  if (p === 0.5) return 0;
  // Symmetric: solve in the upper tail, where the survival function keeps its precision.
  const upper = Math.min(p, 1 - p);
  let low = 0;
  let high = 1;
  while (survival(high) > upper) high *= 2;
  for (let step = 0; step < 200; step += 1) {
    const middle = (low + high) / 2;
    if (middle === low || middle === high) break;
    if (survival(middle) > upper) low = middle;
    else high = middle;
  }
  const x = (low + high) / 2;
  return p > 0.5 ? x : -x;
}
