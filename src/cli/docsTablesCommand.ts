/**
 * `node scripts/docs-tables.js`: rewrites the generated result tables of a docs page from a run's
 * archive (the thin shell over src/report/docsTables.ts: arguments, files, messages).
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { PROJECT_ROOT } from '../config';
import { BenchError, describeError } from '../errors';
import { readRunArchive, type RunArchive } from '../results/archive';
import { writeFileAtomic } from '../io/atomicFile';
import { blockId, DOCS_SECTIONS, renderBlock, replaceBlock, sectionsOf, type DocsSection } from '../report/docsTables';

const DEFAULT_PAGE = path.join('docs', 'guide', 'clients.md');

export const DOCS_TABLES_HELP = `Usage: node scripts/docs-tables.js --archive <run_*.json> [options]

Rewrites the result tables of a docs page from a recorded run: the report's own tables, rendered by
the report's code, between the page's markers
  <!-- generated: <section>-table[:<variant>] from <run id> (commit <sha>, <date>, wall time, machine) -->
  <!-- end generated -->
with a line saying which run, commit, date, wall time and machine they are from.

Options:
  --archive <file>    the run's archive (reports/benchmarks/run_*.json, or the -o folder of bench run)
  --section <name>    clients ("Clients side by side"), matrix (the fault matrix) or
                      stall (memory while the broker stopped reading);
                      default: every section the archive has
  --variant <name>    the block clients-table:<name> instead of clients-table (a page's second table
                      of the same section); needs --section
  --page <file>       the page to rewrite (default ${DEFAULT_PAGE})
  --print             print the block(s) instead of rewriting the page
  -h, --help          this text

Examples:
  npm run bench:clients
  node scripts/docs-tables.js --archive reports/benchmarks/run_20261127_205000_6d99b96d.json --section clients
  node scripts/docs-tables.js --archive <faults run>.json --section matrix --print

Exit 0 when every block was rewritten (or printed); 1 when the archive lacks the section or the page
lacks the block; 2 for a usage error.`;

interface Options {
  readonly archive: string;
  readonly sections: readonly DocsSection[] | null;
  readonly variant: string | null;
  readonly page: string;
  readonly print: boolean;
}

class UsageError extends BenchError {
  constructor(message: string) {
    super('CONFIG_INVALID', `${message} (see --help)`);
  }
}

function resolveOptions(argv: readonly string[], cwd: string): Options | 'help' {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      options: {
        archive: { type: 'string' },
        section: { type: 'string' },
        variant: { type: 'string' },
        page: { type: 'string' },
        print: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    }).values;
  } catch (error) {
    throw new UsageError(describeError(error));
  }
  if (parsed.help) return 'help';
  if (!parsed.archive) throw new UsageError('--archive <run_*.json> is required');
  const section = parsed.section;
  if (section !== undefined && !(DOCS_SECTIONS as readonly string[]).includes(section))
    throw new UsageError(`--section must be one of ${DOCS_SECTIONS.join(', ')}; got "${section}"`);
  if (parsed.variant !== undefined && section === undefined) throw new UsageError('--variant names one block: give its --section too');
  return {
    archive: path.resolve(cwd, parsed.archive),
    sections: section === undefined ? null : [section as DocsSection],
    variant: parsed.variant ?? null,
    page: path.resolve(cwd, parsed.page ?? path.join(PROJECT_ROOT, DEFAULT_PAGE)),
    print: parsed.print,
  };
}

function readArchive(file: string): RunArchive {
  try {
    return readRunArchive(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new BenchError('RESULT_INVALID', `no archive at ${file}`);
    const said = describeError(error);
    // readRunArchive names the file itself; JSON.parse does not.
    throw new BenchError('RESULT_INVALID', said.includes(file) ? said : `${file} is not a run archive: ${said}`, { cause: error });
  }
}

export interface DocsTablesIo {
  readonly cwd: string;
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
}

/** Runs the command; returns its exit code. */
export function runDocsTables(argv: readonly string[], io: DocsTablesIo): number {
  try {
    const options = resolveOptions(argv, io.cwd);
    if (options === 'help') {
      io.out(`${DOCS_TABLES_HELP}\n`);
      return 0;
    }
    const archive = readArchive(options.archive);
    const sections = options.sections ?? sectionsOf(archive);
    if (sections.length === 0)
      throw new BenchError(
        'RESULT_INVALID',
        `run ${archive.run_id} has none of the sections the docs show (${DOCS_SECTIONS.join(', ')}): ` +
          'record one with npm run bench:clients or npm run bench:faults',
      );
    // Every block is rendered before the page is touched: a run lacking one section changes nothing.
    const blocks = sections.map((section) => ({
      id: blockId(section, options.variant),
      text: renderBlock(archive, section, options.variant),
    }));
    if (options.print) {
      io.out(`${blocks.map((block) => block.text).join('\n\n')}\n`);
      return 0;
    }
    const relative = path.relative(io.cwd, options.page);
    const pageName = relative && !relative.startsWith('..') ? relative : options.page;
    let page: string;
    try {
      page = fs.readFileSync(options.page, 'utf8');
    } catch (error) {
      throw new BenchError('CONFIG_INVALID', `cannot read the page ${pageName}: ${describeError(error)}`, { cause: error });
    }
    const rewritten = blocks.reduce((text, block) => replaceBlock(text, block.id, block.text, pageName), page);
    writeFileAtomic(options.page, rewritten);
    io.err(`docs-tables: ${blocks.map((block) => block.id).join(', ')} in ${pageName} now from run ${archive.run_id}\n`);
    return 0;
  } catch (error) {
    io.err(`docs-tables: ${describeError(error)}\n`);
    return error instanceof UsageError ? 2 : 1;
  }
}
