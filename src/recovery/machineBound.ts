/**
 * What bounds a recovery figure on the machine that measured it (pure): N consumer threads on C
 * cores, which they share with the broker and the fault proxy. With more threads than cores,
 * detection and propagation measure waiting for a core as much as the client: each RST wakes a
 * thread that preempts the proxy, which then sends the next RSTs late (the fault spread), and
 * every woken thread waits its turn to run its error handler.
 */

export interface MachineBound {
  readonly threads: number;
  readonly cpuCount: number;
  /** More consumer threads than cores: the figure is bound by the machine. */
  readonly machineBound: boolean;
  /** One sentence for the result's notes and the report. */
  readonly note: string;
}

/**
 * @param faultSpreadMs first to last fault moment over the connections (null without a timeline)
 * @example machineBound(50, 2, 63.2).machineBound // true
 */
export function machineBound(threads: number, cpuCount: number, faultSpreadMs: number | null): MachineBound {
  const spread =
    faultSpreadMs === null
      ? 'the fault spread is unknown (no proxy timeline)'
      : `the proxy took ${faultSpreadMs.toFixed(1)} ms from its first to its last reset (fault_spread_ms)`;
  const machineBoundNow = threads > cpuCount;
  const note = machineBoundNow
    ? `bound: the machine — ${threads} consumer threads share ${cpuCount} cores with the broker and the fault proxy, so propagation includes waiting for a core: ${spread}, and each woken thread waits its turn to run; thread_detection_* (each thread timed from the fault on its own connection) leave the spread out, and the bare floor (recovery_harness_overhead: plain amqplib, same proxy, same fault) is the least this machine allows`
    : `bound: ${threads} consumer thread(s) on ${cpuCount} cores, shared with the broker and the fault proxy; ${spread}`;
  return { threads, cpuCount, machineBound: machineBoundNow, note };
}
