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
  /** `55 / 61`: harness / bare. */
  readonly fault_spread: string;
  readonly propagation: string;
  readonly propagation_floor: string;
  /** Each connection's own detection (its own RST to its detection), median: `4.1 / 4.3`. */
  readonly connection_detection: string;
  readonly connection_detection_ratio: string;
  /** Each connection's own recovery (hearing of the removal to recovered), median. */
  readonly connection_recovery: string;
  readonly connection_recovery_ratio: string;
  readonly recovery: string;
  readonly recovery_floor: string;
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
const sides = (result: RawResult, stem: string): string =>
  `${cell(value(result, `harness_${stem}`))} / ${cell(value(result, `bare_${stem}`))}`;

/** A ratio cell with its target's mark: `104.2% ✅` (➖ when its interval straddles the target, ≠ when the two sides differ). */
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

const FLOOR_COLUMNS: readonly [keyof FloorRow, string][] = [
  ['threads', 'Threads'],
  ['cores', 'Cores'],
  ['fault_spread', 'Fault spread (ms), harness / bare'],
  ['propagation', 'Propagation (ms)'],
  ['propagation_floor', 'Bare floor (ms)'],
  ['connection_detection', 'Per connection: own RST to detection, p50 (ms), harness / bare'],
  ['connection_detection_ratio', 'Ratio'],
  ['connection_recovery', 'Per connection: removal heard to recovered, p50 (ms), harness / bare'],
  ['connection_recovery_ratio', 'Ratio'],
  ['recovery', 'Recovery after removal (ms)'],
  ['recovery_floor', 'Bare floor (ms)'],
];

/**
 * The floor table: one row per thread count of the overhead check.
 * @param cpuCount the machine's cores (the environment record's `cpu_count`)
 */
export function recoveryFloorTable(results: readonly RawResult[], cpuCount: number): FloorTable {
  const rows: FloorRow[] = overheadResults(results).map((result) => ({
    threads: String(result.parameters.threads ?? '?'),
    cores: String(cpuCount),
    fault_spread: sides(result, 'fault_spread_ms'),
    propagation: cell(value(result, 'harness_propagation_ms')),
    propagation_floor: cell(value(result, 'bare_propagation_ms')),
    connection_detection: sides(result, 'connection_detection_p50_ms'),
    connection_detection_ratio: ratioCell(result, 'connection_detection_p50_ratio_percent'),
    connection_recovery: sides(result, 'connection_recovery_p50_ms'),
    connection_recovery_ratio: ratioCell(result, 'connection_recovery_p50_ratio_percent'),
    recovery: cell(value(result, 'harness_recovery_after_removal_ms')),
    recovery_floor: cell(value(result, 'bare_recovery_after_removal_ms')),
  }));
  if (rows.length === 0) return { rows, table: '', note: '' };
  return {
    rows,
    table: markdownTable(
      FLOOR_COLUMNS.map(([, title]) => title),
      rows.map((row) => FLOOR_COLUMNS.map(([key]) => row[key])),
      FLOOR_COLUMNS.map(() => true),
    ),
    note:
      `What bounds the ${floorSubjects()} figures: the bare floor is plain amqplib consumers in worker threads through the same proxy, fault, traffic and removal (${[...FLOORS].map((name) => `\`${name}\``).join(', ')}, medians of alternating pairs, fresh threads on both sides every run). ` +
      `The harness is judged per connection, each from its own moment: ratio = harness / bare of the median connection, target < 110%; outside 80–125% the two sides did different work (≠), and the result says each side's figures. ` +
      `Propagation and recovery after removal are shown beside their floor, not divided: propagation is timed from the first RST, so it carries the proxy's fault spread, which is not the same on both sides. ` +
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
