/**
 * Results by category, one table per family (result name). Data-driven: any result renders,
 * known to us or not. Few parameter sets: one row per metric, one column per parameter set (reads
 * well for recovery's many metrics); many: one row per parameter set, one column per metric.
 */
import { resultCategories } from '../results/schemas';
import { compareResults, evaluateTarget } from '../results/keyMetrics';
import type { TestOutcome } from '../results/outcome';
import type { Category, RawResult } from '../results/rawResult';
import { shortParameters } from './labels';
import { formatNumber, formatValue, humanizeMetricName } from './format';
import { markdownTable } from './markdown';

export interface FamilyTable {
  readonly name: string;
  readonly title: string;
  readonly results_count: number;
  readonly table: string;
  readonly notes: readonly string[];
}

export interface CategorySection {
  readonly category: Category;
  readonly title: string;
  readonly families: readonly FamilyTable[];
}

const CATEGORY_TITLES: Readonly<Record<Category, string>> = {
  throughput: 'Throughput',
  scalability: 'Scalability',
  recovery: 'Recovery',
  stability: 'Stability',
  resilience: 'Network resilience',
  proxy: 'Proxy overhead',
};

/** Up to this many parameter sets, parameter sets are columns. */
const MAX_COLUMNS = 6;

export function buildCategorySections(results: readonly RawResult[], tests: readonly TestOutcome[]): CategorySection[] {
  return resultCategories()
    .map((category) => {
      const inCategory = results.filter((result) => result.category === category);
      const names = [...new Set(inCategory.map((result) => result.name))].sort();
      const families = names.map((name) =>
        familyTable(name, inCategory.filter((result) => result.name === name).sort(compareResults), tests),
      );
      return { category, title: CATEGORY_TITLES[category], families };
    })
    .filter((section) => section.families.length > 0);
}

function familyTable(name: string, results: readonly RawResult[], tests: readonly TestOutcome[]): FamilyTable {
  const metricNames = [...new Set(results.flatMap((result) => Object.keys(result.metrics)))];
  const labels = results.map((result) => columnLabel(result, tests));
  const table =
    results.length <= MAX_COLUMNS
      ? markdownTable(
          ['Metric', ...labels],
          metricNames.map((metric) => [humanizeMetricName(metric), ...results.map((result) => cellWithTarget(result, metric, true))]),
          [false, ...labels.map(() => true)],
        )
      : markdownTable(
          [
            'Parameters',
            ...metricNames.map((metric) =>
              humanizeMetricName(metric).endsWith(')')
                ? humanizeMetricName(metric)
                : `${humanizeMetricName(metric)} (${unitOf(results, metric)})`,
            ),
          ],
          results.map((result, index) => [labels[index]!, ...metricNames.map((metric) => cellWithTarget(result, metric, false))]),
          [false, ...metricNames.map(() => true)],
        );
  // A note every result shares is said once; the others say which parameter set they belong to.
  const shared = (note: string) => results.every((result) => result.notes?.includes(note));
  const notes = [
    ...new Set(
      results.flatMap((result) =>
        (result.notes ?? []).map((note) => (results.length > 1 && !shared(note) ? `${shortParameters(result.parameters)}: ${note}` : note)),
      ),
    ),
  ];
  return { name, title: name.replace(/_/g, ' '), results_count: results.length, table, notes };
}

/** Parameters, plus a mark when the test that wrote the result failed. */
function columnLabel(result: RawResult, tests: readonly TestOutcome[]): string {
  const label = Object.keys(result.parameters).length > 0 ? shortParameters(result.parameters) : 'result';
  const test = tests.find((outcome) => outcome.test_id === result.test_id);
  return test?.status === 'failed' ? `${label} (test failed)` : label;
}

function unitOf(results: readonly RawResult[], metric: string): string {
  const unit = results.find((result) => result.metrics[metric])?.metrics[metric]!.unit ?? '';
  return unit === 'count' ? 'count' : unit;
}

/** `3.2 ms ✅` / `12.5 ms ❌` where a target applies; `(n=10)` when samples back the figure. */
function cellWithTarget(result: RawResult, metricName: string, withUnit: boolean): string {
  const metric = result.metrics[metricName];
  if (!metric) return '';
  const text = withUnit ? formatValue(metric.value, metric.unit) : metric.value === null ? '—' : formatNumber(metric.value);
  const target = result.targets?.find((candidate) => candidate.metric === metricName);
  // A target left unscored on purpose (an upper bound, not the fault it is about) stays unscored.
  const met = target ? (target.met ?? (target.reason === undefined ? evaluateTarget(metric.value, target) : null)) : null;
  const mark = met === true ? ' ✅' : met === false ? ' ❌' : '';
  const samples = result.samples?.[metricName]?.length;
  return `${text}${mark}${withUnit && samples ? ` (n=${samples})` : ''}`;
}
