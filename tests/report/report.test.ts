import fs from 'node:fs';
import path from 'node:path';
import { buildRunArchive } from '../../src/results/archive';
import { finalizeRun } from '../../src/run/pipeline';
import { writeRawResult, type RawResult } from '../../src/results/rawResult';
import { rebuildReport } from '../../src/run/reportOnly';
import { renderMarkdown } from '../../src/report/render';
import { buildReportView } from '../../src/report/view';
import { environment, rawResult, realisticResults, tempDir } from '../results/helpers';
import { figuresOf, lineWith, sectionOf, tablesOf } from './support/reading';

/** Well-formed XML with an <svg> root: every tag closed in order, nothing after the root. */
function expectValidSvg(text: string): void {
  expect(text.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
  expect(text.trimEnd().endsWith('</svg>')).toBe(true);
  const stack: string[] = [];
  for (const match of text.matchAll(/<(\/?)([a-zA-Z][\w:-]*)([^>]*?)(\/?)>/g)) {
    const [, closing, name, , selfClosing] = match;
    if (selfClosing) continue;
    if (closing) expect(stack.pop()).toBe(name);
    else stack.push(name!);
  }
  expect(stack).toEqual([]);
  expect(text).not.toMatch(/NaN|undefined/);
  expect(text).toMatch(/<text[^>]*>[^<]+<\/text>/);
}

const PASSED_TEST = {
  test_id: 'benchmarks/bench_x.bench.ts::TestX::test_x',
  full_name: 'TestX test_x',
  status: 'passed',
  duration_ms: 1000,
  failure_message: null,
} as const;

async function twoRuns(root: string, secondResults: RawResult[] = realisticResults(1.2)) {
  const raw = path.join(root, 'raw');
  const out = path.join(root, 'out');
  const runs = [];
  for (const [index, results] of [realisticResults(1), secondResults].entries()) {
    fs.rmSync(raw, { recursive: true, force: true });
    for (const result of results) writeRawResult(result, raw);
    runs.push(
      await finalizeRun({
        environment: environment(index === 0 ? {} : { node_version: 'v22.1.0', fingerprint: 'ffff0000' }),
        startedAt: new Date(Date.UTC(2025, 0, 31, 12 + index)),
        finishedAt: new Date(Date.UTC(2025, 0, 31, 12 + index, 3, 25)),
        markerExpression: 'benchmark and not slow and not stress',
        testNameFilter: null,
        invokedBy: 'cli',
        jestExitCode: 0,
        interrupted: false,
        rawResultsDir: raw,
        reportsDir: out,
        thresholdPercent: 10,
        secrets: ['hunter22'],
        // A run that ran tests (a run that ran none is never a baseline).
        outcome: { schema_version: 1, started_at: '', updated_at: '', complete: true, tests: [PASSED_TEST], suite_errors: [] },
        warn: () => undefined,
      }),
    );
  }
  return { out, runs };
}

describe('the Markdown report', () => {
  let root: string;
  beforeEach(() => {
    root = tempDir('report');
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  it('has every section, figures with units and separators, a comparison with deltas, linked SVG charts', async () => {
    const { out, runs } = await twoRuns(root);
    const report = `\n${fs.readFileSync(path.join(out, 'LATEST_REPORT.md'), 'utf8')}`;
    const headings = [
      '# AMQP client benchmark report',
      '## Key metrics',
      '## Charts',
      '## Throughput results',
      '### Publish throughput',
      '## Realistic workloads results',
      '### Massive consumers',
      '## Recovery results',
      '### Recovery after reset peer',
      '## Stability results',
      '## Comparison with the previous run',
      '## Run and environment',
    ];
    for (const heading of headings) expect(report).toContain(`\n${heading}\n`);
    // A reader in a hurry gets the verdict, the key metrics and the charts first, the detail after.
    const positions = headings.map((heading) => report.indexOf(`\n${heading}\n`));
    expect(positions).toEqual([...positions].sort((a, b) => a - b));
    // The verdict line, above the key metrics: its class, the tests run and the targets met.
    const verdict = lineWith(report, '**✅ passed');
    expect(figuresOf(verdict)).toEqual(['1 test', '7 targets']);
    expect(report.indexOf(verdict)).toBeLessThan(report.indexOf('\n## Key metrics\n'));
    expect(report).toMatch(/\| Peak publish throughput \| 73,200 msg\/s \| 100 threads · plain +\|/);
    expect(report).toMatch(/\| TCP reset · 10 threads +\| 1\.75 ✅ +\| 2\.68 +\| 0\.926 +\| — +\| 350 ✅ +\|/);
    expect(report).toMatch(/\| Partition · 10 threads +\| 98\.3 ✅ +\| 150\.4 +\| 52 +\| — +\| 1,083 ✅ +\|/);
    // Each target of the specification with its bound, in the key metrics.
    const glance = lineWith(sectionOf(report, '## Key metrics'), 'Targets (specification)');
    const targets = glance.slice(glance.indexOf('Targets (specification)'));
    expect(targets.match(/[<>] [\d.]+ \w+/g)).toEqual(['< 10 ms', '< 200 ms', '< 5 s']);
    // The baseline by id and start, then its build's history: one run, the baseline itself.
    const comparison = sectionOf(report, '## Comparison with the previous run');
    const compared = lineWith(comparison, 'Compared with');
    expect(compared).toContain('`run_20250131_120000_abcd1234` (2025-01-31 12:00:00 UTC)');
    expect(compared.match(/`run_\w+`/g)).toEqual(['`run_20250131_120000_abcd1234`', '`run_20250131_120000_abcd1234`']);
    expect(figuresOf(compared)).toEqual(['1 run(s)']);
    expect(report).toContain('**Fingerprints differ**');
    expect(report).toMatch(/\| node_version \| v20\.20\.2 +\| v22\.1\.0 +\|/);
    // Throughput +20% on 5 replicates each side: p = 0.008 (exact), beyond the 20% minimum effect: better.
    expect(report).toMatch(
      /\| publish_throughput \(100 threads · 100 msgs\/thread · 256 B · plain\) +\| Throughput \(msg\/s\) +\| +60,867 msg\/s \(5 reps\) \| +73,200 msg\/s \(5 reps\) \| +\+20\.0% \[\+17\.5%, \+22\.5%\] \| ±20% \(config\) +\| MW exact p=0\.008, q=0\.008 +\| ✅ better/,
    );
    // Per-thread samples only: the change is shown, not judged.
    expect(report).toMatch(
      /\| Detection latency p50 +\| +2\.94 ms +\| +2\.45 ms +\| +−16\.7% +\| ±30% \(config\), at least 1 ms +\| — +\| \? not judged \|/,
    );
    // The correction counts the metrics the table judged (those with a q), at α = 0.05.
    const judged = tablesOf(comparison)
      .flatMap((table) => table.rows)
      .filter((row) => row.some((cell) => /\bq=/.test(cell)));
    expect(judged).toHaveLength(8);
    expect(figuresOf(lineWith(comparison, '- Correction:'))).toEqual(['8', '0.05']);
    // The run's threshold (10%), as the pipeline was given it.
    expect(figuresOf(lineWith(comparison, 'Threshold:'))).toEqual(['10%']);
    expect(runs[1]!.comparison?.previous_run_id).toBe('run_20250131_120000_abcd1234');
    expect(report).toContain('![Publish throughput by publisher threads](chart-throughput-by-threads.svg)');
    expect(report).toContain('3 min 25 s');
    for (const file of fs.readdirSync(out).filter((name) => name.endsWith('.svg'))) {
      expect(report).toContain(`](${file})`);
      expectValidSvg(fs.readFileSync(path.join(out, file), 'utf8'));
    }
    expect(fs.readdirSync(out).filter((name) => name.endsWith('.svg'))).toHaveLength(5);
  }, 60_000);

  it('never writes the broker password, wherever it hides', async () => {
    const leaky = realisticResults(1.2).map((result, index) =>
      index === 0
        ? {
            ...result,
            notes: ['connected to amqp://bench:hunter22@10.0.0.5:5672/vh', 'password hunter22 in plain text'],
            details: { url: 'amqps://bench:hunter22@host' },
          }
        : result,
    );
    const { out } = await twoRuns(root, leaky);
    for (const file of fs.readdirSync(out)) {
      const text = fs.readFileSync(path.join(out, file), 'utf8');
      expect(text).not.toContain('hunter22');
    }
    expect(fs.readFileSync(path.join(out, 'LATEST_REPORT.md'), 'utf8')).toContain('connected to amqp://bench@10.0.0.5:5672/vh');
  }, 60_000);

  it('renders any result, known or not, in its category table; a failed test is marked', () => {
    const unknown = rawResult({
      name: 'proxy_overhead',
      category: 'proxy',
      test_id: 'benchmarks/bench_proxy.bench.ts::TestProxy::test_proxy_overhead',
      parameters: { payload_bytes: 1024 },
      metrics: {
        added_latency_p50_ms: { value: 0.0421, unit: 'ms', direction: 'lower' },
        bytes_forwarded: { value: 123456789, unit: 'bytes', direction: 'none' },
      },
      notes: ['a|pipe in a note'],
    });
    const archive = buildRunArchive({
      environment: environment(),
      startedAt: new Date('2025-01-31T12:00:00Z'),
      finishedAt: new Date('2025-01-31T12:00:10Z'),
      markerExpression: null,
      testNameFilter: null,
      invokedBy: 'jest-reporter',
      jestExitCode: null,
      interrupted: false,
      tests: [
        {
          test_id: 'benchmarks/bench_proxy.bench.ts::TestProxy::test_proxy_overhead',
          full_name: 'TestProxy test_proxy_overhead',
          status: 'failed',
          duration_ms: 10,
          failure_message: 'boom\nstack',
        },
      ],
      suiteErrors: [],
      results: [unknown],
      invalidResultFiles: [{ file: 'bad.json', error: 'not valid JSON' }],
      warnings: [],
    });
    const view = buildReportView({
      archive,
      archiveFile: 'run.json',
      historyRuns: [],
      comparison: null,
      comparisonNote: 'First run in the history: nothing to compare with yet.',
      thresholdPercent: null,
      regressions: [],
      charts: [],
      generatedAt: new Date('2025-01-31T12:01:00Z'),
      warnings: [],
    });
    const markdown = renderMarkdown(view);
    expect(markdown).toContain('## Proxy overhead results');
    expect(markdown).toContain('### Proxy overhead');
    expect(markdown).toMatch(/\| Added latency p50 \| +0\.0421 ms \| Bytes forwarded \| +123,456,789 B \|/);
    // The family's line: its configurations, what they share, its failed tests under ❌.
    const family = lineWith(sectionOf(markdown, '### Proxy overhead'), '`proxy_overhead`');
    expect(figuresOf(family)).toEqual(['1 configuration', '1']);
    expect(family).toContain('payload_bytes=1024');
    expect(family).toMatch(/❌ 1 failed/);
    expect(markdown).toContain('- **TestProxy test_proxy_overhead**: boom');
    // A raw result that could not be read: a ⚠️ line naming the file and its error.
    const skipped = lineWith(markdown, '- ⚠️');
    expect([skipped.includes('bad.json'), skipped.includes('not valid JSON')]).toEqual([true, true]);
    expect(markdown).toContain('- a|pipe in a note');
    expect(markdown).toContain('First run in the history: nothing to compare with yet.');
    expect(markdown).toContain('No key metric in this run');
    // ❌ with the tests passed and failed, and no target count: the selection had none.
    expect(figuresOf(lineWith(markdown, '**❌ failed'))).toEqual(['0 tests', '1']);
  });

  it('uses a replacement template, and names a broken one', () => {
    const template = path.join(root, 'mine.md.hbs');
    fs.writeFileSync(template, '# {{run.run_id}} {{summary.passed}}/{{summary.total}} {{#each charts}}{{file}}{{/each}}\n');
    const archive = buildRunArchive({
      environment: environment(),
      startedAt: new Date('2025-01-31T12:00:00Z'),
      finishedAt: new Date('2025-01-31T12:00:10Z'),
      markerExpression: null,
      testNameFilter: null,
      invokedBy: 'cli',
      jestExitCode: 0,
      interrupted: false,
      tests: [],
      suiteErrors: [],
      results: [],
      invalidResultFiles: [],
      warnings: [],
    });
    const view = buildReportView({
      archive,
      archiveFile: 'run.json',
      historyRuns: [],
      comparison: null,
      comparisonNote: null,
      thresholdPercent: null,
      regressions: [],
      charts: [{ id: 'x', title: 'X', caption: '', file: 'chart-x.svg' }],
      generatedAt: new Date(),
      warnings: [],
    });
    expect(renderMarkdown(view, template)).toBe('# run_20250131_120000_abcd1234 0/0 chart-x.svg\n');
    fs.writeFileSync(template, '{{#each charts}} never closed');
    expect(() => renderMarkdown(view, template)).toThrow(
      new RegExp(`report template ${template.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} failed: Parse error`),
    );
    expect(() => renderMarkdown(view, path.join(root, 'missing.hbs'))).toThrow(
      /cannot be read .*; pass an existing \.hbs file to --template/,
    );
  });

  it('rebuilds the same report from disk alone (bench report), also without a history', async () => {
    const { out } = await twoRuns(root);
    const before = fs.readFileSync(path.join(out, 'LATEST_REPORT.md'), 'utf8');
    fs.rmSync(path.join(out, 'LATEST_REPORT.md'));
    const rebuilt = await rebuildReport({ reportsDir: out, thresholdPercent: 10, secrets: [] });
    const after = fs.readFileSync(path.join(out, 'LATEST_REPORT.md'), 'utf8');
    const withoutGenerated = (text: string) => text.replace(/Generated .* UTC/, '');
    expect(withoutGenerated(after)).toBe(withoutGenerated(before));
    expect(rebuilt.archive.run_id).toBe('run_20250131_130000_ffff0000');

    fs.writeFileSync(path.join(out, 'benchmark_history.json'), '{ truncated');
    const warnings: string[] = [];
    const fromArchives = await rebuildReport({
      reportsDir: out,
      runId: 'run_20250131_120000_abcd1234',
      thresholdPercent: null,
      secrets: [],
      warn: (message) => warnings.push(message),
    });
    expect(fromArchives.archive.run_id).toBe('run_20250131_120000_abcd1234');
    expect(fromArchives.comparison).toBeNull();
    expect(warnings[0]).toMatch(/^the history did not parse \(not valid JSON/);
    expect(fs.readFileSync(path.join(out, 'benchmark_history.json'), 'utf8')).toBe('{ truncated');
    await expect(rebuildReport({ reportsDir: path.join(root, 'empty'), thresholdPercent: null, secrets: [] })).rejects.toThrow(
      /no archived run in .*; run `npm run bench:quick` first/,
    );
  }, 60_000);
});
