/**
 * A target with its verdict on an interval (pure): the figure's independent repetitions (the
 * replicates of a result, the pairs of a harness/bare check; one value when there is nothing
 * else) give the median's interval, and the target is met when all of it is within, missed when
 * all of it lies beyond (three repetitions at least), inconclusive otherwise — said as such, with
 * the interval. A target left unscored on purpose (an upper bound, another fault) stays so.
 */
import { describeInterval, judgeInterval, medianInterval } from '../measure/intervals';
import type { Target } from './rawResult';

export interface TargetSpec {
  readonly metric: string;
  readonly comparator: '<' | '>';
  readonly threshold: number;
  readonly unit: string;
}

/**
 * @param repetitions the figure's independent repetitions (empty or absent: none; the target has no value)
 * @param notScoredBecause leaves the target unscored on purpose, whatever the values
 */
export function judgedTarget(spec: TargetSpec, repetitions: readonly (number | null)[] | undefined, notScoredBecause?: string): Target {
  const base = { metric: spec.metric, comparator: spec.comparator, threshold: spec.threshold, unit: spec.unit };
  const values = (repetitions ?? []).filter((value): value is number => value !== null && Number.isFinite(value));
  const interval = medianInterval(values);
  if (interval === null) return { ...base, met: null };
  if (notScoredBecause !== undefined) return { ...base, met: null, reason: notScoredBecause };
  const verdict = judgeInterval(interval, spec.comparator, spec.threshold);
  if (verdict !== 'inconclusive') return { ...base, met: verdict === 'met', verdict, interval };
  const why =
    interval.n < 3
      ? `beyond the target in ${interval.n === 1 ? 'its one measurement' : 'one of 2 measurements'}: a miss needs 3+ repetitions whose interval lies beyond it`
      : 'its interval straddles the target';
  return { ...base, met: null, verdict, interval, reason: `inconclusive: ${describeInterval(interval, spec.unit)}; ${why}` };
}

/** The same target again on a combined figure's repetitions (a target left unscored on purpose stays so). */
export function rejudged(target: Target, repetitions: readonly (number | null)[] | undefined): Target {
  if (target.met === null && target.reason !== undefined && target.verdict !== 'inconclusive') return target;
  return judgedTarget(target, repetitions);
}
