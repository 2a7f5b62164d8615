/**
 * What bounds the recovery figures (pure): the bare floor (recovery_harness_overhead: plain
 * amqplib through the same proxy and fault) beside the harness's propagation and recovery after
 * removal, the fault spread, and the threads against the machine's cores. A table for the first
 * screen, and one sentence per scenario for its timeline chart.
 */
import type { RawResult } from '../results/rawResult';
import { descriptorOf, floorOf, SCENARIOS } from '../scenarios/catalogue';
import { targetMark } from './familyTables';
import { formatNumber } from './format';
import { markdownTable } from './markdown';

/** A recovery scenario's result (not a witness's, such as the harness/bare check that compares two sides of one). */
export function isRecoveryScenario(result: Pick<RawResult, 'name' | 'category'>): boolean {
  const descriptor = descriptorOf(result);
  return descriptor.suite === 'recovery' && descriptor.role === 'measurement';
}

/** The scenarios a bare floor bounds, by label: `TCP reset`. */
function floorSubjects(): string {
  return SCENARIOS.filter((descriptor) => descriptor.floorOf !== undefined)
    .map((descriptor) => descriptorOf({ name: descriptor.floorOf! }).label)
    .join(', ');
}

/** The witnesses that are a bare floor of a scenario. */
const FLOORS: ReadonlySet<string> = new Set(SCENARIOS.filter((descriptor) => descriptor.floorOf !== undefined).map((d) => d.name));

export interface FloorRow {
  readonly threads: string;
  readonly cores: string;
  readonly fault_spread: string;
  readonly propagation: string;
  readonly propagation_floor: string;
  readonly propagation_ratio: string;
  readonly recovery: string;
  readonly recovery_floor: string;
  readonly recovery_ratio: string;
}

export interface FloorTable {
  readonly rows: readonly FloorRow[];
  readonly table: string;
  readonly note: string;
}

const value = (result: RawResult, metric: string): number | null => {
  const figure = result.metrics[metric]?.value;
  return typeof figure === 'number' && Number.isFinite(figure) ? figure : null;
};
const cell = (figure: number | null): string => (figure === null ? '—' : formatNumber(figure));

/** A ratio cell with its target's mark: `104.2% ✅` (➖ when its interval straddles the target). */
function ratioCell(result: RawResult, metric: string): string {
  const figure = value(result, metric);
  if (figure === null) return '—';
  return `${formatNumber(figure)}%${targetMark(result, metric)}`;
}

/** The overhead results in thread order (one per thread count and client). */
function overheadResults(results: readonly RawResult[]): RawResult[] {
  return results.filter((result) => FLOORS.has(result.name)).sort((a, b) => Number(a.parameters.threads) - Number(b.parameters.threads));
}

/** The bare floor measured at the same thread count (and client) as `result`, if any. */
export function bareFloorFor(result: RawResult, results: readonly RawResult[]): RawResult | undefined {
  return overheadResults(results).find(
    (overhead) => overhead.parameters.threads === result.parameters.threads && overhead.parameters.client === result.parameters.client,
  );
}

/**
 * The floor table: one row per thread count of the overhead check.
 * @param cpuCount the machine's cores (the environment record's `cpu_count`)
 */
export function recoveryFloorTable(results: readonly RawResult[], cpuCount: number): FloorTable {
  const rows: FloorRow[] = overheadResults(results).map((result) => ({
    threads: String(result.parameters.threads ?? '?'),
    cores: String(cpuCount),
    fault_spread: cell(value(result, 'harness_fault_spread_ms')),
    propagation: cell(value(result, 'harness_propagation_ms')),
    propagation_floor: cell(value(result, 'bare_propagation_ms')),
    propagation_ratio: ratioCell(result, 'propagation_ratio_percent'),
    recovery: cell(value(result, 'harness_recovery_after_removal_ms')),
    recovery_floor: cell(value(result, 'bare_recovery_after_removal_ms')),
    recovery_ratio: ratioCell(result, 'recovery_after_removal_ratio_percent'),
  }));
  if (rows.length === 0) return { rows, table: '', note: '' };
  return {
    rows,
    table: markdownTable(
      [
        'Threads',
        'Cores',
        'Fault spread (ms)',
        'Propagation (ms)',
        'Bare floor (ms)',
        'Ratio',
        'Recovery after removal (ms)',
        'Bare floor (ms)',
        'Ratio',
      ],
      rows.map((row) => [
        row.threads,
        row.cores,
        row.fault_spread,
        row.propagation,
        row.propagation_floor,
        row.propagation_ratio,
        row.recovery,
        row.recovery_floor,
        row.recovery_ratio,
      ]),
      [true, true, true, true, true, true, true, true, true],
    ),
    note:
      `What bounds the ${floorSubjects()} figures: the bare floor is plain amqplib consumers in worker threads through the same proxy, fault, traffic and removal (${[...FLOORS].map((name) => `\`${name}\``).join(', ')}, medians of alternating pairs); ratio = harness / bare floor, target < 110%. ` +
      `With more threads than cores (${cpuCount} here, shared with the broker and the proxy), the floor is the machine's: each RST wakes a thread that preempts the proxy, so the resets leave over the fault spread, and the woken threads wait their turn to run.`,
  };
}

/**
 * One sentence for a scenario's timeline chart: its threads against the cores, its fault spread,
 * and the bare floor at its thread count when measured.
 */
export function boundNote(result: RawResult, results: readonly RawResult[], cpuCount: number | null): string {
  const threads = typeof result.parameters.threads === 'number' ? result.parameters.threads : null;
  const spread = value(result, 'fault_spread_ms');
  const cores = cpuCount === null ? 'an unrecorded number of cores' : `${cpuCount} cores`;
  const machine =
    threads === null
      ? `Threads unknown, on ${cores}`
      : cpuCount !== null && threads > cpuCount
        ? `Bound by the machine: ${threads} threads on ${cores}, shared with the broker and the proxy`
        : `${threads} threads on ${cores}, shared with the broker and the proxy`;
  const spreadText =
    spread === null
      ? 'fault spread unknown (no proxy timeline)'
      : `the proxy sent its resets over ${formatNumber(spread)} ms (fault spread: first to last)`;
  const floor = floorOf(result.name) === undefined ? undefined : bareFloorFor(result, results);
  const floorText = floor
    ? `; bare floor at ${threads} threads (plain amqplib, same fault): propagation ${cell(value(floor, 'bare_propagation_ms'))} ms, recovery after removal ${cell(value(floor, 'bare_recovery_after_removal_ms'))} ms`
    : '';
  return `${machine}; ${spreadText}${floorText}.`;
}
