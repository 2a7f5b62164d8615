/**
 * The docs site builds, every page is in it, and every internal link and image points at
 * something that was built. Two builds:
 *
 * - `npm run docs:build`, the real one, from the real pages, schemas and report;
 * - a copy of docs/ inside a scratch project with a known report, chart and schema, to check
 *   what is copied in at build time (the report's headings, charts and links, the schema
 *   tables), whatever the real reports/ holds today.
 *
 * Needs the docs group (docs/node_modules, from `npm ci --prefix docs`); without it the suite
 * is skipped and says so.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { PROJECT_ROOT } from '../../src/config';
import { brokenLinks, builtPages, htmlFor, sourcePages } from './support/site';

const run = promisify(execFile);
const DOCS = path.join(PROJECT_ROOT, 'docs');
const DIST = path.join(DOCS, '.vitepress', 'dist');
const docsInstalled = fs.existsSync(path.join(DOCS, 'node_modules', 'vitepress', 'package.json'));
const BUILD_TIMEOUT_MS = 120_000;

if (!docsInstalled) {
  process.stderr.write(
    'tests/docs: skipped, the docs group is not installed (docs/node_modules is missing); run `npm ci --prefix docs` to include the docs site in npm test\n',
  );
}

/** The build's environment: no test-only NODE_ENV, no report folder of the caller's. */
function buildEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.NODE_ENV;
  delete env.BENCH_REPORTS_DIR;
  return env;
}

async function build(command: string, args: string[], cwd: string): Promise<string> {
  try {
    const { stdout, stderr } = await run(command, args, { cwd, env: buildEnv(), timeout: BUILD_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024 });
    return stdout + stderr;
  } catch (error) {
    const failure = error as { stdout?: string; stderr?: string; message: string };
    throw new Error(
      `${command} ${args.join(' ')} failed in ${cwd}:\n${failure.message}\n${failure.stdout ?? ''}\n${failure.stderr ?? ''}`,
      {
        cause: error,
      },
    );
  }
}

const describeIfDocs = docsInstalled ? describe : describe.skip;

describeIfDocs('the docs site (npm run docs:build)', () => {
  let output = '';

  beforeAll(async () => {
    output = await build('npm', ['run', 'docs:build'], PROJECT_ROOT);
  }, BUILD_TIMEOUT_MS + 10_000);

  it('builds every page to HTML', () => {
    expect(output).toMatch(/build complete/);
    const expected = sourcePages(DOCS).map(htmlFor);
    expect(expected).toEqual(expect.arrayContaining(['index.html', 'results/index.html', 'contributing.html']));
    const built = builtPages(DIST);
    expect(expected.filter((page) => !built.includes(page))).toEqual([]);
  });

  it('resolves every internal link, image and fragment', () => {
    expect(brokenLinks(DIST)).toEqual([]);
  });

  it('has the pages the issue asks for, each with its title and content', () => {
    const titles: Record<string, RegExp> = {
      'guide/getting-started.html': /Getting started/,
      'guide/writing-benchmarks.html': /Writing a benchmark/,
      'guide/client-adapter.html': /The client adapter/,
      'guide/clients.html': /Clients side by side/,
      'guide/methodology.html': /Methodology/,
      'reference/formats.html': /Result and history formats/,
      'reference/report.html': /The report and comparison/,
      'reference/fault-proxy.html': /The fault proxy/,
      'guide/ci.html': /CI/,
      'guide/troubleshooting.html': /Troubleshooting/,
      'results/index.html': /Latest results/,
      'contributing.html': /Contributing/,
    };
    for (const [page, title] of Object.entries(titles)) {
      const html = fs.readFileSync(path.join(DIST, page), 'utf8');
      const heading = /<h1[^>]*>([\s\S]*?)<\/h1>/.exec(html)?.[1] ?? '';
      expect({ page, heading: heading.replace(/<[^>]+>/g, '') }).toEqual({ page, heading: expect.stringMatching(title) });
      // An include that did not resolve would leave its directive in the page.
      expect({ page, unresolvedInclude: html.includes('@include:') }).toEqual({ page, unresolvedInclude: false });
    }
  });
});

