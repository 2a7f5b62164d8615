/**
 * The report's view model: everything the Markdown template shows, already formatted (units,
 * separators, dates), built from the archive, the history and the comparison (pure). A custom
 * template gets the same object; each table is given both as rows and as ready Markdown.
 */
import type { TestCounts } from '../results/outcome';
import type { RunArchive } from '../results/archive';
import type { RunComparison } from '../results/compare';
import type { Regression } from '../results/gate';
import { keyMetricLabel } from '../results/keyMetrics';
import type { HistoryEntry } from '../results/history';
import { escapeCell, formatBytes, formatDate, formatDuration, formatValue } from './format';
import { buildCategorySections, type CategorySection } from './resultTables';
import { buildComparisonView, type ComparisonView } from './comparisonView';
import { buildClientsSection, type ClientsSection } from './clientsSection';
import { buildFaultMatrix, type FaultMatrixSection } from './faultMatrix';
import { buildStallMemory, type StallMemorySection } from './stallMemory';
import { buildFindingsSection, type FindingsSection } from './findingsSection';
import { buildGlance, statusLabel, type Glance } from './glance';
import { shortParameters } from './labels';
import { markdownTable } from './markdown';
import { verificationText } from './verificationText';
import type { CitedVerification } from '../results/verifications';

export interface ChartLink {
  readonly id: string;
  readonly title: string;
  readonly caption: string;
  /** File name, relative to the report. */
  readonly file: string;
  /**
   * Set when the chart was kept from an earlier report because this run failed before producing
   * its data: that run's id, or `an earlier run` when the file does not say.
   */
  readonly earlier_run?: string | null;
}

export interface ReportInput {
  readonly archive: RunArchive;
  readonly archiveFile: string;
  /** Every run of the history, the current one included (for the trend). */
  readonly historyRuns: readonly HistoryEntry[];
  readonly comparison: RunComparison | null;
  /** Why there is no comparison (e.g. first run), shown instead of it. */
  readonly comparisonNote: string | null;
  readonly thresholdPercent: number | null;
  readonly regressions: readonly Regression[];
  readonly charts: readonly ChartLink[];
  readonly generatedAt: Date;
  /** Pipeline warnings (corrupt history moved aside, chart not rendered, ...). */
  readonly warnings: readonly string[];
  /** The harness's own check this report cites (`bench verify`); absent or null: none. */
  readonly verification?: CitedVerification | null;
}

export interface KeyMetricRow {
  readonly label: string;
  readonly scenario: string;
  readonly value: string;
  readonly target: string;
  readonly status: string;
}

export interface ReportView {
  readonly title: string;
  readonly generated_at: string;
  readonly run: {
    readonly run_id: string;
    readonly status: string;
    readonly status_label: string;
    readonly started_at: string;
    readonly finished_at: string;
    readonly duration: string;
    readonly marker_expression: string;
    readonly test_name_filter: string;
    readonly invoked_by: string;
    readonly archive_file: string;
  };
  /** The harness's own check this report cites, in one line (`bench verify`). */
  readonly harness_verification: string;
  readonly environment: {
    readonly fingerprint: string;
    readonly rows: readonly { field: string; value: string }[];
    readonly table: string;
  };
  readonly summary: TestCounts & {
    readonly results_count: number;
    readonly targets_met: number;
    readonly targets_total: number;
    readonly table: string;
    readonly failures: readonly { name: string; message: string }[];
    readonly warnings: readonly string[];
  };
  readonly key_metrics: { readonly rows: readonly KeyMetricRow[]; readonly table: string };
  /** The first screen: verdict, peaks, recovery figures with their targets. */
  readonly glance: Glance;
  /** Per client, what it did wrong in each scenario with the evidence, and the harness's failures apart (null without either). */
  readonly findings: FindingsSection | null;
  /** Fault × client configuration: each cell's verdict, the findings with their evidence (null without matrix results). */
  readonly fault_matrix: FaultMatrixSection | null;
  /** What each configuration took in while its writes were stalled (null unless a matrix cell stalled them). */
  readonly stall_memory: StallMemorySection | null;
  /** Every client configuration of the run side by side, with its findings (null with fewer than two). */
  readonly clients: (ClientsSection & { readonly chart: ChartLink | null }) | null;
  readonly categories: readonly CategorySection[];
  readonly comparison: ComparisonView | null;
  readonly comparison_note: string | null;
  readonly charts: readonly ChartLink[];
  /** Charts kept from an earlier report (this run failed before it could redraw them). */
  readonly charts_from_earlier_runs: readonly ChartLink[];
  readonly history_runs: number;
}

export function buildReportView(input: ReportInput): ReportView {
  const { archive } = input;
  const glance = buildGlance(archive);
  return {
    title: 'AMQP client benchmark report',
    generated_at: formatDate(input.generatedAt.toISOString()),
    run: runSection(input),
    harness_verification: verificationText(input.verification ?? null),
    environment: environmentSection(archive.environment),
    summary: summarySection(input, glance),
    key_metrics: keyMetricsSection(archive),
    glance,
    findings: buildFindingsSection(archive.results, archive.tests),
    fault_matrix: buildFaultMatrix(archive.results),
    stall_memory: buildStallMemory(archive.results),
    clients: withChart(buildClientsSection(archive.results, archive.tests), input.charts),
    categories: buildCategorySections(archive.results, archive.tests),
    comparison: input.comparison ? buildComparisonView(input.comparison, input.thresholdPercent, input.regressions) : null,
    comparison_note: input.comparison ? null : input.comparisonNote,
    charts: input.charts,
    charts_from_earlier_runs: input.charts.filter((chart) => chart.earlier_run !== undefined && chart.earlier_run !== null),
    history_runs: input.historyRuns.length,
  };
}

