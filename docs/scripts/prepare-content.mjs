#!/usr/bin/env node
/**
 * Brings the project's own outputs into the docs site before `vitepress dev` or `build`:
 *
 * - schemas/*.schema.json (the result, archive and history formats) become a generated
 *   Markdown fragment (reference/_generated/schemas.md, included by reference/formats.md) and
 *   downloadable copies under /schemas/.
 * - reports/benchmarks/LATEST_REPORT.md and its charts become results/_generated/latest-report.md
 *   (included by results/index.md) and /results/<chart>.svg; without a report, the fragment says
 *   how to produce one.
 *
 * It reads whatever is there when it runs and never fails the build over missing inputs.
 * Everything it writes is git-ignored (docs/.gitignore).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const DOCS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const ROOT = path.resolve(DOCS, '..');
const SCHEMAS_DIR = path.join(ROOT, 'schemas');
const REPORTS_DIR = process.env.BENCH_REPORTS_DIR
  ? path.resolve(ROOT, process.env.BENCH_REPORTS_DIR)
  : path.join(ROOT, 'reports', 'benchmarks');
const REPORT_FILE = path.join(REPORTS_DIR, 'LATEST_REPORT.md');
const IMAGE_EXTENSIONS = new Set(['.svg', '.png', '.jpg', '.jpeg', '.gif', '.webp']);

/** Replaces a folder's content in one step, so a half-written folder is never served. */
function resetDir(dir) {
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
}

function write(file, content) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, content);
}

/**
 * Plain text shown as written: `<name>` in a description is a placeholder, not an HTML tag for
 * Vue to compile, and `run_<time>_<fingerprint>` is not emphasis.
 */
const escapeText = (text) =>
  String(text ?? '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/([\\`*_[\]])/g, '\\$1');

/** Text for a Markdown table cell: one line, pipes escaped too. */
const cell = (text) =>
  escapeText(text)
    .replace(/\s*\n\s*/g, ' ')
    .replace(/\|/g, '\\|');

function typeOf(schema) {
  if (!schema || typeof schema !== 'object') return '';
  if (schema.const !== undefined) return `\`${JSON.stringify(schema.const)}\``;
  if (schema.enum) return schema.enum.map((value) => `\`${JSON.stringify(value)}\``).join(', ');
  if (schema.$ref) return `\`${schema.$ref.split('/').pop()}\``;
  const types = [].concat(schema.type ?? []);
  if (types.includes('array') && schema.items) return `array of ${typeOf(schema.items) || 'items'}`;
  if (types.length > 0) return types.join(' or ');
  for (const key of ['oneOf', 'anyOf']) if (schema[key]) return schema[key].map(typeOf).filter(Boolean).join(' or ');
  return '';
}

function schemaSection(file, schema) {
  const title = escapeText(schema.title ?? file);
  const required = new Set(schema.required ?? []);
  const properties = Object.entries(schema.properties ?? {});
  const lines = [
    `## ${title}`,
    '',
    `File: [\`schemas/${file}\`](/schemas/${file}){target="_blank"}${schema.$id ? ` · \`$id\`: \`${schema.$id}\`` : ''}`,
    '',
  ];
  if (schema.description) lines.push(escapeText(schema.description), '');
  if (properties.length > 0) {
    // The meaning column only when the schema describes its fields.
    const described = properties.some(([, property]) => property?.description);
    lines.push(
      described ? '| field | type | required | meaning |' : '| field | type | required |',
      described ? '|---|---|---|---|' : '|---|---|---|',
    );
    for (const [name, property] of properties) {
      const row = [`\`${name}\``, typeOf(property).replace(/\|/g, '\\|'), required.has(name) ? 'yes' : ''];
      if (described) row.push(cell(property?.description));
      lines.push(`| ${row.join(' | ')} |`);
    }
    lines.push('');
  }
  lines.push('<details><summary>The whole schema</summary>', '', '```json', JSON.stringify(schema, null, 2), '```', '', '</details>', '');
  return lines.join('\n');
}

