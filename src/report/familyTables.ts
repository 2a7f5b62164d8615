/**
 * The detail tables of one family of results (pure), configurations as rows, each table at most
 * 100 columns of Markdown: the figures as columns, spread over as many tables as that takes;
 * percentiles of one quantity (p50 … max) together in a table of their own. A family with one
 * configuration reads as a list instead (figure, value; percentiles on one line).
 */
import { evaluateTarget } from '../results/keyMetrics';
import type { RawResult } from '../results/rawResult';
import { configurationLabel, varyingParameterKeys } from './configurations';
import { formatNumber, formatValue, humanizeMetricName } from './format';
import { markdownTable, tableWidth } from './markdown';
import { scenarioOfMetric } from './metricNames';

/** The widest a detail table's Markdown may be: it then fits a docs page and a terminal. */
export const MAX_TABLE_WIDTH = 100;

const STAT_ORDER = ['min', 'median', 'mean', 'p50', 'p90', 'p95', 'p99', 'p999', 'max', 'samples'];
const STAT_METRIC = /^(.+)_(min|median|mean|p\d+|max|samples)(?:_ms)?$/;

interface Column {
  readonly metric: string;
  readonly header: string;
  /** The header names the unit (rates), so cells show the number alone. */
  readonly unitInHeader: boolean;
}

interface StatGroup {
  readonly stem: string;
  readonly title: string;
  readonly stats: readonly { readonly stat: string; readonly metric: string }[];
}

export interface FamilyRow {
  readonly label: string;
  readonly result: RawResult;
}

/** Metric names in first-seen order, split into single figures and percentile groups (two or more statistics of one stem). */
export function layoutMetrics(results: readonly RawResult[]): { singles: string[]; groups: StatGroup[] } {
  const names = [...new Set(results.flatMap((result) => Object.keys(result.metrics)))];
  const byStem = new Map<string, { stat: string; metric: string }[]>();
  for (const name of names) {
    const match = STAT_METRIC.exec(name);
    if (!match) continue;
    byStem.set(match[1]!, [...(byStem.get(match[1]!) ?? []), { stat: match[2]!, metric: name }]);
  }
  const groups: StatGroup[] = [...byStem.entries()]
    .filter(([, stats]) => stats.length >= 2)
    .map(([stem, stats]) => ({
      stem,
      title: humanizeMetricName(stem),
      stats: [...stats].sort((a, b) => statRank(a.stat) - statRank(b.stat)),
    }));
  const grouped = new Set(groups.flatMap((group) => group.stats.map((stat) => stat.metric)));
  const directionOf = (name: string) => results.find((result) => result.metrics[name])?.metrics[name]!.direction;
  // Judged figures (higher/lower is better) first, then the counts that only describe.
  const singles = names.filter((name) => !grouped.has(name));
  singles.sort((a, b) => Number(directionOf(a) === 'none') - Number(directionOf(b) === 'none'));
  return { singles, groups };
}

function statRank(stat: string): number {
  const index = STAT_ORDER.indexOf(stat);
  return index >= 0 ? index : STAT_ORDER.indexOf('p50') + 0.5;
}

function columnOf(metric: string): Column {
  const header = humanizeMetricName(metric);
  return { metric, header, unitInHeader: /\((msg\/s|MB\/s)\)$/.test(header) };
}

/**
 * Whether the result met the target it declares for this metric; null without a target or a
 * value, and null for a target left unscored on purpose (it has a `reason`: never re-scored here).
 */
export function targetMet(result: RawResult, metricName: string): boolean | null {
  const target = result.targets?.find((candidate) => candidate.metric === metricName);
  if (!target) return null;
  if (target.met !== null) return target.met;
  return target.reason === undefined ? evaluateTarget(result.metrics[metricName]?.value ?? null, target) : null;
}

/** ` ✅` met, ` ❌` missed, ` ➖` inconclusive (its interval straddles the target), ` ≠` two sides that differ, or nothing. */
export function targetMark(result: RawResult, metricName: string, met: boolean | null = targetMet(result, metricName)): string {
  if (met !== null) return met ? ' ✅' : ' ❌';
  const verdict = result.targets?.find((target) => target.metric === metricName)?.verdict;
  return verdict === 'inconclusive' ? ' ➖' : verdict === 'differ' ? ' ≠' : '';
}

