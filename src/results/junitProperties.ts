/**
 * The key figures of a test's raw results as JUnit `<property>` elements (name -> value), so CI
 * dashboards that read junit.xml see them beside pass/fail. Pure.
 */
import { describeParameters } from './keyMetrics';
import type { RawResult } from './rawResult';
import { targetVerdictWord } from './targetVerdict';
import { sameTest } from './testMatch';

/**
 * One property per metric with a value (`<metric>` = `<value> <unit>`), plus each target's
 * verdict (`target.<metric>` = `< 10 ms: met`). With several results from one test, names are
 * prefixed by `<result>[<parameters>].`.
 */
export function junitPropertiesFor(
  test: { readonly file?: string; readonly ancestorTitles: readonly string[]; readonly title: string },
  results: readonly RawResult[],
): Record<string, string> {
  const own = results.filter((result) => sameTest(result.test_id, test));
  const properties: Record<string, string> = {};
  for (const result of own) {
    const prefix = own.length > 1 ? `${result.name}[${describeParameters(result.parameters)}].` : '';
    if (own.length === 1) properties.result = result.name;
    for (const [name, metric] of Object.entries(result.metrics)) {
      if (metric.value === null) continue;
      properties[`${prefix}${name}`] =
        `${Number(metric.value.toPrecision(6))}${metric.unit && metric.unit !== 'count' ? ` ${metric.unit}` : ''}`;
    }
    for (const target of result.targets ?? []) {
      const word = targetVerdictWord(target);
      const verdict = word === 'differ' ? 'the two sides differ' : word === 'not scored' ? 'no value' : word;
      properties[`${prefix}target.${target.metric}`] = `${target.comparator} ${target.threshold} ${target.unit}: ${verdict}`;
    }
    if (result.samples) {
      for (const [name, samples] of Object.entries(result.samples)) properties[`${prefix}samples.${name}`] = String(samples.length);
    }
  }
  return properties;
}
