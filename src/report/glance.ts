/**
 * The report's first screen (pure): the verdict in one line, the peaks, and the recovery figures
 * of every scenario side by side with their targets, short enough to read without scrolling.
 */
import type { RunArchive } from '../results/archive';
import { compareParameters, KEY_METRIC_DEFINITIONS, keyMetricLabel, type KeyMetric } from '../results/keyMetrics';
import { scenarioRank } from '../scenarios/catalogue';
import type { RawResult } from '../results/rawResult';
import { clientConfigurations, configurationOf } from './clientFigures';
import { configurationLabel, parametersText, recoveryScenarioLabel, varyingParameterKeys } from './configurations';
import { formatNumber, formatValue } from './format';
import { markdownTable } from './markdown';
import { RECOVERY_TABLE_LEGEND, withDerivedFigures } from './metricNames';
import { isRecoveryScenario, recoveryFloorTable, type FloorTable } from './recoveryFloor';
import { describeCheck, figureMet, targetChecks, type TargetCheck } from './targets';
import { targetMark } from './familyTables';

export interface PeakRow {
  readonly label: string;
  readonly value: string;
  readonly configuration: string;
}

export interface RecoveryRow {
  readonly scenario: string;
  readonly detection: string;
  readonly propagation: string;
  readonly detection_spread: string;
  readonly fault_spread: string;
  readonly full_recovery: string;
}

export interface Glance {
  /** `✅ passed: 21 tests passed, 16 skipped; all 16 targets met`. */
  readonly verdict: string;
  readonly targets_met: number;
  readonly targets_total: number;
  /** One line per target missed: its interval lies beyond the target. */
  readonly targets_missed: readonly string[];
  /** One line per target not settled: inconclusive (the interval straddles it), two sides that differ, without a value, or not scored on purpose. */
  readonly targets_open: readonly string[];
  readonly peaks: { readonly rows: readonly PeakRow[]; readonly table: string };
  readonly recovery: {
    readonly rows: readonly RecoveryRow[];
    readonly table: string;
    readonly legend: string;
    /** The bare floor beside the harness's figures, and what bounds them (recoveryFloor.ts). */
    readonly floor: FloorTable;
  };
  /** The specification's targets, in words, with what the marks mean. */
  readonly targets_text: string;
}

const STATUS_LABELS: Readonly<Record<string, string>> = {
  passed: '✅ passed',
  failed: '❌ failed',
  interrupted: '⏹️ interrupted',
  killed: '💀 killed',
};
/** Parameters that say what a configuration is, for a family run in one configuration only. */
const IDENTITY_PARAMETERS = ['threads', 'consumers', 'message_size_bytes', 'message_bytes', 'publish_mode', 'mode'];

export function statusLabel(status: string): string {
  return STATUS_LABELS[status] ?? status;
}

export function buildGlance(archive: RunArchive): Glance {
  const checks = targetChecks(archive.results, archive.key_metrics);
  const judged = checks.filter((check) => check.met !== null);
  const met = judged.filter((check) => check.met === true).length;
  return {
    verdict: verdictLine(archive, checks),
    targets_met: met,
    targets_total: checks.length,
    targets_missed: checks.filter((check) => check.met === false).map(describeCheck),
    // Kept apart from the misses: noise alone never makes a miss, and a reader must not take an
    // inconclusive interval for one.
    targets_open: checks
      .filter((check) => check.met === null)
      .map((check) =>
        check.inconclusive || check.differ
          ? `${describeCheck(check)} (${check.reason})`
          : `${describeCheck(check)} (${check.reason ? `not scored: ${check.reason}` : 'no value'})`,
      ),
    peaks: peaksOf(archive),
    recovery: {
      ...recoveryOf(archive.results, archive.key_metrics),
      floor: recoveryFloorTable(archive.results, archive.environment.cpu_count),
    },
    targets_text: `Targets (specification): ${targetsText()}; ✅ met, ❌ missed, ➖ inconclusive (the interval straddles the target), ≠ the two sides of a harness/bare check differ (they did different work).`,
  };
}

/** The key figures' targets in words, from the descriptors: `TCP reset: detection (first thread) < 10 ms, ...`. */
function targetsText(): string {
  return KEY_METRIC_DEFINITIONS.filter((definition) => definition.target !== undefined)
    .map((definition) => `${definition.label} ${target(definition.target!)}`)
    .join(', ');
}

function target(spec: { comparator: string; threshold: number; unit: string }): string {
  return spec.unit === 'ms' && spec.threshold >= 1000
    ? `${spec.comparator} ${spec.threshold / 1000} s`
    : `${spec.comparator} ${formatValue(spec.threshold, spec.unit)}`;
}

