/**
 * Common-mode shifts between two runs (pure): the whole machine slower (or faster) during one of
 * them. Two runs made minutes apart share nothing but the code, and a shared machine drifts: when
 * nearly every metric of a family moves the same way together, the code is one explanation and
 * the machine another. The run's own bare floor tells them apart — the witnesses that run the
 * library alone, without the harness, beside the client in the same run (harness/bare): a floor
 * that moved with the family says the machine moved, and the family's client metrics are then
 * judged relative to it (their change less the floor's); a floor that stayed says the code moved,
 * and they are judged as they are. Without a floor in the run (the quick selection has none),
 * the shift is named and nothing is adjusted.
 */
import { median, type NonEmptyArray } from '../measure/statistics';
import { descriptorOf } from '../scenarios/catalogue';
import type { MetricFamily } from '../minimumEffects';
import type { ComparableResult } from './compare';
import type { WeighedResult } from './verdicts';

/** Families a machine's speed moves: rates, and times of traffic and of recovery. */
const SHIFTING_FAMILIES: readonly MetricFamily[] = ['throughput', 'latency', 'recovery'];
/** "Nearly every": this share of a family's tested client metrics moved the same way. */
export const SAME_WAY_SHARE = 0.9;
/** Fewer tested metrics than this say nothing about a family as a whole. */
export const MIN_FAMILY_METRICS = 4;
/** The family's median move, as a share of its minimum effect, that is worth explaining. */
const SHIFT_OF_MINIMUM = 0.5;
/** The floor moved "with" the family when it moved its way by at least this share of the family's median. */
const FLOOR_SHARE = 0.5;

/** A floor's metric: a witness result's `bare_*` figure, a rate (msg/s) or a time (ms). */
export interface FloorChange {
  readonly label: string;
  /** Current speed over previous speed (a rate's ratio; a time's inverse ratio). */
  readonly speedRatio: number;
  /** Rates bound throughput and traffic latencies; times bound recovery. */
  readonly kind: 'rate' | 'time';
}

export interface MachineShift {
  readonly family: MetricFamily;
  /** The family's client metrics that were tested, and how many moved the majority's way. */
  readonly metrics: number;
  readonly same_way: number;
  /** The family's median move, in speed: −23 is 23% slower (rates down, times up). */
  readonly family_speed_change_percent: number;
  /** The floor's move in speed (null: no floor in this run). */
  readonly floor_speed_change_percent: number | null;
  readonly floor: readonly string[];
  /** The floor moved with the family: its client metrics are judged relative to the floor. */
  readonly relative_to_floor: boolean;
  /** The machine's speed ratio the family's client metrics were judged against (1: judged as they are). */
  readonly applied_speed_ratio: number;
}

/** Speed ratio of a metric's change: a rate's ratio, a time's inverse. */
const speedOf = (ratio: number, higherIsBetter: boolean): number => (higherIsBetter ? ratio : 1 / ratio);
const percentOf = (speedRatio: number): number => Math.round((speedRatio - 1) * 1000) / 10;

/** The bare floors both runs measured (witness results' `bare_*` metrics, by result key). */
export function floorChanges(before: ReadonlyMap<string, ComparableResult>, after: ReadonlyMap<string, ComparableResult>): FloorChange[] {
  const floors: FloorChange[] = [];
  for (const [key, result] of after) {
    const old = before.get(key);
    if (!old || descriptorOf(result).role !== 'witness') continue;
    for (const [metric, now] of Object.entries(result.metrics)) {
      const then = old.metrics[metric]?.value;
      const kind = now.unit.endsWith('/s') ? 'rate' : now.unit === 'ms' ? 'time' : null;
      if (!metric.startsWith('bare_') || kind === null || typeof then !== 'number' || then <= 0) continue;
      if (typeof now.value !== 'number' || now.value <= 0) continue;
      floors.push({ label: `${key} ${metric}`, speedRatio: speedOf(now.value / then, kind === 'rate'), kind });
    }
  }
  return floors;
}

/** Whether a result measures the client (not the harness checking itself). */
export function isClientResult(result: Pick<ComparableResult, 'name' | 'category'>): boolean {
  return descriptorOf(result).role === 'measurement';
}

/**
 * The families whose client metrics nearly all moved one way by more than half their minimum
 * effect, with what the floor did meanwhile.
 * @param minimumPercent each family's configured minimum effect, in %
 */
export function findMachineShifts(
  weighed: readonly WeighedResult[],
  floors: readonly FloorChange[],
  minimumPercent: Readonly<Record<MetricFamily, number>>,
): MachineShift[] {
  const shifts: MachineShift[] = [];
  for (const family of SHIFTING_FAMILIES) {
    const speeds = weighed
      .filter((entry) => isClientResult(entry.result))
      .flatMap((entry) => entry.metrics)
      .filter((metric) => metric.family === family && !metric.constant && metric.change?.estimate_percent != null)
      .map((metric) => speedOf(1 + metric.change!.estimate_percent! / 100, metric.direction === 'higher'));
    if (speeds.length < MIN_FAMILY_METRICS) continue;
    const slower = speeds.filter((speed) => speed < 1).length;
    const faster = speeds.filter((speed) => speed > 1).length;
    const sameWay = Math.max(slower, faster);
    const familySpeed = median(speeds as unknown as NonEmptyArray<number>);
    if (sameWay < SAME_WAY_SHARE * speeds.length) continue;
    if (Math.abs(familySpeed - 1) * 100 < SHIFT_OF_MINIMUM * minimumPercent[family]) continue;
    const own = floors.filter((floor) => floor.kind === (family === 'recovery' ? 'time' : 'rate'));
    const floorSpeed = own.length === 0 ? null : median(own.map((floor) => floor.speedRatio) as unknown as NonEmptyArray<number>);
    const withFamily =
      floorSpeed !== null &&
      Math.sign(floorSpeed - 1) === Math.sign(familySpeed - 1) &&
      Math.abs(floorSpeed - 1) >= FLOOR_SHARE * Math.abs(familySpeed - 1);
    shifts.push({
      family,
      metrics: speeds.length,
      same_way: sameWay,
      family_speed_change_percent: percentOf(familySpeed),
      floor_speed_change_percent: floorSpeed === null ? null : percentOf(floorSpeed),
      floor: own.map((floor) => floor.label),
      relative_to_floor: withFamily,
      applied_speed_ratio: withFamily && floorSpeed !== null ? floorSpeed : 1,
    });
  }
  return shifts;
}

/**
 * A client metric's current values as they would be on the previous run's machine: a rate
 * divided by the machine's speed ratio, a time multiplied by it (on a machine at 0.8 of its
 * speed, a rate of 80 reads as 100 and a time of 125 ms as 100 ms).
 */
export function relativeToFloor(values: readonly number[], speedRatio: number, higherIsBetter: boolean): number[] {
  return values.map((value) => (higherIsBetter ? value / speedRatio : value * speedRatio));
}