function prepareSchemas() {
  const publicDir = path.join(DOCS, 'public', 'schemas');
  resetDir(publicDir);
  const files = fs.existsSync(SCHEMAS_DIR)
    ? fs
        .readdirSync(SCHEMAS_DIR)
        .filter((file) => file.endsWith('.schema.json'))
        .sort()
    : [];
  const sections = [];
  for (const file of files) {
    const text = fs.readFileSync(path.join(SCHEMAS_DIR, file), 'utf8');
    fs.writeFileSync(path.join(publicDir, file), text);
    try {
      sections.push(schemaSection(file, JSON.parse(text)));
    } catch (error) {
      sections.push(`## ${file}\n\nThis schema file does not parse as JSON (${cell(error.message)}); it is left out.\n`);
    }
  }
  const body =
    sections.length > 0
      ? sections.join('\n')
      : 'No `schemas/*.schema.json` existed when this site was built. The formats are described above; rebuild the site once the schemas are in the repository.\n';
  // v-pre: the schemas' text is shown as written, never read as Vue template syntax.
  write(path.join(DOCS, 'reference', '_generated', 'schemas.md'), `::: v-pre\n\n${body}\n:::\n`);
  return files.length;
}

/** Every image under the reports folder, by its path relative to it (charts may sit in a subfolder). */
function listImages(dir, prefix = '') {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const relative = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) return entry.name.startsWith('.') ? [] : listImages(path.join(dir, entry.name), relative);
    return IMAGE_EXTENSIONS.has(path.extname(entry.name).toLowerCase()) ? [relative] : [];
  });
}

/** HTML the report may use on purpose (GitHub renders these too); any other `<` is text. */
const REPORT_TAGS =
  /^<\/?(?:a|b|br|code|details|div|em|h[1-6]|hr|i|img|kbd|li|ol|p|pre|span|strong|sub|summary|sup|table|tbody|td|th|thead|tr|ul)\b[^<>]*>|^<!--/i;

