/**
 * A shelf of idle thread pools, so that a benchmark file starts each kind of pool once rather
 * than once per replicate and per test. Starting worker threads (each loading its bundle and the
 * client library) took 0.15-0.4 s per pool of 4-10 threads and 2 s for 50 on two cores: over a
 * quick run's ~60 pools, a fifth of its time outside the measurement windows.
 *
 * What is reused is only the threads and the modules they loaded: every task still opens its own
 * connections, channels and queues, so a replicate remains a fresh session for the broker and the
 * client. Each task also warms itself up (warm-up rounds, rehearsals) as before, so the first
 * replicate on a fresh pool and a later one on a reused pool are measured alike.
 *
 * Off unless a benchmark file switches it on (fixtures/setupBenchmark.ts, which also empties it
 * after the file): elsewhere `borrowThreadPool` is `startThreadPool`, and giving the pool back
 * destroys it, so a test that never empties the shelf cannot leave threads behind.
 *
 * A pool goes back on the shelf only when none of its tasks is still running (a hung task would
 * hold a thread the next borrower counts on): otherwise it is destroyed.
 */
import { workerFile } from './bundle';
import { startThreadPool, type ThreadPool } from './pool';

interface ShelvedPool {
  readonly key: string;
  readonly pool: ThreadPool;
}

let enabled = false;
const idle: ShelvedPool[] = [];

/** Switches the shelf on for this module registry (one benchmark file under Jest). */
export function enableThreadPoolShelf(): void {
  enabled = true;
}

/** A borrowed pool: `destroy()` gives it back; `discard()` destroys it whatever its state (its threads may hold what a task left behind). */
export interface BorrowedPool extends ThreadPool {
  discard(): Promise<void>;
}

/**
 * A pool of `threads` threads running the worker entry `entryPath` (as `startThreadPool`), taken
 * from the shelf when an idle one of the same entry and size is there. Its `destroy()` gives it
 * back (idle) or destroys it (a task still running, or the shelf off); safe to call twice.
 */
export function borrowThreadPool(entryPath: string, threads: number): BorrowedPool {
  const key = `${workerFile(entryPath)}#${threads}`;
  const index = enabled ? idle.findIndex((shelved) => shelved.key === key) : -1;
  const pool = index >= 0 ? idle.splice(index, 1)[0]!.pool : startThreadPool(entryPath, threads);
  let running = 0;
  let released: Promise<void> | undefined;
  return {
    threads,
    warmedUp: pool.warmedUp,
    run: <TTask, TResult>(task: TTask) => {
      if (released) return Promise.reject(new Error('this pool was given back; borrow another'));
      running += 1;
      const done = pool.run<TTask, TResult>(task);
      // The count only: the caller handles the task's own outcome.
      done.then(
        () => (running -= 1),
        () => (running -= 1),
      );
      return done;
    },
    destroy: () => {
      released ??= (async () => {
        if (enabled && running === 0) idle.push({ key, pool });
        else await pool.destroy();
      })();
      return released;
    },
    discard: () => {
      released ??= pool.destroy();
      return released;
    },
  };
}

/** Pools on the shelf now (for tests and the run's own account). */
export function shelvedPoolCount(): number {
  return idle.length;
}

/** Destroys every idle pool and switches the shelf off (after a benchmark file, also when it failed). */
export async function closeShelvedPools(): Promise<void> {
  enabled = false;
  const pools = idle.splice(0, idle.length);
  await Promise.allSettled(pools.map((shelved) => shelved.pool.destroy()));
}
