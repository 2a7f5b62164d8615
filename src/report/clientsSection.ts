/**
 * The report's "Clients side by side" section (pure): one row per client configuration for each
 * key figure — publish and consume rate, confirm latency, the harness-overhead ratio, RST
 * detection and propagation, partition detection, recovery after removal, messages lost and
 * duplicated — with what went wrong for each client said in its row, and each library's version
 * and settings. Shown when a run measured two or more client configurations
 * (`npm run bench:clients`, BENCH_CLIENTS).
 */
import type { TestOutcome } from '../results/outcome';
import type { RawResult } from '../results/rawResult';
import {
  clientConfigurations,
  FIGURE_SPECS,
  figureSource,
  pickFigure,
  type ClientConfiguration,
  type FigureId,
  type FigureSource,
} from './clientFigures';
import { clientFindings } from './clientFindings';
import { formatValue } from './format';
import { markdownTable } from './markdown';

export interface ClientRow {
  readonly client: string;
  readonly library: string;
  readonly version: string;
  /** `heartbeat=5, retryLow=100` in the library's own option names. */
  readonly settings: string;
  /** Each figure formatted with its unit; `—` when the run has none for this client. */
  readonly figures: Readonly<Record<FigureId, string>>;
  /** What went wrong (did not recover, lost confirmed messages, failed tests); empty when nothing did. */
  readonly findings: readonly string[];
  /** `✅ recovered every time, nothing lost` or the findings, one line. */
  readonly verdict: string;
}

export interface ClientsSection {
  readonly rows: readonly ClientRow[];
  /** Publish, consume, confirm latency and the harness-overhead ratio. */
  readonly throughput_table: string;
  /** Detection, propagation, recovery after removal, messages lost and duplicated, the verdict. */
  readonly faults_table: string;
  /** Library, version and settings per configuration, one bullet each (settings are too long for a table cell). */
  readonly settings_list: readonly string[];
  /** Which configuration each column comes from, and how to read it. */
  readonly notes: readonly string[];
  readonly findings_count: number;
}

const COLUMN_TITLES: Readonly<Record<FigureId, string>> = {
  publish_rate: 'Publish',
  confirm_p50: 'Confirm p50',
  confirm_p99: 'Confirm p99',
  consume_rate: 'Consume',
  harness_ratio: 'Harness/bare',
  rst_detection: 'RST detection',
  rst_propagation: 'RST propagation',
  rst_recovery_after_removal: 'RST recovery after removal',
  partition_detection: 'Partition detection',
  partition_recovery_after_removal: 'Partition recovery after removal',
  messages_lost: 'Lost',
  duplicates: 'Duplicates',
};

const THROUGHPUT_COLUMNS: readonly FigureId[] = ['publish_rate', 'consume_rate', 'confirm_p50', 'confirm_p99', 'harness_ratio'];
const FAULT_COLUMNS: readonly FigureId[] = [
  'rst_detection',
  'rst_propagation',
  'rst_recovery_after_removal',
  'partition_detection',
  'partition_recovery_after_removal',
  'messages_lost',
  'duplicates',
];

/** The harness must reach this share of a bare script (src/throughput/result.ts HARNESS_OVERHEAD_TARGET_PERCENT). */
const HARNESS_TARGET_PERCENT = 90;

/** The section, or null when the run measured fewer than two client configurations. */
export function buildClientsSection(results: readonly RawResult[], tests: readonly TestOutcome[]): ClientsSection | null {
  const configurations = clientConfigurations(results);
  if (configurations.length < 2) return null;
  const sources = new Map(FIGURE_SPECS.map((spec) => [spec.id, figureSource(spec, results)] as const));
  const rows = configurations.map((configuration) => clientRow(configuration, results, tests, sources, configurations.length));
  const header = (ids: readonly FigureId[]) => ['Client', ...ids.map((id) => COLUMN_TITLES[id])];
  const numeric = (ids: readonly FigureId[]) => [false, ...ids.map(() => true)];
  return {
    rows,
    throughput_table: markdownTable(
      header(THROUGHPUT_COLUMNS),
      rows.map((row) => [row.client, ...THROUGHPUT_COLUMNS.map((id) => row.figures[id])]),
      numeric(THROUGHPUT_COLUMNS),
    ),
    faults_table: markdownTable(
      [...header(FAULT_COLUMNS), 'Verdict'],
      rows.map((row) => [row.client, ...FAULT_COLUMNS.map((id) => row.figures[id]), row.verdict]),
      [...numeric(FAULT_COLUMNS), false],
    ),
    settings_list: rows.map((row) => `**${row.client}**: ${row.library} ${row.version}; ${row.settings}`),
    notes: columnNotes(sources),
    findings_count: rows.filter((row) => row.findings.length > 0).length,
  };
}

