/**
 * The report's "Clients side by side" section (pure): one row per client configuration for each
 * figure the scenario descriptors declare for it (src/scenarios/, `clientFigures`: rates, confirm
 * latency, the harness-overhead ratio, fault detection and recovery, messages lost and
 * duplicated), with what went wrong for each client said in its row, and each library's version
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
  type FigureSpec,
} from './clientFigures';
import { clientVerdict, type ClientVerdict } from './clientFindings';
import { parametersText } from './configurations';
import { formatValue } from './format';
import { markdownTable } from './markdown';
import { fullScenarioName, rowVerdict, scenarioLabels, scenarioList, type ScenarioLabels } from './verdictText';

export interface ClientRow {
  readonly client: string;
  readonly library: string;
  readonly version: string;
  /** `heartbeat=5, retryLow=100` in the library's own option names. */
  readonly settings: string;
  /** Each figure formatted with its unit; `—` when the run has none for this client. */
  readonly figures: Readonly<Record<FigureId, string>>;
  /** What the client did wrong (did not recover, lost confirmed messages, an error nobody handled), each with where and its scenario in full; empty when nothing. */
  readonly findings: readonly string[];
  /** Its tests the harness failed (no verdict on the client), with the reason. */
  readonly harness_failures: readonly string[];
  /** Scenarios it cannot run as named, each with why (a capability its adapter declares): neither a finding nor a failure. */
  readonly cannot_run: readonly string[];
  /**
   * `✅ recovered every time, nothing lost`, or the findings (❌: scenario by scenario, each named by
   * its short label, one finding of several threads said once), the harness failures (⚠), and what
   * it cannot run (➖), the parts and scenarios apart by line breaks (`<br>`): one table cell.
   */
  readonly verdict: string;
}

export interface ClientsSection {
  readonly rows: readonly ClientRow[];
  /** Publish, consume, confirm latency and the harness-overhead ratio. */
  readonly throughput_table: string;
  /** Detection, propagation, recovery after removal, messages lost and duplicated, the verdict. */
  readonly faults_table: string;
  /**
   * The scenarios the verdicts name, each once with its result name and parameters (a verdict
   * names them by a short label): a Markdown line and a list, for under the faults table; empty
   * when no verdict names one.
   */
  readonly scenarios_list: string;
  /** Library, version and settings per configuration, one bullet each (settings are too long for a table cell). */
  readonly settings_list: readonly string[];
  /** Which configuration each column comes from, and how to read it. */
  readonly notes: readonly string[];
  readonly findings_count: number;
}

const columnsOf = (table: FigureSpec['table']): readonly FigureSpec[] => FIGURE_SPECS.filter((spec) => spec.table === table);

/** The section, or null when the run measured fewer than two client configurations. */
export function buildClientsSection(results: readonly RawResult[], tests: readonly TestOutcome[]): ClientsSection | null {
  const configurations = clientConfigurations(results);
  if (configurations.length < 2) return null;
  const sources = new Map(FIGURE_SPECS.map((spec) => [spec.id, figureSource(spec, results)] as const));
  const verdicts = configurations.map((configuration) => clientVerdict(configuration, results, tests, configurations.length));
  // Labelled across the whole table: one label is one scenario in every row.
  const named = verdicts.flatMap((verdict) => [...verdict.findings, ...verdict.cannotRun].map((each) => each.scenario));
  const labels = scenarioLabels(named);
  const rows = configurations.map((configuration, index) => clientRow(configuration, verdicts[index]!, results, tests, sources, labels));
  const header = (specs: readonly FigureSpec[]) => ['Client', ...specs.map((spec) => spec.column)];
  const numeric = (specs: readonly FigureSpec[]) => [false, ...specs.map(() => true)];
  const throughput = columnsOf('throughput');
  const faults = columnsOf('faults');
  return {
    rows,
    throughput_table: markdownTable(
      header(throughput),
      rows.map((row) => [row.client, ...throughput.map((spec) => row.figures[spec.id] ?? '—')]),
      numeric(throughput),
    ),
    faults_table: markdownTable(
      [...header(faults), 'Verdict'],
      rows.map((row) => [row.client, ...faults.map((spec) => row.figures[spec.id] ?? '—'), row.verdict]),
      [...numeric(faults), false],
    ),
    scenarios_list: scenarioList(named, labels),
    settings_list: rows.map((row) => `**${row.client}**: ${row.library} ${row.version}; ${row.settings}`),
    notes: columnNotes(sources),
    findings_count: rows.filter((row) => row.findings.length > 0).length,
  };
}