function runSection(input: ReportInput): ReportView['run'] {
  const { archive } = input;
  return {
    run_id: archive.run_id,
    status: archive.status,
    status_label: statusLabel(archive.status),
    started_at: formatDate(archive.started_at),
    finished_at: formatDate(archive.finished_at),
    duration: formatDuration(archive.duration_ms),
    marker_expression: archive.marker_expression ?? 'all benchmarks',
    test_name_filter: archive.test_name_filter ?? 'none',
    invoked_by: archive.invoked_by === 'cli' ? 'run script' : 'Jest reporter',
    archive_file: input.archiveFile,
  };
}

function environmentSection(environment: ReportInput['archive']['environment']): ReportView['environment'] {
  const environmentRows = [
    { field: 'Fingerprint', value: `\`${environment.fingerprint}\`` },
    { field: 'Git commit', value: `\`${environment.git_commit.slice(0, 12)}\`${environment.git_dirty ? ' (uncommitted changes)' : ''}` },
    { field: 'Node.js', value: environment.node_version },
    { field: 'Platform', value: `${environment.platform} (${environment.os_release})` },
    { field: 'CPU', value: `${environment.cpu_model} × ${environment.cpu_count}` },
    { field: 'Memory', value: formatBytes(environment.total_memory_bytes) },
    { field: 'amqplib', value: environment.amqplib_version },
    { field: 'RabbitMQ', value: environment.rabbitmq_version ?? 'unknown (broker not reached)' },
    ...(environment.fault_proxy_kind === undefined
      ? []
      : [
          {
            field: 'Fault proxy',
            value: environment.fault_proxy_kind
              ? `${environment.fault_proxy_kind} ${environment.fault_proxy_version ?? ''}`.trim()
              : 'none',
          },
        ]),
    { field: 'Broker', value: environment.broker_url ? `\`${environment.broker_url}\`` : '—' },
    { field: 'Captured', value: formatDate(environment.captured_at) },
  ];
  return {
    fingerprint: environment.fingerprint,
    rows: environmentRows,
    table: markdownTable(
      ['Field', 'Value'],
      environmentRows.map((row) => [row.field, row.value]),
    ),
  };
}

function summarySection(input: ReportInput, glance: Glance): ReportView['summary'] {
  const { archive } = input;
  const counts = archive.counts;
  const failures = [
    ...archive.tests
      .filter((test) => test.status === 'failed')
      .map((test) => ({ name: test.full_name, message: firstLine(test.failure_message) })),
    ...archive.suite_errors.map((error) => ({ name: `${error.file} (could not run)`, message: firstLine(error.message) })),
  ];
  return {
    ...counts,
    results_count: archive.results.length,
    targets_met: glance.targets_met,
    targets_total: glance.targets_total,
    table: markdownTable(
      ['Status', 'Passed', 'Failed', 'Skipped', 'Total', 'Results', 'Duration'],
      [
        [
          statusLabel(archive.status),
          String(counts.passed),
          String(counts.failed + counts.failed_suites),
          String(counts.skipped + counts.todo),
          String(counts.total),
          String(archive.results.length),
          formatDuration(archive.duration_ms),
        ],
      ],
    ),
    failures: failures.map((failure) => ({ name: escapeCell(failure.name), message: escapeCell(failure.message) })),
    warnings: [
      ...archive.warnings,
      ...archive.invalid_result_files.map((file) => `raw result ${file.file} was skipped: ${file.error}`),
      ...input.warnings,
    ],
  };
}

function keyMetricsSection(archive: ReportInput['archive']): ReportView['key_metrics'] {
  const keyRows: KeyMetricRow[] = archive.key_metrics.map((metric) => ({
    label: keyMetricLabel(metric),
    scenario: Object.keys(metric.parameters).length > 0 ? shortParameters(metric.parameters) : '—',
    value: formatValue(metric.value, metric.unit),
    target: metric.target ? `${metric.target.comparator} ${formatValue(metric.target.threshold, metric.target.unit)}` : '—',
    status:
      metric.target === null
        ? '—'
        : metric.met === true
          ? '✅ met'
          : metric.met === false
            ? '❌ missed'
            : metric.met_reason
              ? 'not scored (upper bound)'
              : '⚠️ no value',
  }));
  return {
    rows: keyRows,
    table:
      keyRows.length === 0
        ? ''
        : markdownTable(
            ['Metric', 'Scenario', 'Value', 'Target', 'Status'],
            keyRows.map((row) => [row.label, row.scenario, row.value, row.target, row.status]),
          ),
  };
}

function withChart(section: ClientsSection | null, charts: readonly ChartLink[]): ReportView['clients'] {
  return section && { ...section, chart: charts.find((chart) => chart.id === 'clients-side-by-side') ?? null };
}

function firstLine(message: string | null): string {
  if (!message) return 'no message';
  const line = message.split('\n').find((text) => text.trim() !== '') ?? message;
  return line.trim().slice(0, 300);
}