function clientRow(
  configuration: ClientConfiguration,
  results: readonly RawResult[],
  tests: readonly TestOutcome[],
  sources: ReadonlyMap<FigureId, FigureSource>,
  configurationsInRun: number,
): ClientRow {
  const described = results.find(
    (result) => result.client && `${result.client.name} (${result.client.profile})` === configuration.label,
  )?.client;
  const failedTests = new Set(tests.filter((test) => test.status === 'failed').map((test) => test.test_id));
  const figures = Object.fromEntries(
    FIGURE_SPECS.map((spec) => {
      const picked = pickFigure(sources.get(spec.id)!, configuration, results);
      // A figure its test failed after recording says so: a "0 lost" of a run that stopped half-way is no result.
      const cell = figureCell(spec.id, picked);
      return [spec.id, picked && failedTests.has(picked.result.test_id) ? `${cell} (test failed)` : cell];
    }),
  ) as Record<FigureId, string>;
  const findings = clientFindings(configuration, results, tests, configurationsInRun);
  return {
    client: configuration.label,
    library: described?.library ?? configuration.name,
    version: described?.version ?? 'unknown',
    settings: described ? settingsText(described.settings) : '—',
    figures,
    findings,
    verdict: findings.length === 0 ? '✅ recovered every time, nothing lost' : `❌ ${findings.join('; ')}`,
  };
}

function figureCell(id: FigureId, picked: ReturnType<typeof pickFigure>): string {
  if (!picked) return '—';
  // A recovery figure without a value: some thread never came back (the verdict says which).
  if (picked.value === null) return id.endsWith('recovery_after_removal') ? 'did not recover' : 'no value';
  const text = formatValue(picked.value, picked.unit);
  if (id === 'harness_ratio') return picked.value >= HARNESS_TARGET_PERCENT ? `${text} ✅` : `${text} ❌`;
  if (id === 'messages_lost' && picked.value > 0) return `❌ ${text}`;
  if (id === 'duplicates') {
    const unexplained = picked.result.metrics.unexplained_duplicates?.value ?? 0;
    return unexplained > 0 ? `${text} (❌ ${unexplained} unexplained)` : text;
  }
  return text;
}

/** `heartbeat=5 · reconnectTimeInSeconds=default`, keys in the library's order. */
function settingsText(settings: Readonly<Record<string, string | number | boolean>>): string {
  const entries = Object.entries(settings);
  return entries.length === 0 ? 'library defaults' : entries.map(([key, value]) => `${key}=${String(value)}`).join(' · ');
}

function columnNotes(sources: ReadonlyMap<FigureId, FigureSource>): string[] {
  const from = (id: FigureId) => {
    const source = sources.get(id)!;
    return source.parameter === null || source.value === null ? '' : ` with ${source.parameter}=${source.value}`;
  };
  return [
    `Publish: \`publish_throughput\` plain, 256 B${from('publish_rate')} (msg/s, median of the replicates); Consume: \`sustained_consume\` 256 B${from('consume_rate')}, manual ack (msg/s); Confirm p50/p99: \`publish_throughput\` confirm, 256 B${from('confirm_p50')}, publish to the broker's confirm; Harness/bare: the harness's publish rate against the library's bare script (target >= ${HARNESS_TARGET_PERCENT}%).`,
    `RST and partition figures: \`recovery_after_reset_peer\` / \`recovery_after_network_partition\`${from('rst_detection')}, milliseconds from the fault (detection: first thread; propagation: every thread), recovery after removal: from the toxic's removal to every thread consuming again (medians of the replicates; the verdict looks at every replicate).`,
    'Lost and Duplicates: `realistic_recovery_correctness` (confirmed, persistent messages through three RST cycles): confirmed messages never delivered, and deliveries beyond the first (at-least-once allows them; unexplained ones are a finding).',
    'A client that failed a scenario is a finding, not the end of the run: its row says what went wrong, and the other clients were measured all the same. `—`: the run has no such result for this client (not selected, or its test failed before recording one).',
  ];
}