function clientRow(
  configuration: ClientConfiguration,
  { findings, harnessFailures, cannotRun }: ClientVerdict,
  results: readonly RawResult[],
  tests: readonly TestOutcome[],
  sources: ReadonlyMap<FigureId, FigureSource>,
  labels: ScenarioLabels,
): ClientRow {
  const described = results.find(
    (result) => result.client && `${result.client.name} (${result.client.profile})` === configuration.label,
  )?.client;
  const failedTests = new Set(tests.filter((test) => test.status === 'failed').map((test) => test.test_id));
  const figures = Object.fromEntries(
    FIGURE_SPECS.map((spec) => {
      const picked = pickFigure(sources.get(spec.id)!, configuration, results);
      // A figure its test failed after recording says so: a "0 lost" of a run that stopped half-way is no result.
      const cell = figureCell(spec, picked);
      return [spec.id, picked && failedTests.has(picked.result.test_id) ? `${cell} (test failed)` : cell];
    }),
  ) as Record<FigureId, string>;
  return {
    client: configuration.label,
    // A client from outside names its adapter module too: the library alone would not say which wrapper ran.
    library: (described?.library ?? configuration.name) + (described?.adapter_module ? ` via \`${described.adapter_module}\`` : ''),
    version: described?.version ?? 'unknown',
    settings: described ? settingsText(described.settings) : '—',
    figures,
    findings: findings.map(
      (finding) => `${finding.where ? `${finding.where}: ` : ''}${finding.text} (${fullScenarioName(finding.scenario)})`,
    ),
    harness_failures: harnessFailures,
    cannot_run: cannotRun.map((each) => `${fullScenarioName(each.scenario)}: ${each.reason}`),
    verdict: rowVerdict(findings, harnessFailures, cannotRun, labels),
  };
}

function figureCell(spec: FigureSpec, picked: ReturnType<typeof pickFigure>): string {
  if (!picked) return '—';
  // A recovery figure without a value: some thread never came back (the verdict says which).
  if (picked.value === null) return spec.cell?.kind === 'recovery' ? 'did not recover' : 'no value';
  const text = formatValue(picked.value, picked.unit);
  switch (spec.cell?.kind) {
    case 'ratio_at_least':
      return picked.value >= spec.cell.percent ? `${text} ✅` : `${text} ❌`;
    case 'loss':
      return picked.value > 0 ? `❌ ${text}` : text;
    case 'duplicates': {
      const unexplained = picked.result.metrics.unexplained_duplicates?.value ?? 0;
      return unexplained > 0 ? `${text} (❌ ${unexplained} unexplained)` : text;
    }
    case 'recovery':
    case undefined:
      return text;
  }
}

/** `heartbeat=5 · reconnectTimeInSeconds=default`, keys in the library's order. */
function settingsText(settings: Readonly<Record<string, string | number | boolean>>): string {
  const entries = Object.entries(settings);
  return entries.length === 0 ? 'library defaults' : entries.map(([key, value]) => `${key}=${String(value)}`).join(' · ');
}

/** What each column is and which configuration it comes from, one line per family. */
function columnNotes(sources: ReadonlyMap<FigureId, FigureSource>): string[] {
  const byFamily = new Map<string, FigureSpec[]>();
  for (const spec of FIGURE_SPECS) byFamily.set(spec.family, [...(byFamily.get(spec.family) ?? []), spec]);
  const lines = [...byFamily.entries()].map(([family, specs]) => {
    const columns = specs.map((spec) => {
      const source = sources.get(spec.id);
      const from = !source || source.parameter === null || source.value === null ? '' : ` with ${source.parameter}=${source.value}`;
      const where = parametersText(spec.where ?? {}).replace(/ · /g, ', ');
      const configuration = `${where === 'default' ? '' : where}${from}`.trim();
      return `${spec.column}${configuration ? ` (${configuration})` : ''}: ${spec.note}`;
    });
    return `From \`${family}\`: ${columns.join('; ')}.`;
  });
  return [
    ...lines,
    'A client that failed a scenario is a finding, not the end of the run: its row says what went wrong (❌), scenario by scenario (each named by a short label, its parameters listed under the table; a finding of several threads said once, `each` when its count is each thread’s), and the other clients were measured all the same. ⚠: a test whose harness part failed (a fault not injected, a thread of its own that could not start, a bound of its own hit): no verdict on the client. ➖ cannot run: a scenario the library cannot run as named (a capability its adapter declares, said with the row): nothing measured, neither a finding nor a failure. `—`: the run has no such result for this client (not selected, or its test failed before recording one).',
  ];
}
