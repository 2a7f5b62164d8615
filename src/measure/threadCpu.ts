/**
 * CPU time of one thread of this process, on Linux, from /proc: what a consumer thread actually
 * ran during a window, as opposed to how long the window lasted. A consumer thread near 100% of a
 * core is what bounds its rate; one far below it waited for something else (the broker, or a CPU
 * it did not get). Elsewhere every function answers null and the figures say "n/a".
 */
import fs from 'node:fs';

/** Clock ticks per second of utime/stime in /proc (`getconf CLK_TCK`: 100 on Linux). */
export const CLOCK_TICKS_PER_SECOND = 100;

/**
 * User + system CPU of a /proc `stat` line, in ms; null when the line cannot be read. The command
 * name (2nd field) may hold spaces and parentheses, so fields are counted after its last `)`.
 * @example parseStatCpuMs('42 (node) S 1 2 3 4 5 6 7 8 9 10 150 30 0 0') // (150 + 30) ticks = 1800
 */
export function parseStatCpuMs(stat: string, ticksPerSecond = CLOCK_TICKS_PER_SECOND): number | null {
  const afterName = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // After the name: state (field 3) is index 0, so utime (field 14) is 11 and stime (field 15) 12.
  const utime = Number(afterName[11]);
  const stime = Number(afterName[12]);
  if (stat.lastIndexOf(')') < 0 || !Number.isInteger(utime) || !Number.isInteger(stime)) return null;
  return ((utime + stime) * 1000) / ticksPerSecond;
}

/** The calling thread's id (Linux tid, as in /proc/self/task/<tid>); null where /proc cannot tell. */
export function currentThreadId(): number | null {
  try {
    const tid = Number.parseInt(fs.readFileSync('/proc/thread-self/stat', 'utf8'), 10);
    return Number.isInteger(tid) && tid > 0 ? tid : null;
  } catch {
    return null;
  }
}

/** CPU time (user + system) thread `tid` of this process has used so far, in ms; null where /proc cannot tell. */
export function threadCpuMs(tid: number): number | null {
  try {
    return parseStatCpuMs(fs.readFileSync(`/proc/self/task/${tid}/stat`, 'utf8'));
  } catch {
    return null;
  }
}

/** CPU time used so far by every thread of `tids`, summed, in ms; null when any is unknown (or not a thread id). */
export function threadsCpuMs(tids: readonly number[]): number | null {
  let sum = 0;
  for (const tid of tids) {
    const cpuMs = tid > 0 ? threadCpuMs(tid) : null;
    if (cpuMs === null) return null;
    sum += cpuMs;
  }
  return sum;
}
