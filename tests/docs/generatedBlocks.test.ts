/**
 * Every generated result table in docs/ (scripts/docs-tables.js) says which run it is from: its
 * marker names the run (or `unarchived-run` for a table pasted before the script, whose archive was
 * not kept) and the commit, the line under it says the same to readers, and its tables are whole
 * Markdown tables. A hand edit that breaks a marker, or a block without its provenance, fails here.
 */
import fs from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../../src/config';
import { parseBlocks, UNARCHIVED_RUN, type GeneratedBlock } from '../../src/report/docsTables';

const DOCS = path.join(PROJECT_ROOT, 'docs');

function pages(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (['node_modules', '.vitepress', '_generated', 'public', 'scripts'].includes(entry.name)) return [];
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? pages(full) : entry.name.endsWith('.md') ? [full] : [];
  });
}

/** The Markdown tables of a block's lines: runs of lines starting with `|`, each row as its cells. */
function tablesOf(lines: readonly string[]): string[][][] {
  const tables: string[][][] = [];
  let current: string[][] | null = null;
  for (const line of lines) {
    if (!line.startsWith('|')) {
      current = null;
      continue;
    }
    if (!current) tables.push((current = []));
    current.push(
      line
        .trim()
        .slice(1, -1)
        .split(/(?<!\\)\|/),
    );
  }
  return tables;
}

/** What is wrong with one block's provenance line and tables (empty: nothing). */
function blockProblems(block: GeneratedBlock): string[] {
  const where = `${block.id} (line ${block.start_line + 1})`;
  const problems: string[] = [];
  const said = block.body[0] ?? '';
  const provenance =
    block.run === UNARCHIVED_RUN
      ? said.startsWith('Pasted by hand from ') && said.includes(`commit \`${block.commit}\``)
      : said.includes(`from run \`${block.run}\`: commit \`${block.commit}\``);
  if (!provenance) problems.push(`${where}: its first line does not name the marker's run and commit to readers: "${said}"`);
  const tables = tablesOf(block.body);
  if (tables.length === 0) problems.push(`${where}: no table`);
  for (const [index, rows] of tables.entries()) {
    if (!/^\s*:?-{3,}:?\s*$/.test(rows[1]?.[0] ?? '')) problems.push(`${where}: table ${index + 1} has no separator row under its header`);
    const widths = new Set(rows.map((row) => row.length));
    if (widths.size > 1) problems.push(`${where}: table ${index + 1} has rows of ${[...widths].join(' and ')} cells`);
  }
  return problems;
}

describe('generated result tables in docs/', () => {
  const found = pages(DOCS).map((file) => ({ file: path.relative(PROJECT_ROOT, file), ...parseBlocks(fs.readFileSync(file, 'utf8')) }));

  it('are well-formed blocks, each naming its run and commit in its marker and to readers', () => {
    const problems = found.flatMap(({ file, blocks, problems: markers }) => [
      ...markers.map((problem) => `${file} ${problem}`),
      ...blocks.flatMap(blockProblems).map((problem) => `${file}: ${problem}`),
    ]);
    expect(problems).toEqual([]);
  });

  it('include the clients guide’s tables (so the check above has something to check)', () => {
    const clients = found.find(({ file }) => file === path.join('docs', 'guide', 'clients.md'));
    expect(clients?.blocks.map((block) => block.id)).toEqual([
      'clients-table',
      'clients-table:other-languages',
      'matrix-table',
      'stall-table',
    ]);
  });
});
