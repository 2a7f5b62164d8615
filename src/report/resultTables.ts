/**
 * The report's detail sections (pure): one per suite (a result's category), one table block per
 * family (result name), configurations as rows (familyTables.ts). Data-driven: any result renders,
 * known to us or not. Each note is said once: in its family, prefixed with the configurations it
 * is about when not about all of them; a note two families of a suite share, once for the suite.
 */
import type { TestOutcome } from '../results/outcome';
import type { RawResult } from '../results/rawResult';
import { compareResults } from '../results/keyMetrics';
import { SUITES, suiteOf } from '../scenarios/catalogue';
import type { SuiteDescriptor } from '../scenarios/types';
import { familyTitle, parametersText, parameterText, sharedParametersText, varyingParameterKeys } from './configurations';
import { familyTables } from './familyTables';
import { withDerivedFigures } from './metricNames';

export interface FamilyTable {
  /** The result name, e.g. `publish_throughput`. */
  readonly name: string;
  readonly title: string;
  readonly results_count: number;
  /** What every configuration of the family shares (`100 msgs/thread · rounds=5`); empty when nothing. */
  readonly parameters: string;
  /** One or more Markdown tables. */
  readonly tables: readonly string[];
  /** The tables joined, for templates that want one string. */
  readonly table: string;
  readonly notes: readonly string[];
  readonly failed_tests: number;
}

export interface CategorySection {
  /** The suite's name. */
  readonly category: string;
  readonly title: string;
  /** Notes that two or more families of this category share (said here, not in each family). */
  readonly shared_notes: readonly string[];
  /** The families those notes are about: `Realistic latency and Realistic periodic resets`. */
  readonly shared_notes_families: string;
  /**
   * Notes of this category already said under an earlier one are not repeated; this sentence
   * links there (`… as described under [Scalability results](#scalability-results) …`); empty when none.
   */
  readonly earlier_notes: string;
  readonly families: readonly FamilyTable[];
}

export function buildCategorySections(results: readonly RawResult[], tests: readonly TestOutcome[]): CategorySection[] {
  const failedTestIds = new Set(tests.filter((test) => test.status === 'failed').map((test) => test.test_id));
  // Notes already said, with the category they were said under: later categories link there instead.
  const saidUnder = new Map<string, string>();
  const suites = [...new Map(results.map((result) => suiteOf(result)).map((suite) => [suite.name, suite])).values()];
  return suites
    .sort((a, b) => suiteRank(a.name) - suiteRank(b.name))
    .map((suite) => {
      const inCategory = results.filter((result) => suiteOf(result).name === suite.name).map(withDerivedFigures);
      const names = [...new Set(inCategory.map((result) => result.name))].sort();
      const families = names.map((name) => ({
        name,
        results: inCategory.filter((result) => result.name === name).sort(compareResults),
      }));
      return categorySection(suite, families, failedTestIds, saidUnder);
    })
    .filter((section) => section.families.length > 0);
}

/** A suite's place among the sections: the catalogue's order, a suite it does not know last. */
function suiteRank(name: string): number {
  const index = SUITES.findIndex((suite) => suite.name === name);
  return index < 0 ? SUITES.length : index;
}

/** `Scalability` -> `#scalability-results`, the anchor GitHub and the docs site give that heading. */
export function sectionAnchor(title: string): string {
  return `#${`${title} results`
    .toLowerCase()
    .replace(/[^a-z0-9 -]/g, '')
    .replace(/ /g, '-')}`;
}

