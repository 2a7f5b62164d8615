/**
 * The docs' generated result tables (scripts/docs-tables.js): the report's own tables from a
 * small archive of known results, between markers naming the run; a page rewritten in place,
 * nothing else of it touched; an archive without the section, a page without the block and a
 * malformed block refused with what to do.
 */
import fs from 'node:fs';
import path from 'node:path';
import { runDocsTables } from '../../src/cli/docsTablesCommand';
import { buildRunArchive, type RunArchive } from '../../src/results/archive';
import type { RawResult } from '../../src/results/rawResult';
import type { TestOutcome } from '../../src/results/outcome';
import { parseBlocks, renderBlock, replaceBlock } from '../../src/report/docsTables';
import { environment, tempDir } from '../results/helpers';
import { clientRun, matrixResult, passed } from './builders';
import { cloudamqp, fooFooMq } from './clientFindingsRun';
import { rowsOf } from './support/reading';

const RUN_ID = 'run_20261127_205000_abcd1234';

function archiveOf(results: readonly RawResult[], tests: readonly TestOutcome[] = []): RunArchive {
  return buildRunArchive({
    environment: environment({
      cpu_model: 'AMD EPYC 7B13',
      rabbitmq_version: '3.10.8',
      fault_proxy_kind: 'embedded',
      fault_proxy_version: '2.12.0',
    }),
    startedAt: new Date('2026-11-27T20:50:00Z'),
    // 4 min 3 s of wall time.
    finishedAt: new Date('2026-11-27T20:54:03Z'),
    markerExpression: 'benchmark and not slow',
    testNameFilter: null,
    invokedBy: 'cli',
    jestExitCode: 0,
    interrupted: false,
    tests,
    suiteErrors: [],
    results,
    invalidResultFiles: [],
    warnings: [],
  });
}

/** Two clients' quick runs: amqplib (defaults) at scale 1, rabbitmq-client (normalised) at 1.5. */
const clientsArchive = () => {
  const results = [...clientRun('amqplib', 'defaults'), ...clientRun('rabbitmq-client', 'normalised', 1.5)];
  return archiveOf(results, [...new Set(results.map((result) => result.test_id))].map(passed));
};

const matrixArchive = () =>
  archiveOf([
    matrixResult({ fault: 'broker_close', client: 'amqplib', profile: 'defaults', cell: '✅ 1.7 / 34' }),
    matrixResult({ fault: 'broker_close', client: 'amqplib', profile: 'normalised', cell: '✅ 2.2 / 25' }),
    matrixResult({
      fault: 'consumer_cancel',
      client: 'amqplib',
      profile: 'normalised',
      cell: '❌ stopped consuming',
      findings: ['thread 0: stopped consuming'],
    }),
  ]);