describeIfDocs('the docs site: what is copied in at build time', () => {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'amqp-bench-docs-'));
  const site = path.join(scratch, 'site');
  const readSite = (page: string): string => fs.readFileSync(path.join(site, page), 'utf8');

  beforeAll(async () => {
    // A scratch project: a copy of docs/ (sharing its dependencies), a schema, and a report with a chart.
    const leftOut =
      /^(?:node_modules|\.vitepress[/\\](?:dist|cache)|public[/\\](?:results|schemas))(?:[/\\]|$)|(?:^|[/\\])_generated(?:[/\\]|$)/;
    fs.cpSync(DOCS, path.join(scratch, 'docs'), { recursive: true, filter: (source) => !leftOut.test(path.relative(DOCS, source)) });
    fs.symlinkSync(path.join(DOCS, 'node_modules'), path.join(scratch, 'docs', 'node_modules'), 'dir');
    fs.mkdirSync(path.join(scratch, 'schemas'));
    fs.writeFileSync(
      path.join(scratch, 'schemas', 'raw-result.schema.json'),
      JSON.stringify({
        $schema: 'http://json-schema.org/draft-07/schema#',
        title: 'Fixture raw result',
        description:
          'A schema written by the docs test, for reports/.test-output/<name>_<pid>.json and run_<YYYYmmdd_HHMMSS>_<fingerprint>[_<n>].json.',
        type: 'object',
        required: ['schema_version'],
        properties: {
          schema_version: { const: 1, description: 'Format version.' },
          name: { type: 'string', description: 'Family name | also the file prefix, {{ not a template }}.' },
          test_id: { type: 'string', description: '<file>::<describe>::<test name>' },
        },
      }),
    );
    const reports = path.join(scratch, 'reports', 'benchmarks');
    fs.mkdirSync(reports, { recursive: true });
    fs.writeFileSync(
      path.join(reports, 'chart-recovery-by-scenario.svg'),
      '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>\n',
    );
    fs.writeFileSync(
      path.join(reports, 'LATEST_REPORT.md'),
      [
        '# Benchmark report',
        '',
        '## Key metrics',
        '',
        '| metric | value | target |',
        '|---|---|---|',
        '| RST detection | 1.4 ms | < 10 ms, met |',
        '',
        'Handlebars leftovers such as {{ this }} are shown as text.',
        '',
        'Archives are named run_<YYYYmmdd_HHMMSS>_<fingerprint>.json, `<kept>` in code, and 1 < 2 <br> still breaks.',
        '',
        '![Recovery by scenario](chart-recovery-by-scenario.svg)',
        '![A chart that was not written](chart-missing.svg)',
        '',
        '## Recovery results',
        '',
        '### Recovery after reset peer',
        '',
        'Raw data: [the run archive](run_20260101_000000_abcdef12.json).',
        '',
      ].join('\n'),
    );
    await build('npm', ['run', 'build', '--', '--outDir', site], path.join(scratch, 'docs'));
  }, BUILD_TIMEOUT_MS + 10_000);

  afterAll(() => {
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  it('shows the latest report on the results page, its sections at the levels the outline shows', () => {
    const html = readSite('results/index.html');
    // The page has its own title: the report's one title is left out, its sections stay at level 2.
    expect(html).not.toMatch(/<h[1-6][^>]*>Benchmark report/);
    expect(html).toMatch(/<h2[^>]*>Key metrics/);
    expect(html).toMatch(/<h3[^>]*>Recovery after reset peer/);
    expect(html).toContain('<div class="latest-report">');
    expect(html).toContain('RST detection');
    expect(html).toContain('{{ this }}');
    // Placeholders in angle brackets are text, not tags (an unknown tag would fail the build).
    expect(html).toContain('run_&lt;YYYYmmdd_HHMMSS&gt;_&lt;fingerprint&gt;.json');
    expect(html).toContain('<code>&lt;kept&gt;</code>');
    expect(html).toMatch(/1 &lt; 2 <br>/);
  });

  it('copies the charts in and points the report at them, each at its own size with click to enlarge', () => {
    const html = readSite('results/index.html');
    expect(html).toContain('src="/results/chart-recovery-by-scenario.svg"');
    expect(html).toContain(
      '<a class="report-chart" href="/results/chart-recovery-by-scenario.svg" target="_blank" rel="noopener" title="Recovery by scenario: click to enlarge"><img src="/results/chart-recovery-by-scenario.svg" alt="Recovery by scenario"></a>',
    );
    // The theme's click-to-enlarge and the chart styles are in the built site.
    const assets = fs.readdirSync(path.join(site, 'assets'), { recursive: true, encoding: 'utf8' });
    const text = (pattern: RegExp) =>
      assets
        .filter((file) => pattern.test(file))
        .map((file) => fs.readFileSync(path.join(site, 'assets', file), 'utf8'))
        .join('\n');
    expect(text(/\.js$/)).toContain('a.report-chart');
    expect(text(/\.css$/)).toMatch(/dialog\.chart-zoom/);
    expect(fs.existsSync(path.join(site, 'results', 'chart-recovery-by-scenario.svg'))).toBe(true);
    expect(html).toMatch(/chart <code>chart-missing\.svg<\/code> was not found/);
    // A link to a file that is not on the site becomes its path in the repository.
    expect(html).toContain('<code>reports/benchmarks/run_20260101_000000_abcdef12.json</code>');
  });

  it('describes each JSON schema and serves the file', () => {
    const html = readSite('reference/formats.html');
    expect(html).toContain('Fixture raw result');
    expect(html).toContain('<code>schema_version</code>');
    expect(html).toContain('{{ not a template }}');
    expect(html).toContain('&lt;file&gt;::&lt;describe&gt;::&lt;test name&gt;');
    expect(html).toContain('reports/.test-output/&lt;name&gt;_&lt;pid&gt;.json');
    // Underscores and brackets in a description are text, not emphasis or links.
    expect(html).toContain('run_&lt;YYYYmmdd_HHMMSS&gt;_&lt;fingerprint&gt;[_&lt;n&gt;].json');
    expect(fs.existsSync(path.join(site, 'schemas', 'raw-result.schema.json'))).toBe(true);
  });

  it('leaves no broken link in a site with a report', () => {
    expect(brokenLinks(site)).toEqual([]);
  });
});

describe('the link check itself', () => {
  it('finds links to pages, assets and fragments that were not built', () => {
    const dist = fs.mkdtempSync(path.join(os.tmpdir(), 'amqp-bench-links-'));
    try {
      fs.mkdirSync(path.join(dist, 'guide'));
      fs.writeFileSync(
        path.join(dist, 'index.html'),
        '<h1 id="top">Home</h1><a href="/guide/a.html#part">ok</a><a href="./guide/b.html">missing page</a><img src="/chart.svg">',
      );
      fs.writeFileSync(
        path.join(dist, 'guide', 'a.html'),
        '<h2 id="part">Part</h2><a href="../index.html#top">ok</a><a href="#nowhere">missing id</a><a href="https://example.invalid/x">external</a><a href="/">home</a>',
      );
      expect(
        brokenLinks(dist)
          .map((broken) => `${broken.page} ${broken.link}`)
          .sort(),
      ).toEqual(['guide/a.html #nowhere', 'index.html ./guide/b.html', 'index.html /chart.svg']);
    } finally {
      fs.rmSync(dist, { recursive: true, force: true });
    }
  });
});