/** `3.2 ms ✅` / `12.5 ❌` where a target applies; `(n=10)` when samples back the figure and the header does not say so. */
export function cell(result: RawResult, metricName: string, options: { unit: boolean; samples: boolean }): string {
  const metric = result.metrics[metricName];
  if (!metric) return '';
  const text = options.unit ? formatValue(metric.value, metric.unit) : metric.value === null ? '—' : formatNumber(metric.value);
  const mark = targetMark(result, metricName);
  const samples = result.samples?.[metricName]?.length;
  return `${text}${mark}${options.samples && samples ? ` (n=${samples})` : ''}`;
}

/** The sample count every row shares for this figure, if they all share one. */
function sharedSampleCount(rows: readonly FamilyRow[], metric: string): number | null {
  const counts = new Set(rows.map((row) => row.result.samples?.[metric]?.length ?? 0));
  const [only] = [...counts];
  return counts.size === 1 && only ? only : null;
}

/**
 * Tables of `first column + some of the columns`, each at most MAX_TABLE_WIDTH wide, as few as
 * the columns need, the columns shared out evenly (two and two rather than three and one).
 */
function packColumns(
  firstHeader: string,
  rows: readonly FamilyRow[],
  columns: readonly { header: string; cells: readonly string[] }[],
): string[] {
  const build = (chosen: typeof columns): string =>
    markdownTable(
      [firstHeader, ...chosen.map((column) => column.header)],
      rows.map((row, index) => [row.label, ...chosen.map((column) => column.cells[index]!)]),
      [false, ...chosen.map(() => true)],
    );
  const greedy: (typeof columns)[] = [];
  let start = 0;
  while (start < columns.length) {
    let end = start + 1;
    while (end < columns.length && tableWidth(build(columns.slice(start, end + 1))) <= MAX_TABLE_WIDTH) end += 1;
    greedy.push(columns.slice(start, end));
    start = end;
  }
  const perTable = Math.ceil(columns.length / Math.max(1, greedy.length));
  const even = Array.from({ length: greedy.length }, (_, index) => columns.slice(index * perTable, (index + 1) * perTable)).filter(
    (chunk) => chunk.length > 0,
  );
  const chunks = even.every((chunk) => tableWidth(build(chunk)) <= MAX_TABLE_WIDTH) ? even : greedy;
  return chunks.map(build);
}

/** Several configurations: rows are configurations, in tables of at most MAX_TABLE_WIDTH columns. */
function wideTables(rows: readonly FamilyRow[], results: readonly RawResult[]): string[] {
  const { singles, groups } = layoutMetrics(results);
  const columns = singles.map(columnOf).map((column) => {
    const shared = sharedSampleCount(rows, column.metric);
    return {
      header:
        shared === null
          ? column.header
          : column.header.endsWith(')')
            ? `${column.header.slice(0, -1)}, n=${shared})`
            : `${column.header} (n=${shared})`,
      cells: rows.map((row) => cell(row.result, column.metric, { unit: !column.unitInHeader, samples: shared === null })),
    };
  });
  const tables = packColumns('Configuration', rows, columns);
  for (const group of groups) {
    const unit = results.find((result) => result.metrics[group.stats[0]!.metric])?.metrics[group.stats[0]!.metric]!.unit ?? '';
    const statColumns = group.stats.map(({ stat, metric }) => ({
      header: stat,
      cells: rows.map((row) => cell(row.result, metric, { unit: false, samples: false })),
    }));
    tables.push(...packColumns(unit && unit !== 'count' ? `${group.title} (${unit})` : group.title, rows, statColumns));
  }
  return tables;
}

