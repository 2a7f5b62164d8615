/**
 * Writing the report: the charts as SVG files and LATEST_REPORT.md beside them, each written
 * atomically with passwords masked. The Markdown comes from a Handlebars template (the default
 * one, or the user's) applied to the view model.
 */
import fs from 'node:fs';
import path from 'node:path';
import Handlebars from 'handlebars';
import { BenchError, describeError } from '../errors';
import { writeTextSafely } from '../results/safeWrite';
import {
  buildChartSpecs,
  CHART_IDS,
  CHART_TITLES,
  chartFileName,
  drawnFor,
  markDrawnFor,
  PER_CONFIGURATION_CHART_PREFIXES,
  renderSvg,
} from './charts';
import type { RunArchive } from '../results/archive';
import type { HistoryEntry } from '../results/history';
import { buildReportView, type ChartLink, type ReportInput, type ReportView } from './view';

export const REPORT_FILE_NAME = 'LATEST_REPORT.md';
export const DEFAULT_TEMPLATE_PATH = path.join(__dirname, 'templates', 'report.md.hbs');

/** Compiles a template with the report's helpers. @throws BenchError naming the file when it does not compile or render. */
export function renderMarkdown(view: ReportView, templatePath: string = DEFAULT_TEMPLATE_PATH): string {
  return renderTemplate(view, templatePath);
}

/** Any view through a Handlebars template with the report's helpers (the run report, the paired comparison's). */
export function renderTemplate(view: object, templatePath: string): string {
  let source: string;
  try {
    source = fs.readFileSync(templatePath, 'utf8');
  } catch (error) {
    throw new BenchError(
      'CONFIG_INVALID',
      `report template ${templatePath} cannot be read (${describeError(error)}); pass an existing .hbs file to --template`,
    );
  }
  const handlebars = Handlebars.create();
  handlebars.registerHelper('eq', (a: unknown, b: unknown) => a === b);
  handlebars.registerHelper('defined', (value: unknown) => value !== null && value !== undefined);
  // Handlebars passes its options object last: only the values before it count.
  handlebars.registerHelper('or', (...args: unknown[]) => args.slice(0, -1).some(Boolean));
  try {
    // Markdown, not HTML: entity escaping would turn `< 10 ms` into `&lt; 10 ms`; cells are escaped by the view.
    const markdown = handlebars.compile(source, { noEscape: true, strict: false })(view);
    return `${markdown.replace(/\n{3,}/g, '\n\n').trimEnd()}\n`;
  } catch (error) {
    throw new BenchError('CONFIG_INVALID', `report template ${templatePath} failed: ${describeError(error)}`);
  }
}

export interface ChartOutcome {
  readonly charts: readonly ChartLink[];
  readonly warnings: readonly string[];
}

export interface WriteChartsOptions {
  /** Named in each SVG, so a chart kept later can say which run it shows. */
  readonly runId: string;
  /**
   * The run failed part-way: a chart of an earlier report that this run has no data for is kept
   * (and labelled as such) instead of removed; what was measured before stays visible.
   * @default false
   */
  readonly keepEarlierCharts?: boolean;
  readonly secrets?: readonly string[];
}

/**
 * Renders every chart the data allows into `dir`. A chart of an earlier report that this one has
 * no data for is removed (a link must never pass another run's data off as this one's), unless
 * the run failed: then it is kept and listed with the run it was drawn for.
 */
