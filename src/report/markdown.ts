/** Markdown tables: cells escaped, columns padded so the source reads as well as the rendering. */
import { escapeCell } from './format';

/** A GitHub-flavoured Markdown table; columns after the first are right-aligned when `numeric` says so. */
export function markdownTable(header: readonly string[], rows: readonly (readonly string[])[], numeric: readonly boolean[] = []): string {
  const cells = [header, ...rows].map((row) => header.map((_, index) => escapeCell(row[index] ?? '')));
  const widths = header.map((_, index) => Math.max(3, ...cells.map((row) => displayWidth(row[index]!))));
  const line = (row: readonly string[]) =>
    `| ${row.map((cell, index) => cell + ' '.repeat(widths[index]! - displayWidth(cell))).join(' | ')} |`;
  const separator = `| ${widths.map((width, index) => (numeric[index] ? `${'-'.repeat(width - 1)}:` : '-'.repeat(width))).join(' | ')} |`;
  return [line(cells[0]!), separator, ...cells.slice(1).map(line)].join('\n');
}

/** A table cell of a figure: the number as it is, `–` for one not measured. */
export const figureCell = (value: number | null | undefined): string => (value === null || value === undefined ? '–' : String(value));

/** Code points, not UTF-16 units, so emoji and `×` do not skew the padding much. */
function displayWidth(text: string): number {
  return [...text].length;
}

/** The widest line of a Markdown table (or any text), in code points. */
export function tableWidth(text: string): number {
  return Math.max(0, ...text.split('\n').map(displayWidth));
}