function verdictLine(archive: RunArchive, checks: readonly TargetCheck[]): string {
  const counts = archive.counts;
  const tests = [
    `${counts.passed} test${counts.passed === 1 ? '' : 's'} passed`,
    ...(counts.failed > 0 ? [`${counts.failed} failed`] : []),
    ...(counts.failed_suites > 0 ? [`${counts.failed_suites} file${counts.failed_suites === 1 ? '' : 's'} could not run`] : []),
    ...(counts.skipped + counts.todo > 0 ? [`${counts.skipped + counts.todo} skipped`] : []),
  ].join(', ');
  const missed = checks.filter((check) => check.met === false).length;
  const inconclusive = checks.filter((check) => check.inconclusive).length;
  const differ = checks.filter((check) => check.differ).length;
  const unscored = checks.filter(
    (check) => check.met === null && check.reason !== undefined && !check.inconclusive && !check.differ,
  ).length;
  const unknown = checks.filter((check) => check.met === null && check.reason === undefined).length;
  const open = missed + unknown + unscored + inconclusive + differ;
  const targets =
    checks.length === 0
      ? 'no target in this selection'
      : open === 0
        ? `all ${checks.length} targets met`
        : `${checks.length - open} of ${checks.length} targets met${missed > 0 ? `, ${missed} missed` : ''}${inconclusive > 0 ? `, ${inconclusive} inconclusive (the interval straddles the target)` : ''}${differ > 0 ? `, ${differ} with two sides that differ` : ''}${unknown > 0 ? `, ${unknown} without a value` : ''}${unscored > 0 ? `, ${unscored} not scored (upper bounds)` : ''}`;
  return `${statusLabel(archive.status)}: ${tests}; ${targets}`;
}

function peaksOf(archive: RunArchive): Glance['peaks'] {
  const rows = archive.key_metrics
    .filter((metric) => metric.id.startsWith('peak_'))
    .map((metric) => ({
      label: keyMetricLabel(metric),
      value: formatValue(metric.value, metric.unit),
      configuration: keyMetricConfiguration(metric, archive.results),
    }));
  return {
    rows,
    table:
      rows.length === 0
        ? ''
        : markdownTable(
            ['Peak', 'Value', 'Configuration'],
            rows.map((row) => [row.label, row.value, row.configuration]),
            [false, true, false],
          ),
  };
}

/** What tells the key metric's configuration apart within its family (or what it is, when the family ran once). */
export function keyMetricConfiguration(metric: KeyMetric, results: readonly RawResult[]): string {
  const family = results.filter((result) => result.name === metric.result_name);
  const varying = varyingParameterKeys(family);
  if (varying.length > 0) return configurationLabel({ parameters: metric.parameters }, varying);
  return parametersText(metric.parameters, IDENTITY_PARAMETERS);
}

/** The recovery scenarios of a run, in the report's order (TCP reset, partition, latency then reset), with their derived figures. */
export function recoveryScenarios(results: readonly RawResult[]): { readonly scenario: string; readonly result: RawResult }[] {
  return results
    .filter(isRecoveryScenario)
    .sort(
      (a, b) =>
        scenarioRank(a.name) - scenarioRank(b.name) || a.name.localeCompare(b.name) || compareParameters(a.parameters, b.parameters),
    )
    .map((result, _, all) => ({
      scenario: recoveryScenarioLabel(
        result,
        all.filter((candidate) => candidate.name === result.name),
      ),
      result: withDerivedFigures(result),
    }));
}

/** The columns of the recovery table, as raw metric names: detection, propagation, detection spread, fault spread, full recovery. */
export const GLANCE_RECOVERY_METRICS = [
  'error_detection_latency_ms',
  'error_propagation_latency_ms',
  'detection_spread_ms',
  'fault_spread_ms',
  'full_recovery_latency_ms',
] as const;

function recoveryOf(results: readonly RawResult[], keyMetrics: readonly KeyMetric[]): Omit<Glance['recovery'], 'floor'> {
  // Several client configurations (a shoot-out): the first screen shows the first one's scenarios;
  // every configuration's figures are in Clients side by side and the recovery tables below.
  const configurations = clientConfigurations(results.filter(isRecoveryScenario));
  const first = configurations.length > 1 ? configurations[0] : undefined;
  const shown = first ? results.filter((result) => configurationOf(result)?.label === first.label) : results;
  const recovery = recoveryScenarios(shown);
  // Numbers alone (the headers say ms), so a cell never wraps on a narrow page.
  const value = (result: RawResult, metric: string) => {
    const figure = result.metrics[metric];
    if (!figure || figure.value === null) return '—';
    return `${formatNumber(figure.value)}${targetMark(result, metric, figureMet(result, metric, keyMetrics))}`;
  };
  const rows: RecoveryRow[] = recovery.map(({ scenario, result }) => ({
    scenario,
    detection: value(result, 'error_detection_latency_ms'),
    propagation: value(result, 'error_propagation_latency_ms'),
    detection_spread: value(result, 'detection_spread_ms'),
    fault_spread: value(result, 'fault_spread_ms'),
    full_recovery: value(result, 'full_recovery_latency_ms'),
  }));
  return {
    rows,
    table:
      rows.length === 0
        ? ''
        : markdownTable(
            ['Scenario', 'Detection (ms)', 'Propagation (ms)', 'Detection spread (ms)', 'Fault spread (ms)', 'Full recovery (ms)'],
            rows.map((row) => [row.scenario, row.detection, row.propagation, row.detection_spread, row.fault_spread, row.full_recovery]),
            [false, true, true, true, true, true],
          ),
    legend:
      rows.length === 0
        ? ''
        : first
          ? `${first.label}, the first of ${configurations.length} client configurations in this run (every configuration's figures: Clients side by side, and the recovery tables below). ${RECOVERY_TABLE_LEGEND}`
          : RECOVERY_TABLE_LEGEND,
  };
}