/** Escapes every `<` of a line that does not open a known tag, leaving inline code spans alone. */
function escapeStrayTags(line) {
  return line
    .split(/(`+[^`]*`+)/)
    .map((part, index) =>
      index % 2 === 1 ? part : part.replace(/</g, (lt, offset) => (REPORT_TAGS.test(part.slice(offset)) ? lt : '&lt;')),
    )
    .join('');
}

const isRelative = (target) => !/^(?:[a-z][a-z0-9+.-]*:|\/|#)/i.test(target);

/** Text for an HTML attribute value. */
const attribute = (text) => String(text).replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

/**
 * A chart of the report: shown at its own size (it is drawn for the content column); a click
 * enlarges it over the page (the theme's click-to-enlarge), and without JavaScript opens it.
 */
const chartMarkup = (alt, src) =>
  `<a class="report-chart" href="${src}" target="_blank" rel="noopener" title="${attribute(alt ? `${alt}: click to enlarge` : 'Click to enlarge')}">` +
  `<img src="${src}" alt="${attribute(alt)}"></a>`;

/** Lines outside fenced code blocks that are headings of `level` (`#` count). */
function headingCount(lines, level) {
  let inFence = false;
  let count = 0;
  for (const line of lines) {
    if (/^\s*(```|~~~)/.test(line)) inFence = !inFence;
    else if (!inFence && new RegExp(`^#{${level}}\\s`).test(line)) count += 1;
  }
  return count;
}

/**
 * The report as a part of the results page: the page has its own title, so the report's one
 * title is left out and its sections stay at level 2 and 3, the levels the page outline shows
 * (a report with several titles is moved one level down instead); charts from /results/, with
 * click to enlarge; links to files that are not on the site shown as paths.
 */
function adaptReport(markdown, images) {
  const known = new Set(images);
  const lines = markdown.split('\n');
  const singleTitle = headingCount(lines, 1) === 1;
  let inFence = false;
  return lines
    .flatMap((line) => {
      if (/^\s*(```|~~~)/.test(line)) inFence = !inFence;
      if (inFence) return [line];
      if (singleTitle && /^#\s/.test(line)) return [];
      let out = escapeStrayTags(line);
      if (!singleTitle) out = out.replace(/^(#{1,5})(\s)/, '#$1$2');
      out = out.replace(/!\[([^\]]*)\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g, (whole, alt, target) => {
        if (!isRelative(target)) return whole;
        const file = path.posix.normalize(decodeURIComponent(target.split(/[?#]/)[0]).replace(/^\.\//, ''));
        return known.has(file) ? chartMarkup(alt, `/results/${encodeURI(file)}`) : `*(chart \`${file}\` was not found next to the report)*`;
      });
      out = out.replace(/<img([^>]*?)\ssrc="([^"]+)"/g, (whole, before, target) => {
        if (!isRelative(target)) return whole;
        const file = path.posix.normalize(target.replace(/^\.\//, ''));
        return known.has(file) ? `<img${before} src="/results/${encodeURI(file)}"` : whole;
      });
      out = out.replace(/(?<!!)\[([^\]]+)\]\(\s*([^)\s]+)\s*\)/g, (whole, text, target) => {
        if (!isRelative(target) || target.startsWith('/results/')) return whole;
        return `${text} (\`reports/benchmarks/${target.replace(/^\.\//, '')}\`)`;
      });
      return [out];
    })
    .join('\n');
}

function prepareResults() {
  const publicDir = path.join(DOCS, 'public', 'results');
  resetDir(publicDir);
  const fragment = path.join(DOCS, 'results', '_generated', 'latest-report.md');
  if (!fs.existsSync(REPORT_FILE)) {
    write(
      fragment,
      [
        '::: info No report yet',
        `There was no \`reports/benchmarks/LATEST_REPORT.md\` when this site was built, so there is nothing to show here.`,
        ':::',
        '',
        'To produce one, with RabbitMQ answering on `127.0.0.1:5672` (or `AMQP_URL` pointing at a broker):',
        '',
        '```sh',
        'npm ci',
        'npm run bench:quick   # writes the report and its charts',
        'npm run docs:build    # or docs:dev; both copy them in',
        '```',
        '',
        'A report from CI is in the `benchmark-report` artifact of the workflow run: unpack it into `reports/benchmarks/` and rebuild the site. See [CI](../guide/ci.md).',
        '',
      ].join('\n'),
    );
    return { report: false, images: 0 };
  }
  const images = listImages(REPORTS_DIR);
  for (const image of images) {
    const target = path.join(publicDir, image);
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.copyFileSync(path.join(REPORTS_DIR, image), target);
  }
  const stat = fs.statSync(REPORT_FILE);
  const report = adaptReport(fs.readFileSync(REPORT_FILE, 'utf8'), images);
  write(
    fragment,
    [
      `*Copied from \`reports/benchmarks/LATEST_REPORT.md\` (written ${stat.mtime.toISOString().replace('T', ' ').slice(0, 19)} UTC) when this site was built, with ${images.length} chart${images.length === 1 ? '' : 's'}.*`,
      '',
      '::: v-pre',
      '',
      // A class of its own, so the site can set the report's tables tighter than its prose pages' (theme/custom.css).
      '<div class="latest-report">',
      '',
      report,
      '',
      '</div>',
      '',
      ':::',
      '',
    ].join('\n'),
  );
  return { report: true, images: images.length };
}

const schemaCount = prepareSchemas();
const results = prepareResults();
process.stdout.write(
  `docs: ${schemaCount} JSON schema${schemaCount === 1 ? '' : 's'} from schemas/; ` +
    `${results.report ? `latest report with ${results.images} chart${results.images === 1 ? '' : 's'}` : 'no report yet (the results page says how to make one)'}\n`,
);
