/**
 * A target with its verdict on an interval (pure): the figure's independent repetitions (the
 * replicates of a result, the pairs of a harness/bare check; one value when there is nothing
 * else) give the median's interval, and the target is met when all of it is within, missed when
 * all of it lies beyond (three repetitions at least), inconclusive otherwise — said as such, with
 * the interval. A target left unscored on purpose (an upper bound, another fault) stays so.
 *
 * A harness/bare witness has one more way to end: its two sides may have done different work (a
 * ratio far from 100% says that, not that the harness is free or slow), and then it is neither met
 * nor missed: `differ`, with each side's figures in the reason.
 */
import { describeInterval, judgeInterval, medianInterval } from '../measure/intervals';
import { isNonEmpty, median } from '../measure/statistics';
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

/**
 * How far a witness's harness/bare ratio may be from 100% and still compare like with like: below
 * `lowPercent` or above `highPercent` the two sides did different work.
 */
export interface SideBySideBand {
  readonly lowPercent: number;
  readonly highPercent: number;
}

/** The band of the recovery witness: 80–125% (a quarter either way, as a ratio: 0.8 = 1 / 1.25). */
export const SIDE_BY_SIDE_BAND: SideBySideBand = { lowPercent: 80, highPercent: 125 };

/**
 * A harness/bare ratio's target: `differ` (met null, never met) when the median of the pairs'
 * ratios lies outside `band`, with `sidesInWords` (each side's figures) in the reason; otherwise
 * judged on the pairs' interval as any target.
 * @param ratios each pair's harness / bare x 100
 */
export function judgedSideBySide(spec: TargetSpec, ratios: readonly (number | null)[], band: SideBySideBand, sidesInWords: string): Target {
  const values = ratios.filter((value): value is number => value !== null && Number.isFinite(value));
  if (!isNonEmpty(values)) return judgedTarget(spec, values);
  const ratio = median(values);
  if (ratio >= band.lowPercent && ratio <= band.highPercent) return judgedTarget(spec, values);
  const interval = medianInterval(values)!;
  const rounded = Math.round(ratio * 10) / 10;
  return {
    metric: spec.metric,
    comparator: spec.comparator,
    threshold: spec.threshold,
    unit: spec.unit,
    met: null,
    verdict: 'differ',
    interval,
    reason: `the two sides differ: ratio ${rounded}% is outside ${band.lowPercent}–${band.highPercent}%, so they did different work; ${sidesInWords}`,
  };
}

/** A target's verdict in the words every line uses (progress line, verification, JUnit property). */
export type TargetVerdictWord = 'met' | 'missed' | 'inconclusive' | 'differ' | 'no value' | 'not scored';

/**
 * The one reading of a target's verdict: its interval verdict when it has one, else `met`; null
 * with a reason is `not scored` (left so on purpose), null without one is `no value`.
 */
export function targetVerdictWord(target: Target): TargetVerdictWord {
  if (target.verdict !== undefined) return target.verdict;
  if (target.met !== null) return target.met ? 'met' : 'missed';
  return target.reason === undefined ? 'no value' : 'not scored';
}

/** `target < 110%: met`, `target > 90%: inconclusive`, `target < 110%: the two sides differ` (for progress lines). */
export function describeTargetVerdict(target: Target): string {
  const word = targetVerdictWord(target);
  const unit = target.unit === '%' ? '%' : ` ${target.unit}`;
  return `target ${target.comparator} ${target.threshold}${unit}: ${word === 'differ' ? 'the two sides differ' : word}`;
}
