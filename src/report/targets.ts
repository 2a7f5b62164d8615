/**
 * Every target of a run, checked (pure): the targets the results declare (recovery, proxy and
 * harness overhead, ...) and the specification's targets of the key metrics where a result did
 * not declare its own. The verdict, the report and the terminal count the same list.
 */
import type { KeyMetric } from '../results/keyMetrics';
import type { RawResult } from '../results/rawResult';
import { configurationLabel, familyTitle, recoveryScenarioLabel, varyingParameterKeys } from './configurations';
import { targetMet } from './familyTables';
import { isRecoveryScenario } from './recoveryFloor';
import { formatValue, humanizeMetricName } from './format';

export interface TargetCheck {
  /** `TCP reset · 50 threads`, `Publish throughput (100 threads · plain)`. */
  readonly subject: string;
  readonly metric: string;
  readonly value: number | null;
  readonly unit: string;
  readonly comparator: '<' | '>';
  readonly threshold: number;
  /** null: no value to judge, or not scored on purpose (then `reason` says why). */
  readonly met: boolean | null;
  /** Why a target was left unscored (e.g. the figure is an upper bound, not the fault it is about), or why it is inconclusive. */
  readonly reason?: string;
  /** Its interval neither within nor beyond the target (noise alone never makes a miss). */
  readonly inconclusive?: boolean;
  /** A harness/bare witness whose two sides did different work: neither met nor missed (`reason` gives each side's figures). */
  readonly differ?: boolean;
}

/** Who a result is, in a sentence: recovery scenarios by their short name, others by family and distinguishing parameters. */
export function resultSubject(result: RawResult, family: readonly RawResult[]): string {
  if (isRecoveryScenario(result)) return recoveryScenarioLabel(result, family);
  const varying = varyingParameterKeys(family);
  return varying.length === 0 ? familyTitle(result.name) : `${familyTitle(result.name)} (${configurationLabel(result, varying)})`;
}

export function targetChecks(results: readonly RawResult[], keyMetrics: readonly KeyMetric[]): TargetCheck[] {
  const familyOf = (name: string) => results.filter((result) => result.name === name);
  const checks: TargetCheck[] = [];
  for (const result of results) {
    for (const target of result.targets ?? []) {
      const value = result.metrics[target.metric]?.value ?? null;
      checks.push({
        subject: resultSubject(result, familyOf(result.name)),
        metric: target.metric,
        value,
        unit: target.unit,
        comparator: target.comparator,
        threshold: target.threshold,
        met: targetMet(result, target.metric),
        ...(target.reason === undefined ? {} : { reason: target.reason }),
        ...(target.verdict === 'inconclusive' ? { inconclusive: true } : target.verdict === 'differ' ? { differ: true } : {}),
      });
    }
  }
  for (const keyMetric of keyMetrics) {
    if (keyMetric.target === null) continue;
    const result = results.find(
      (candidate) =>
        candidate.name === keyMetric.result_name && JSON.stringify(candidate.parameters) === JSON.stringify(keyMetric.parameters),
    );
    if (result?.targets?.some((target) => target.metric === keyMetric.metric)) continue;
    checks.push({
      subject: result ? resultSubject(result, familyOf(result.name)) : familyTitle(keyMetric.result_name),
      metric: keyMetric.metric,
      value: keyMetric.value,
      unit: keyMetric.unit,
      comparator: keyMetric.target.comparator,
      threshold: keyMetric.target.threshold,
      met: keyMetric.met,
      ...(keyMetric.met_reason ? { reason: keyMetric.met_reason } : {}),
      ...(keyMetric.met_reason?.startsWith('inconclusive') ? { inconclusive: true } : {}),
    });
  }
  return checks;
}

/**
 * Whether a result's figure met its target: the one the result declares, else the specification's
 * target of the key metric it is (so the first screen marks exactly what the verdict counts).
 */
export function figureMet(result: RawResult, metric: string, keyMetrics: readonly KeyMetric[]): boolean | null {
  const declared = targetMet(result, metric);
  if (declared !== null || result.targets?.some((target) => target.metric === metric)) return declared;
  const key = keyMetrics.find(
    (candidate) =>
      candidate.result_name === result.name &&
      candidate.metric === metric &&
      JSON.stringify(candidate.parameters) === JSON.stringify(result.parameters),
  );
  return key?.met ?? null;
}

/** `TCP reset · 50 threads: detection (first thread) 12.3 ms, target < 10 ms`. */
export function describeCheck(check: TargetCheck): string {
  const name = humanizeMetricName(check.metric).replace(/^[A-Z](?=[a-z])/, (letter) => letter.toLowerCase());
  return `${check.subject}: ${name} ${formatValue(check.value, check.unit)}, target ${check.comparator} ${formatValue(check.threshold, check.unit)}`;
}
