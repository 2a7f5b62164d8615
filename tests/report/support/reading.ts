/**
 * Reading the generated report the way a test should: its figures, sections and tables, not its
 * sentences. A test that pins a whole sentence breaks on any rewording and proves little about the
 * numbers in it; one that pins these breaks when a figure, a unit, a row or a section does.
 */

/** Units a figure may carry; counted nouns name what was counted. */
const UNIT = String.raw`(?:msg\/s|MB\/s|ms|s|%|B|tests?|threads?|cores?|intervals?|targets?|metrics?|configurations?|attempt\(s\)|run\(s\)|phase\(s\))`;
const NUMBER = String.raw`[−+-]?\d[\d,]*(?:\.\d+)?(?:\/\d+)?`;
/** A number, a ratio (`7/10`) or a range (`a–b`) with its unit when one follows, never part of a word or an id. */
const FIGURE = new RegExp(
  String.raw`(?<![\w.:/=-])${NUMBER}(?:\s?${UNIT}(?![\w(]))?(?:–${NUMBER}(?:\s?${UNIT}(?![\w(]))?)?(?![\w.]*\d)(?![\w/:-])`,
  'g',
);

/**
 * The figures of a text in order, each with its unit: `"10 threads on 2 cores, 66 ms"` gives
 * `['10 threads', '2 cores', '66 ms']`; a range stays one figure (`'9.9 s–16.0 s'`).
 */
export function figuresOf(text: string): string[] {
  return [...text.matchAll(FIGURE)].map((match) => match[0]);
}

/** A Markdown table row's cells, trimmed (an escaped pipe stays inside its cell). */
export function cellsOf(line: string): string[] {
  return line
    .trim()
    .slice(1, -1)
    .split(/(?<!\\)\|/)
    .map((cell) => cell.trim());
}

/** The lines of a text that are Markdown table rows (header and separator included). */
export function tableLines(markdown: string): string[] {
  return markdown.split('\n').filter((line) => line.startsWith('|'));
}

/** A Markdown table's rows as cells. */
export function rowsOf(lines: readonly string[]): string[][] {
  return lines.filter((line) => line.startsWith('|')).map(cellsOf);
}

/** The tables of a text, each its header's cells and its body rows' cells (the separator dropped). */
export function tablesOf(markdown: string): { header: string[]; rows: string[][] }[] {
  const tables: string[][][] = [];
  let current: string[][] | null = null;
  for (const line of markdown.split('\n')) {
    if (!line.startsWith('|')) {
      current = null;
      continue;
    }
    if (!current) tables.push((current = []));
    current.push(cellsOf(line));
  }
  return tables.map(([header = [], , ...rows]) => ({ header, rows }));
}

/**
 * A section of a Markdown document: from its heading to the next heading of the same or a higher
 * level. Throws when the heading is absent, so that a test reading it fails there.
 */
export function sectionOf(markdown: string, heading: string): string {
  const lines = markdown.split('\n');
  const start = lines.indexOf(heading);
  if (start < 0) throw new Error(`no heading "${heading}" in the document`);
  const level = /^#+/.exec(heading)![0].length;
  const end = lines.findIndex((line, index) => index > start && /^#+ /.test(line) && /^#+/.exec(line)![0].length <= level);
  return lines.slice(start, end < 0 ? undefined : end).join('\n');
}

/** The one line of a text that holds `fragment`; throws when there is none or more than one. */
export function lineWith(text: string, fragment: string): string {
  const found = text.split('\n').filter((line) => line.includes(fragment));
  if (found.length !== 1) throw new Error(`${found.length} lines hold "${fragment}"`);
  return found[0]!;
}

/** The names of a list in words: `"A, B and C"` gives `['A', 'B', 'C']`. */
export function namesOf(list: string): string[] {
  return list.split(/, | and /);
}