/** A grid of figure/value pairs, two pairs a row, read down the left pair then the right (at most MAX_TABLE_WIDTH wide). */
function figureGrid(pairs: readonly (readonly [string, string])[]): string {
  const half = Math.ceil(pairs.length / 2);
  const grid = markdownTable(
    ['Figure', 'Value', 'Figure', 'Value'],
    Array.from({ length: half }, (_, index) => [...pairs[index]!, ...(pairs[index + half] ?? ['', ''])]),
    [false, true, false, true],
  );
  if (pairs.length > 1 && tableWidth(grid) <= MAX_TABLE_WIDTH) return grid;
  return markdownTable(
    ['Figure', 'Value'],
    pairs.map((pair) => [...pair]),
    [false, true],
  );
}

/** Percentile groups of one configuration: a row per quantity, the statistics as columns. */
function statTable(result: RawResult, groups: readonly StatGroup[]): string {
  const stats = [...new Set(groups.flatMap((group) => group.stats.map((stat) => stat.stat)))].sort((a, b) => statRank(a) - statRank(b));
  const units = new Set(groups.map((group) => result.metrics[group.stats[0]!.metric]?.unit ?? ''));
  const unitOf = (group: StatGroup) => result.metrics[group.stats.find((stat) => stat.stat !== 'samples')?.metric ?? '']?.unit ?? '';
  const oneUnit = units.size === 1 ? [...units][0]! : null;
  return markdownTable(
    [oneUnit && oneUnit !== 'count' ? `Percentiles (${oneUnit})` : 'Percentiles', ...stats],
    groups.map((group) => [
      oneUnit ? group.title : `${group.title} (${unitOf(group)})`,
      ...stats.map((stat) => {
        const metric = group.stats.find((candidate) => candidate.stat === stat)?.metric;
        return metric ? cell(result, metric, { unit: false, samples: false }) : '';
      }),
    ]),
    [false, ...stats.map(() => true)],
  );
}

/** One configuration: its figures as a grid of figure/value pairs, its percentiles as a table. */
function singleConfigurationTables(result: RawResult): string[] {
  const { singles, groups } = layoutMetrics([result]);
  const tables: string[] = [];
  if (singles.length > 0) {
    tables.push(
      figureGrid(singles.map((metric) => [humanizeMetricName(metric), cell(result, metric, { unit: true, samples: true })] as const)),
    );
  }
  if (groups.length > 0) tables.push(statTable(result, groups));
  return tables;
}

/**
 * One configuration whose figures are per fault scenario (`rst_…`, `partition_…`): scenarios as
 * rows, the figures as columns. Undefined when not every figure belongs to a scenario.
 */
function scenarioTables(result: RawResult): string[] | undefined {
  const split = Object.keys(result.metrics).map((metric) => ({ metric, ...scenarioOfMetric(metric) }));
  if (split.some((entry) => entry.scenario === undefined)) return undefined;
  const scenarios = [...new Set(split.map((entry) => entry.scenario!))];
  const stems = [...new Set(split.map((entry) => entry.stem!))];
  if (scenarios.length < 2 || stems.length < 2) return undefined;
  const rows: FamilyRow[] = scenarios.map((scenario) => ({ label: scenario, result }));
  const columns = stems.map((stem) => ({
    header: humanizeMetricName(stem),
    cells: scenarios.map((scenario) => {
      const metric = split.find((entry) => entry.scenario === scenario && entry.stem === stem)?.metric;
      return metric ? cell(result, metric, { unit: true, samples: true }) : '';
    }),
  }));
  return packColumns('Scenario', rows, columns);
}

/** The family's tables, and the row label of each result (for notes that apply to some rows only). */
export function familyTables(results: readonly RawResult[], failedTestIds: ReadonlySet<string>): { tables: string[]; labels: string[] } {
  const varying = varyingParameterKeys(results);
  const rows: FamilyRow[] = results.map((result) => ({
    result,
    label: `${configurationLabel(result, varying)}${failedTestIds.has(result.test_id) ? ' (test failed)' : ''}`,
  }));
  const labels = rows.map((row) => row.label);
  if (results.length > 1) return { tables: wideTables(rows, results), labels };
  const only = results[0]!;
  return { tables: scenarioTables(only) ?? singleConfigurationTables(only), labels };
}