function categorySection(
  suite: SuiteDescriptor,
  families: readonly { name: string; results: readonly RawResult[] }[],
  failedTestIds: ReadonlySet<string>,
  saidUnder: Map<string, string>,
): CategorySection {
  // A note every configuration of a family has, in two or more families: said once for the category,
  // naming its families when it is not about all the families listed.
  const wholeFamilyNotes = families.map(({ results }) => notesOfAll(results));
  const shared = [...new Set(wholeFamilyNotes.flat())].filter(
    (note) => wholeFamilyNotes.filter((notes) => notes.includes(note)).length >= 2,
  );
  const familiesOf = (note: string) => families.filter((_, index) => wholeFamilyNotes[index]!.includes(note)).map((family) => family.name);
  const title = suite.title;
  // Each note once in the whole report: one an earlier category said is left out, and linked to.
  const earlier = new Set<string>();
  const firstTime = (note: string): boolean => {
    const where = saidUnder.get(note);
    if (where !== undefined && where !== title) {
      earlier.add(where);
      return false;
    }
    saidUnder.set(note, title);
    return true;
  };
  const sharedHere = shared.filter(firstTime);
  const sharing = families.filter((family) => sharedHere.some((note) => familiesOf(note).includes(family.name)));
  const links = [...earlier].map((where) => `[${where} results](${sectionAnchor(where)})`);
  return {
    category: suite.name,
    title,
    shared_notes: sharedHere.map((note) =>
      familiesOf(note).length === sharing.length ? note : `${joinWords(familiesOf(note).map(familyTitle))}: ${note}`,
    ),
    shared_notes_families: joinWords(sharing.map((family) => familyTitle(family.name))),
    earlier_notes:
      links.length === 0 ? '' : `Some of these are measured as described under ${joinWords(links)}; those notes are not repeated here.`,
    families: families.map(({ name, results }) => {
      const { tables, labels } = familyTables(results, failedTestIds);
      const failed = results.filter((result) => failedTestIds.has(result.test_id)).length;
      return {
        name,
        title: familyTitle(name),
        results_count: results.length,
        parameters: sharedParametersText(results),
        tables,
        table: tables.join('\n\n'),
        notes: familyNotes(results, labels).filter((note) => !shared.includes(note) && firstTime(note)),
        failed_tests: failed,
      };
    }),
  };
}

function notesOfAll(results: readonly RawResult[]): string[] {
  return [...new Set(results.flatMap((result) => result.notes ?? []))].filter((note) =>
    results.every((result) => result.notes?.includes(note)),
  );
}

/** Each distinct note once; one that only some configurations have says which (`confirm: …`, `100 threads: …`). */
export function familyNotes(results: readonly RawResult[], labels: readonly string[]): string[] {
  const distinct = [...new Set(results.flatMap((result) => result.notes ?? []))];
  const labelled = distinct.map((note) => {
    const having = results.flatMap((result, index) => (result.notes?.includes(note) ? [index] : []));
    return { note, about: having.length === results.length ? null : subsetLabel(results, having, labels) };
  });
  // Notes about every configuration first, then those about some, grouped by whom they are about.
  const order = [...new Set(labelled.map((entry) => entry.about))].sort((a, b) => Number(a !== null) - Number(b !== null));
  return order.flatMap((about) =>
    labelled.filter((entry) => entry.about === about).map((entry) => (about === null ? entry.note : `${about}: ${entry.note}`)),
  );
}

/** The fewest parameters that pick out exactly these configurations, else their row labels. */
function subsetLabel(results: readonly RawResult[], indexes: readonly number[], labels: readonly string[]): string {
  const subset = indexes.map((index) => results[index]!);
  const first = subset[0]!.parameters;
  const same = (key: string, result: RawResult) => JSON.stringify(result.parameters[key]) === JSON.stringify(first[key]);
  const common = varyingParameterKeys(results).filter((key) => subset.every((result) => same(key, result)));
  const picksExactly = (keys: readonly string[]) =>
    results.filter((result) => keys.every((key) => same(key, result))).length === subset.length;
  const single = common.find((key) => picksExactly([key]));
  if (single !== undefined) return parameterText(single, first[single]!);
  if (common.length > 0 && picksExactly(common)) return parametersText(first, common);
  return indexes.map((index) => labels[index]!).join('; ');
}

/** `a`, `a and b`, `a, b and c`. */
function joinWords(words: readonly string[]): string {
  return words.length <= 1 ? (words[0] ?? '') : `${words.slice(0, -1).join(', ')} and ${words[words.length - 1]}`;
}
