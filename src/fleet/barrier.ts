/**
 * The start barrier of a fleet. The coordinator waits (bounded) until every agent said `ready`,
 * then names a start a little ahead (`START_LEAD_MS`, so the message reaches every agent before
 * it) as one instant of its monotonic clock and of its wall clock. An agent on the coordinator's
 * machine starts at that monotonic instant — the same nanosecond as every other agent there; an
 * agent elsewhere starts at the wall-clock time, as exact as the machines' clocks agree (NTP),
 * and records how late the message arrived by the two clocks (a bound on that disagreement plus
 * transit). Without a coordinator (`--start-at`), every agent starts at the given wall-clock time.
 * An agent that learns of a start already past does not run: it is late, and says so.
 */
import type { ControlEndpoint } from './control';
import type { ControlEnvelope } from './protocol';

/** How far ahead of its message the start is put. */
export const START_LEAD_MS = 1500;
/** A start this far in the past is still taken (timer slack); beyond it the agent is late. */
export const LATE_TOLERANCE_MS = 50;

export type StartMessage = Extract<ControlEnvelope, { kind: 'start' }>;

export interface StartInstant {
  /** The agent's monotonic ns at which its schedule starts. */
  readonly startNs: bigint;
  readonly clock: 'monotonic' | 'wall';
  /** How far in the past the start was when the agent learned of it (≤ tolerance: on time). */
  readonly lateMs: number;
  /** Arrival minus sending by the two wall clocks (ms); null without a message. */
  readonly messageDelayMs: number | null;
}

export interface ClockReadings {
  readonly machineId: string;
  readonly nowNs: bigint;
  readonly nowUnixMs: number;
}

/** Where an agent's schedule starts, from the coordinator's start message (pure). */
export function startFromMessage(message: StartMessage, here: ClockReadings): StartInstant {
  const messageDelayMs = here.nowUnixMs - message.sent_unix_ms;
  if (message.machine_id === here.machineId) {
    const startNs = BigInt(message.start_mono_ns);
    return { startNs, clock: 'monotonic', lateMs: Number(here.nowNs - startNs) / 1e6, messageDelayMs };
  }
  return { ...fromWallClock(message.start_at_unix_ms, here), messageDelayMs };
}

/** Where an agent's schedule starts for a wall-clock start time (pure). */
export function fromWallClock(startAtUnixMs: number, here: ClockReadings): StartInstant {
  const aheadMs = startAtUnixMs - here.nowUnixMs;
  return { startNs: here.nowNs + BigInt(Math.round(aheadMs * 1e6)), clock: 'wall', lateMs: -aheadMs, messageDelayMs: null };
}

export function isLate(start: StartInstant): boolean {
  return start.lateMs > LATE_TOLERANCE_MS;
}

export interface BarrierOutcome {
  /** Agents that said ready, in the order they did. */
  readonly ready: readonly number[];
  /** Agents that said hello (reached the broker), by index, with their host. */
  readonly hello: ReadonlyMap<number, string>;
  /** Results that arrived during the barrier (an agent that failed before it was ready). */
  readonly early: readonly Extract<ControlEnvelope, { kind: 'result' }>[];
}

/**
 * The coordinator's side: collects hellos and readies until all `count` agents are ready or
 * `boundMs` passed (an agent that failed before it was ready reports its result instead).
 * `gone(index)` says an agent is known dead (a local process that exited): it is not waited for.
 */
export async function awaitReady(
  control: ControlEndpoint,
  count: number,
  boundMs: number,
  gone: () => ReadonlySet<number> = () => new Set(),
  onEvent: (line: string) => void = () => undefined,
  signal?: AbortSignal,
): Promise<BarrierOutcome> {
  const deadline = Date.now() + boundMs;
  const ready: number[] = [];
  const hello = new Map<number, string>();
  const early: Extract<ControlEnvelope, { kind: 'result' }>[] = [];
  const waiting = () =>
    Array.from({ length: count }, (_, index) => index).filter(
      (index) => !ready.includes(index) && !gone().has(index) && !early.some((result) => result.agent === index),
    );
  while (waiting().length > 0 && Date.now() < deadline && signal?.aborted !== true) {
    const message = await control.next(
      (each): each is Extract<ControlEnvelope, { kind: 'hello' | 'ready' | 'result' }> => ['hello', 'ready', 'result'].includes(each.kind),
      Math.min(500, deadline - Date.now()),
    );
    if (!message) continue;
    if (message.kind === 'hello') {
      hello.set(message.agent, message.host);
      onEvent(`agent ${message.agent} reached the broker (${message.host}, pid ${message.pid})`);
    } else if (message.kind === 'ready') {
      if (!ready.includes(message.agent)) ready.push(message.agent);
      onEvent(`agent ${message.agent} ready (${ready.length}/${count})`);
    } else {
      early.push(message);
      onEvent(
        `agent ${message.agent} ended before the start: ${message.file.status}${message.file.error ? ` (${message.file.error})` : ''}`,
      );
    }
  }
  return { ready, hello, early };
}
