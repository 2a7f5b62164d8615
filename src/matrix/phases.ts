/**
 * Where in its heartbeat interval a silence meets each thread (pure). A client's heartbeat timers
 * start when its connection opens, so how long it takes to notice a silence depends on the phase:
 * amqplib checks once an interval and gives up at the second check that saw nothing (2 to 3
 * intervals after the silence began), rabbitmq-client every half interval and gives up at the
 * fourth (2 to 2.5). One injection at one phase gives one point of that range, the same one every
 * run (the silence used to begin a fixed few hundred ms after connecting: the worst case).
 *
 * So a heartbeat cell opens its threads' connections staggered over one interval (thread k after
 * k/N of it) and injects when thread 0 is at phase (N - ½)/N: the threads then meet the silence at
 * the midpoints of N equal parts of the interval (0.9, 0.7, 0.5, 0.3, 0.1 for five), the same grid
 * every run, in one silence (five silences one after another would take five times as long). Each
 * thread's phase is measured, not assumed: from its connection's opening to the fault's moment on
 * its own connection.
 */

/** How long thread `thread` of `threads` waits before opening its connection (0 without an interval). */
export function openDelayMs(thread: number, threads: number, intervalMs: number | undefined): number {
  if (intervalMs === undefined || threads <= 1) return 0;
  return Math.round((thread * intervalMs) / threads);
}

/** The phase thread 0 is at when the silence begins: the last midpoint of the grid. */
export function firstThreadPhase(threads: number): number {
  return (threads - 0.5) / threads;
}

/**
 * How long to wait from `nowNs` until thread 0 (opened at `openedNs`) is at `phase` of its interval
 * again, in ms (0 to one interval).
 */
export function delayToPhaseMs(openedNs: bigint, nowNs: bigint, intervalMs: number, phase: number): number {
  const intervalNs = BigInt(Math.round(intervalMs * 1e6));
  const targetNs = BigInt(Math.round(phase * intervalMs * 1e6));
  const intoIntervalNs = (((nowNs - openedNs) % intervalNs) + intervalNs) % intervalNs;
  const waitNs = (targetNs - intoIntervalNs + intervalNs) % intervalNs;
  return Number(waitNs) / 1e6;
}

/** The phase (0 to 1) of `faultNs` in the interval of a connection opened at `openedNs`. */
export function phaseOf(faultNs: bigint, openedNs: bigint, intervalMs: number): number {
  const elapsedMs = Number(faultNs - openedNs) / 1e6;
  const phase = (elapsedMs % intervalMs) / intervalMs;
  return phase < 0 ? phase + 1 : phase;
}