describe('a generated docs block', () => {
  it('holds the report’s clients tables, under a marker and a line naming the run, commit, date, wall time and machine', () => {
    const lines = renderBlock(clientsArchive(), 'clients').split('\n');
    expect(lines[0]).toBe(
      `<!-- generated: clients-table from ${RUN_ID} (commit 0123456, 2026-11-27, wall time 4 min 3 s, 2 × AMD EPYC 7B13) -->`,
    );
    expect(lines[1]).toContain(`from run \`${RUN_ID}\`: commit \`0123456\``);
    expect(lines[1]).toContain('RabbitMQ 3.10.8');
    expect(lines.at(-1)).toBe('<!-- end generated -->');
    const rows = rowsOf(lines);
    // Two tables: header, separator and two rows each, in the registry's order.
    expect(rows.map((row) => row[0])).toEqual([
      'Client',
      expect.stringMatching(/^-+$/),
      'amqplib (defaults)',
      'rabbitmq-client (normalised)',
      'Client',
      expect.stringMatching(/^-+$/),
      'amqplib (defaults)',
      'rabbitmq-client (normalised)',
    ]);
    expect(rows[0]).toEqual(['Client', 'Publish', 'Consume', 'Confirm p50', 'Confirm p99', 'Harness/bare']);
    // Publish at 100 publishers, consume at 10 consumers: the figures the builders were given.
    expect(rows[2]!.slice(0, 3)).toEqual(['amqplib (defaults)', '50,000 msg/s', '30,000 msg/s']);
    expect(rows[3]!.slice(0, 3)).toEqual(['rabbitmq-client (normalised)', '75,000 msg/s', '45,000 msg/s']);
    expect(rows[4]!.at(-1)).toBe('Verdict');
    expect(rows[6]).toContain('1.5 ms');
    expect(rows[6]!.at(-1)).toBe('✅ recovered every time, nothing lost');
    // Every row of a table as wide as its header.
    expect(rows.slice(0, 4).map((row) => row.length)).toEqual([6, 6, 6, 6]);
    expect(rows.slice(4).map((row) => row.length)).toEqual(Array(4).fill(rows[4]!.length));
  });

  it('holds the clients tables’ verdicts grouped by scenario, and the scenarios they name listed once under the tables', () => {
    const results = [...clientRun('amqplib', 'defaults'), ...cloudamqp, ...fooFooMq];
    const lines = renderBlock(archiveOf(results, [...new Set(results.map((result) => result.test_id))].map(passed)), 'clients').split('\n');
    const foo = rowsOf(lines).find((row) => row[0] === 'foo-foo-mq (defaults)' && row.length > 6)!;
    expect(
      foo
        .at(-1)!
        .split('<br>')
        .map((line) => /^(?:❌ |➖ cannot run: )?\*\*(.+?)\*\*/.exec(line)?.[1]),
    ).toEqual(['Periodic resets (consumer_threads=4)', 'Recovery correctness', 'Massive consumers']);
    // No parameter list in a cell: each scenario's parameters once, in the list after the tables, inside the block.
    expect(foo.at(-1)).not.toContain('reset_hold_ms');
    const listed = lines.filter((line) => line.startsWith('- **'));
    expect(listed).toHaveLength(4);
    expect(listed.filter((line) => line.includes('reset_hold_ms=250'))).toHaveLength(2);
    expect(lines.indexOf(listed.at(-1)!)).toBe(lines.length - 3);
    expect(lines.slice(-2)).toEqual(['', '<!-- end generated -->']);
  });

  it('holds the fault matrix: a row per fault, a column per configuration, each cell its result’s verdict', () => {
    const rows = rowsOf(renderBlock(matrixArchive(), 'matrix', 'amqplib-only').split('\n'));
    expect(renderBlock(matrixArchive(), 'matrix', 'amqplib-only')).toMatch(/^<!-- generated: matrix-table:amqplib-only from run_/);
    expect(rows[0]).toEqual(['Fault', 'amqplib (defaults)', 'amqplib (normalised)']);
    expect(rows.slice(2)).toEqual([
      ['Broker closes the connection', '✅ 1.7 / 34', '✅ 2.2 / 25'],
      ['Server cancels the consumer', '—', '❌ stopped consuming'],
    ]);
  });

  it('is refused when the archive lacks the section, saying which run would have it', () => {
    const oneClient = archiveOf(clientRun('amqplib', 'defaults'));
    expect(() => renderBlock(oneClient, 'clients')).toThrow(
      /run run_\S+ has no "Clients side by side" section \(it measured fewer than two client configurations\); .*npm run bench:clients/,
    );
    expect(() => renderBlock(clientsArchive(), 'matrix')).toThrow(
      /has no "Fault matrix" section \(it has no fault-matrix results\).*bench:faults/,
    );
    // A matrix of two clients is two configurations, but none of the clients table's figures.
    expect(() => renderBlock(matrixArchive(), 'clients')).toThrow(/none of its 2 client configurations has a figure/);
  });
});

describe('the markers of a page', () => {
  const block = (id: string, run = RUN_ID) => [
    `<!-- generated: ${id} from ${run} (commit 0123456, 2026-11-27, x) -->`,
    '| a |',
    '<!-- end generated -->',
  ];

  it('are read with their run and commit, and replaced with nothing else of the page touched', () => {
    // The fenced example is not a block: it is neither read nor replaced.
    const example = ['```md', ...block('matrix-table'), '```'];
    const page = [
      '# Title',
      'prose',
      ...block('clients-table'),
      'after',
      ...block('matrix-table', 'unarchived-run'),
      'end',
      ...example,
    ].join('\n');
    const { blocks, problems } = parseBlocks(page);
    expect(problems).toEqual([]);
    expect(blocks.map(({ id, run, commit, start_line, end_line }) => ({ id, run, commit, start_line, end_line }))).toEqual([
      { id: 'clients-table', run: RUN_ID, commit: '0123456', start_line: 2, end_line: 4 },
      { id: 'matrix-table', run: 'unarchived-run', commit: '0123456', start_line: 6, end_line: 8 },
    ]);
    const replaced = replaceBlock(page, 'matrix-table', 'NEW', 'page.md');
    expect(replaced.split('\n')).toEqual(['# Title', 'prose', ...block('clients-table'), 'after', 'NEW', 'end', ...example]);
  });

  it('say every way they are malformed', () => {
    const page = [
      ...block('clients-table').slice(0, 2),
      ...block('clients-table', 'run_42'),
      ...block('matrix-table'),
      ...block('matrix-table'),
      '<!-- generated: whatever -->',
      '<!-- end generated -->',
      ...block('fault-table').slice(0, 2),
    ].join('\n');
    const { problems } = parseBlocks(page);
    expect(problems).toEqual([
      'line 3: a block opens inside clients-table (line 1), which has no <!-- end generated --> before it',
      'line 3: "run_42" is neither a run id (run_YYYYmmdd_HHMMSS_<fingerprint>) nor unarchived-run',
      'line 12: not a marker of the form <!-- generated: <section>-table from <run id> (commit <sha>, <date>, ...) -->',
      'line 13: <!-- end generated --> without a block opened before it',
      'line 14: "fault-table" is not a block name (clients-table or matrix-table, optionally :<variant>)',
      'line 14: fault-table has no <!-- end generated -->',
      'line 9: a second block named matrix-table (name one of them matrix-table:<variant>)',
    ]);
    expect(() => replaceBlock(page, 'matrix-table', 'NEW', 'page.md')).toThrow(/^page\.md: its generated blocks are malformed: line 3/);
  });
});