export async function writeCharts(
  dir: string,
  results: RunArchive['results'],
  historyRuns: readonly HistoryEntry[],
  options: WriteChartsOptions,
): Promise<ChartOutcome> {
  const drawn = new Map<string, ChartLink>();
  const warnings: string[] = [];
  for (const chart of buildChartSpecs(results, historyRuns)) {
    const file = chartFileName(chart.id);
    try {
      writeTextSafely(path.join(dir, file), markDrawnFor(await renderSvg(chart.spec), options.runId), options.secrets ?? []);
      drawn.set(chart.id, { id: chart.id, title: chart.title, caption: chart.caption, file, earlier_run: null });
    } catch (error) {
      warnings.push(`chart ${file} could not be rendered: ${describeError(error)}`);
    }
  }
  const charts: ChartLink[] = [];
  for (const id of CHART_IDS) {
    const file = chartFileName(id);
    const current = drawn.get(id);
    if (current) {
      charts.push(current);
    } else {
      const earlier = options.keepEarlierCharts ? readEarlierChart(path.join(dir, file)) : null;
      if (earlier === null) {
        fs.rmSync(path.join(dir, file), { force: true });
      } else {
        const known = CHART_TITLES[id];
        const earlierRun = earlier.runId ?? 'an earlier run';
        charts.push({
          id,
          title: `${known.title} (from ${earlier.runId ?? 'an earlier run'})`,
          caption: known.caption,
          file,
          earlier_run: earlierRun,
        });
      }
    }
    // Charts drawn per configuration follow the overview of their kind.
    if (id === 'recovery-by-scenario') charts.push(...perConfigurationCharts(dir, drawn, options.keepEarlierCharts ?? false));
  }
  return { charts, warnings };
}

/**
 * This run's per-configuration charts (recovery timelines), in drawing order; a file of an
 * earlier run this one did not redraw is removed, or kept and labelled when the run failed.
 */
function perConfigurationCharts(dir: string, drawn: ReadonlyMap<string, ChartLink>, keepEarlier: boolean): ChartLink[] {
  const perConfiguration = (id: string) => PER_CONFIGURATION_CHART_PREFIXES.some((prefix) => id.startsWith(prefix));
  const links = [...drawn.values()].filter((chart) => perConfiguration(chart.id));
  const leftovers = fs.existsSync(dir)
    ? fs
        .readdirSync(dir)
        .map((file) => /^chart-(.+)\.svg$/.exec(file)?.[1])
        .filter((id): id is string => id !== undefined && perConfiguration(id) && !drawn.has(id))
    : [];
  for (const id of leftovers) {
    const file = chartFileName(id);
    const earlier = keepEarlier ? readEarlierChart(path.join(dir, file)) : null;
    if (earlier === null) {
      fs.rmSync(path.join(dir, file), { force: true });
      continue;
    }
    const earlierRun = earlier.runId ?? 'an earlier run';
    links.push({
      id,
      title: `${id} (from ${earlierRun})`,
      caption: 'A per-scenario chart of an earlier run.',
      file,
      earlier_run: earlierRun,
    });
  }
  return links;
}

function readEarlierChart(filePath: string): { runId: string | null } | null {
  try {
    return { runId: drawnFor(fs.readFileSync(filePath, 'utf8')) };
  } catch {
    return null;
  }
}

export interface WriteReportInput extends Omit<ReportInput, 'charts'> {
  readonly reportsDir: string;
  readonly templatePath?: string;
  readonly secrets?: readonly string[];
}

/** Charts, then the Markdown report; returns the report's path and the view it was built from. */
export async function writeReport(input: WriteReportInput): Promise<{ reportPath: string; view: ReportView }> {
  fs.mkdirSync(input.reportsDir, { recursive: true });
  const chartOutcome = await writeCharts(input.reportsDir, input.archive.results, input.historyRuns, {
    runId: input.archive.run_id,
    keepEarlierCharts: input.archive.status !== 'passed',
    secrets: input.secrets,
  });
  const view = buildReportView({ ...input, charts: chartOutcome.charts, warnings: [...input.warnings, ...chartOutcome.warnings] });
  const markdown = renderMarkdown(view, input.templatePath);
  const reportPath = path.join(input.reportsDir, REPORT_FILE_NAME);
  writeTextSafely(reportPath, markdown, input.secrets);
  return { reportPath, view };
}
