/**
 * How long a child process sat runnable but waiting for a CPU that other processes held (Linux
 * `/proc/<pid>/schedstat`, second field, in ns). On a 2-core machine shared with the broker and
 * other test runs, wall time alone says more about the neighbours than about the process: a
 * bound like "fails within 10 s" is checked on wall time minus this wait, and the failure message
 * shows both. Where the file cannot be read (not Linux), the wait counts as 0: wall time only.
 */
import fs from 'node:fs';

export interface RunQueueWatch {
  /** Stops watching; the wait seen until the last sample, in ms (it only ever grows). */
  stop(): number;
}

/** Samples the process's run-queue wait every `everyMs` while it lives. */
export function watchRunQueueWait(pid: number | undefined, everyMs = 20): RunQueueWatch {
  let waitedNs = 0;
  const sample = () => {
    if (pid === undefined) return;
    try {
      const fields = fs.readFileSync(`/proc/${pid}/schedstat`, 'utf8').trim().split(/\s+/);
      waitedNs = Math.max(waitedNs, Number(fields[1] ?? 0) || 0);
    } catch {
      // Gone already, or no /proc: keep what was seen.
    }
  };
  sample();
  const timer = setInterval(sample, everyMs);
  return {
    stop: () => {
      clearInterval(timer);
      return waitedNs / 1e6;
    },
  };
}