describe('node scripts/docs-tables.js', () => {
  const dir = tempDir('docs-tables');
  const out: string[] = [];
  const err: string[] = [];
  const run = (...argv: string[]) => runDocsTables(argv, { cwd: dir, out: (text) => out.push(text), err: (text) => err.push(text) });
  const write = (name: string, content: unknown) =>
    fs.writeFileSync(path.join(dir, name), typeof content === 'string' ? content : JSON.stringify(content));
  const page = [
    '# Clients',
    '',
    'Prose before.',
    '',
    '<!-- generated: clients-table from unarchived-run (commit 5ed1e00, 2026-11-23, old) -->',
    '| old |',
    '<!-- end generated -->',
    '',
    'Prose after.',
  ].join('\n');

  beforeEach(() => {
    out.length = 0;
    err.length = 0;
    write('page.md', page);
    write(`${RUN_ID}.json`, clientsArchive());
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('rewrites the page’s block from the archive, and a second run changes nothing', () => {
    expect(run('--archive', `${RUN_ID}.json`, '--page', 'page.md')).toBe(0);
    const rewritten = fs.readFileSync(path.join(dir, 'page.md'), 'utf8');
    expect(rewritten).toBe(page.replace(/<!-- generated[^]*end generated -->/, renderBlock(clientsArchive(), 'clients')));
    expect(err.join('')).toBe(`docs-tables: clients-table in page.md now from run ${RUN_ID}\n`);
    expect(run('--archive', `${RUN_ID}.json`, '--page', 'page.md', '--section', 'clients')).toBe(0);
    expect(fs.readFileSync(path.join(dir, 'page.md'), 'utf8')).toBe(rewritten);
  });

  it('refuses a bad archive, an archive without the section and a page without the block, and leaves the page alone', () => {
    write('bad.json', { schema_version: 1, run_id: 'x' });
    expect(run('--archive', 'bad.json', '--page', 'page.md')).toBe(1);
    expect(err.pop()).toMatch(/^docs-tables: \S+bad\.json is not a run archive \(.*required property/);
    write('broken.json', '{"schema_version": 1,');
    expect(run('--archive', 'broken.json', '--page', 'page.md')).toBe(1);
    expect(err.pop()).toMatch(/^docs-tables: \S+broken\.json is not a run archive: .*JSON/);
    expect(run('--archive', `${RUN_ID}.json`, '--page', 'page.md', '--section', 'matrix')).toBe(1);
    expect(err.pop()).toMatch(/^docs-tables: run \S+ has no "Fault matrix" section/);
    expect(run('--archive', `${RUN_ID}.json`, '--page', 'page.md', '--section', 'clients', '--variant', 'other-languages')).toBe(1);
    expect(err.pop()).toMatch(
      /^docs-tables: page\.md has no block clients-table:other-languages \(it has clients-table\); put the two lines/,
    );
    expect(fs.readFileSync(path.join(dir, 'page.md'), 'utf8')).toBe(page);
  });

  it('says how it is used, and what is wrong with its arguments', () => {
    expect(run('--help')).toBe(0);
    expect(out.join('')).toMatch(/^Usage: node scripts\/docs-tables\.js --archive <run_\*\.json>/);
    expect(run('--page', 'page.md')).toBe(2);
    expect(err.pop()).toBe('docs-tables: --archive <run_*.json> is required (see --help)\n');
    expect(run('--archive', 'x.json', '--section', 'faults')).toBe(2);
    expect(err.pop()).toBe('docs-tables: --section must be one of clients, matrix, stall; got "faults" (see --help)\n');
    expect(run('--archive', 'x.json', '--variant', 'two')).toBe(2);
    expect(err.pop()).toBe('docs-tables: --variant names one block: give its --section too (see --help)\n');
  });
});
