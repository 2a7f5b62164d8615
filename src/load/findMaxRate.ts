/**
 * `--find-max-rate`: the highest rate that is achieved (≥ 99% of the intended rate) with an
 * end-to-end p99 within a stated bound of the unloaded p99. The search is pure over a `probe`
 * (one short load run at a rate): double from a start rate until a probe fails, then bisect
 * between the last pass and the first failure until they are within `resolution` of each other.
 */

export interface ProbeOutcome {
  readonly ratePerSecond: number;
  readonly achievedFraction: number | null;
  readonly e2eP99Ms: number | null;
}

export interface ProbeVerdict extends ProbeOutcome {
  readonly passed: boolean;
  /** Why it failed, in words; null when it passed. */
  readonly reason: string | null;
}

export interface MaxRateSearchOptions {
  /** p99 of the unloaded run (ms). */
  readonly unloadedP99Ms: number;
  /** A probe passes while its p99 ≤ unloaded p99 + this. */
  readonly p99BoundMs: number;
  /** @default 1000 */
  readonly startRatePerSecond: number;
  /** @default 200000 */
  readonly maxRatePerSecond: number;
  /** Stop bisecting when (fail - pass) / pass is below this. @default 0.05 */
  readonly resolution: number;
}

export const MIN_ACHIEVED_FRACTION = 0.99;

/** Whether one probe passes, and why not. */
export function judgeProbe(outcome: ProbeOutcome, options: Pick<MaxRateSearchOptions, 'unloadedP99Ms' | 'p99BoundMs'>): ProbeVerdict {
  const bound = options.unloadedP99Ms + options.p99BoundMs;
  let reason: string | null = null;
  if (outcome.achievedFraction === null || outcome.achievedFraction < MIN_ACHIEVED_FRACTION)
    reason = `achieved ${outcome.achievedFraction === null ? 'nothing' : `${(outcome.achievedFraction * 100).toFixed(2)}%`} of the rate (< 99%)`;
  else if (outcome.e2eP99Ms === null || outcome.e2eP99Ms > bound)
    reason = `e2e p99 ${outcome.e2eP99Ms ?? 'none'} ms > ${bound.toFixed(2)} ms (unloaded p99 ${options.unloadedP99Ms} + ${options.p99BoundMs})`;
  return { ...outcome, passed: reason === null, reason };
}

export interface MaxRateSearchResult {
  /** The highest rate that passed; null when even the start rate failed. */
  readonly maxRatePerSecond: number | null;
  readonly probes: readonly ProbeVerdict[];
}

/** Runs the search (probes one at a time). */
export async function searchMaxRate(
  probe: (ratePerSecond: number) => Promise<ProbeOutcome>,
  options: MaxRateSearchOptions,
): Promise<MaxRateSearchResult> {
  const probes: ProbeVerdict[] = [];
  const attempt = async (rate: number) => {
    const verdict = judgeProbe(await probe(rate), options);
    probes.push(verdict);
    return verdict.passed;
  };
  let passed: number | null = null;
  let failed: number | null = null;
  for (let rate = options.startRatePerSecond; rate <= options.maxRatePerSecond; rate *= 2) {
    if (await attempt(rate)) passed = rate;
    else {
      failed = rate;
      break;
    }
  }
  if (passed === null || failed === null) return { maxRatePerSecond: passed, probes };
  while ((failed - passed) / passed > options.resolution) {
    const middle = Math.round((passed + failed) / 2);
    if (await attempt(middle)) passed = middle;
    else failed = middle;
  }
  return { maxRatePerSecond: passed, probes };
}
