/**
 * The open-loop schedule (pure): message i of the run has an intended send time, fixed before the
 * run starts and never moved by how the broker or the client behaves. A publisher sends each
 * message when it is due and never skips one; latencies are measured from the intended time, so
 * a stall shows in every message that was due during it (no coordinated omission).
 */
import type { RatePlan } from './workload';

export interface Schedule {
  /** False for rate 0 (as fast as possible): then a message's intended time is when it was sent. */
  readonly paced: boolean;
  /** Intended send time of message `index` (0-based, over every producer), in ns from the start of the run. */
  intendedOffsetNs(index: number): number;
  /** Messages due by `offsetNs` from the start (how many have an intended time < offsetNs). */
  dueBy(offsetNs: number): number;
}

const NS_PER_S = 1e9;

/**
 * The schedule of `plan`: constant (i / rate), steps (each held for its duration, the last to the
 * end) or a linear ramp (then its end rate).
 * @example scheduleOf({ kind: 'constant', perSecond: 1000 }).intendedOffsetNs(3) // 3_000_000
 */
export function scheduleOf(plan: RatePlan): Schedule {
  if (plan.kind === 'constant') {
    if (plan.perSecond === 0) return { paced: false, intendedOffsetNs: () => 0, dueBy: () => Number.POSITIVE_INFINITY };
    const intervalNs = NS_PER_S / plan.perSecond;
    return {
      paced: true,
      intendedOffsetNs: (index) => index * intervalNs,
      dueBy: (offsetNs) => (offsetNs <= 0 ? 0 : Math.ceil(offsetNs / intervalNs)),
    };
  }
  if (plan.kind === 'steps') return stepsSchedule(plan.steps);
  return rampSchedule(plan.fromPerSecond, plan.toPerSecond, plan.durationMs * 1e6);
}

function stepsSchedule(steps: readonly { readonly perSecond: number; readonly durationMs: number }[]): Schedule {
  // Where each step starts, in time and in messages (a step's messages are rate * duration, not rounded).
  const starts: { startNs: number; startCount: number; perSecond: number }[] = [];
  let startNs = 0;
  let startCount = 0;
  for (const step of steps) {
    starts.push({ startNs, startCount, perSecond: step.perSecond });
    startNs += step.durationMs * 1e6;
    startCount += (step.perSecond * step.durationMs) / 1000;
  }
  return {
    paced: true,
    intendedOffsetNs(index) {
      let step = starts[0]!;
      for (const each of starts) if (each.startCount <= index) step = each;
      return step.startNs + ((index - step.startCount) * NS_PER_S) / step.perSecond;
    },
    dueBy(offsetNs) {
      if (offsetNs <= 0) return 0;
      let step = starts[0]!;
      for (const each of starts) if (each.startNs < offsetNs) step = each;
      return Math.ceil(step.startCount + ((offsetNs - step.startNs) * step.perSecond) / NS_PER_S - 1e-9);
    },
  };
}

/**
 * A ramp: the rate at time t is from + (to - from) t / D, so the messages due by t are
 * N(t) = from t + (to - from) t² / 2D; message i is due at the t where N(t) = i.
 */
function rampSchedule(fromPerSecond: number, toPerSecond: number, durationNs: number): Schedule {
  const durationS = durationNs / NS_PER_S;
  const slope = (toPerSecond - fromPerSecond) / durationS / 2; // the a of a t² + b t
  const countAtEnd = ((fromPerSecond + toPerSecond) / 2) * durationS;
  const countBy = (seconds: number) =>
    seconds <= durationS ? fromPerSecond * seconds + slope * seconds * seconds : countAtEnd + (seconds - durationS) * toPerSecond;
  return {
    paced: true,
    intendedOffsetNs(index) {
      if (index >= countAtEnd) return durationNs + ((index - countAtEnd) * NS_PER_S) / toPerSecond;
      const seconds =
        Math.abs(slope) < 1e-12
          ? index / fromPerSecond
          : (-fromPerSecond + Math.sqrt(fromPerSecond * fromPerSecond + 4 * slope * index)) / (2 * slope);
      return seconds * NS_PER_S;
    },
    dueBy: (offsetNs) => (offsetNs <= 0 ? 0 : Math.ceil(countBy(offsetNs / NS_PER_S) - 1e-9)),
  };
}
