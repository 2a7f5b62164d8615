/**
 * What a verification says (pure): the witnesses' targets as checks, the capture check's
 * summary, and the verdict of the whole — sound only when every check met and the capture agreed.
 */
import type { RawResult, Target } from '../results/rawResult';
import { targetVerdictWord } from '../results/targetVerdict';
import type { Verification, VerificationCheck } from '../results/verifications';
import { parametersText } from '../report/configurations';
import { descriptorOf } from '../scenarios/catalogue';
import type { ReplicateCheck } from './capture';

/** Every target of every witness result, in the order of the results. */
export function witnessChecks(results: readonly RawResult[]): VerificationCheck[] {
  return results
    .filter((result) => descriptorOf(result).role === 'witness')
    .flatMap((result) =>
      (result.targets ?? []).map((target) => ({
        witness: result.name,
        label: descriptorOf(result).label,
        metric: target.metric,
        configuration: parametersText(result.parameters),
        comparator: target.comparator,
        threshold: target.threshold,
        unit: target.unit,
        value: result.metrics[target.metric]?.value ?? null,
        verdict: checkVerdict(target, result.metrics[target.metric]?.value ?? null),
        ...(target.reason === undefined ? {} : { detail: target.reason }),
        interval: target.interval
          ? { low: target.interval.low, high: target.interval.high, confidence: target.interval.confidence, n: target.interval.n }
          : null,
      })),
    );
}

/** The target's verdict as a check's: a value left unscored is inconclusive here, a target without one has no value. */
function checkVerdict(target: Target, value: number | null): VerificationCheck['verdict'] {
  const word = targetVerdictWord(target);
  if (word === 'not scored') return value === null ? 'no value' : 'inconclusive';
  if (word === 'no value' && value !== null) return 'inconclusive';
  return word;
}

/**
 * How far apart the two sides may be and still agree: each injection's median connection within
 * 1 ms, and the fault spread within 5 ms. A single connection may be later by a few ms (the proxy
 * preempted between its stamp and the send): reported, not judged.
 */
export const CAPTURE_MEDIAN_TOLERANCE_MS = 1;
export const CAPTURE_SPREAD_TOLERANCE_MS = 5;

/** The capture check's summary over every replicate of every result with a fault timeline. */
export function captureVerdict(replicates: readonly ReplicateCheck[]): Verification['capture'] {
  const checked = replicates.filter((one) => one.skipped === undefined);
  if (checked.length === 0)
    return { status: 'disagreed', detail: 'no result with a fault timeline to check (did the reset_peer scenario run?)' };
  const connections = checked.reduce((sum, one) => sum + (one.connections ?? 0), 0);
  const missing = checked.reduce((sum, one) => sum + (one.missing?.length ?? 0), 0);
  const worst = Math.max(...checked.map((one) => one.max_abs_diff_ms ?? 0));
  const spread = Math.max(...checked.map((one) => Math.abs(one.spread_diff_ms ?? 0)));
  const medians = checked.map((one) => one.median_diff_ms).filter((value): value is number => value !== undefined);
  const worstMedian = medians.length === 0 ? Number.POSITIVE_INFINITY : Math.max(...medians.map(Math.abs));
  const words =
    `${checked.length} injection(s), ${connections} connection(s), ${connections - missing} found in the capture; ` +
    `median connection ${medians.length > 0 ? `${Math.min(...medians)} to ${Math.max(...medians)} ms` : 'n/a'} after the timeline (largest single difference ${worst} ms); ` +
    `fault spreads within ${spread} ms`;
  const problems = [
    ...(missing > 0 ? [`${missing} connection(s) without an RST in the capture`] : []),
    ...(worstMedian > CAPTURE_MEDIAN_TOLERANCE_MS ? [`a median beyond ${CAPTURE_MEDIAN_TOLERANCE_MS} ms`] : []),
    ...(spread > CAPTURE_SPREAD_TOLERANCE_MS ? [`a spread beyond ${CAPTURE_SPREAD_TOLERANCE_MS} ms`] : []),
  ];
  return {
    status: problems.length === 0 ? 'agreed' : 'disagreed',
    detail: problems.length === 0 ? words : `${words} (${problems.join('; ')})`,
    max_difference_ms: worst,
    connections,
  };
}

/**
 * sound: every check met and the capture agreed (or was skipped on purpose); unsound: a miss or a
 * disagreement; inconclusive: an interval straddles its target, or a witness's two sides differ.
 */
export function verificationVerdict(
  checks: readonly VerificationCheck[],
  capture: Verification['capture'],
  aa: Verification['aa'],
  expectedWitnesses: boolean,
): Verification['verdict'] {
  if (checks.some((check) => check.verdict === 'missed') || capture.status === 'disagreed' || aa?.passed === false) return 'unsound';
  if ((expectedWitnesses && checks.length === 0) || checks.some((check) => check.verdict === 'no value')) return 'incomplete';
  // Two sides that did different work say nothing either way: not sound, not a miss.
  if (checks.some((check) => check.verdict === 'inconclusive' || check.verdict === 'differ')) return 'inconclusive';
  return 'sound';
}
