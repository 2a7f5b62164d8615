/**
 * A piscina pool where every thread runs exactly one long-lived task. Always `destroy()` it
 * (in a finally): a pool left alive keeps Jest from exiting.
 */
import { Piscina } from 'piscina';
import { workerFile } from './bundle';

export interface ThreadPool {
  readonly threads: number;
  /**
   * What the threads have been warmed up for (tags their users choose, e.g. `publish-plain`): a
   * pool reused from the shelf (./shelf.ts) keeps it, so its users warm each path up once.
   */
  readonly warmedUp: Set<string>;
  run<TTask, TResult>(task: TTask): Promise<TResult>;
  destroy(): Promise<void>;
}

/**
 * Starts `threads` worker threads, each running the default export of the TypeScript module at
 * `entryPath` (absolute, e.g. `path.join(__dirname, 'thread.ts')`) on the tasks it is given.
 */
export function startThreadPool(entryPath: string, threads: number): ThreadPool {
  const pool = new Piscina({
    filename: workerFile(entryPath),
    minThreads: threads,
    maxThreads: threads,
    // One task per thread, never queued behind another (extra tasks would wait silently).
    concurrentTasksPerWorker: 1,
    idleTimeout: Infinity,
    // Tasks wait with Atomics.waitAsync themselves; piscina must not block idle threads.
    atomics: 'disabled',
    maxQueue: 0,
  });
  let destroyed: Promise<void> | undefined;
  return {
    threads,
    warmedUp: new Set(),
    run: <TTask, TResult>(task: TTask) => pool.run(task) as Promise<TResult>,
    destroy: () => {
      destroyed ??= pool.destroy();
      return destroyed;
    },
  };
}

/** Like Promise.allSettled, but gives up waiting after `boundMs` (the rest count as hung). */
export async function settleWithin<T>(
  promises: readonly Promise<T>[],
  boundMs: number,
): Promise<(PromiseSettledResult<T> | { status: 'hung' })[]> {
  const results: (PromiseSettledResult<T> | { status: 'hung' })[] = promises.map(() => ({ status: 'hung' }));
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    Promise.allSettled(
      promises.map((promise, index) =>
        promise.then(
          (value) => {
            results[index] = { status: 'fulfilled', value };
          },
          (reason: unknown) => {
            results[index] = { status: 'rejected', reason };
          },
        ),
      ),
    ),
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, boundMs);
    }),
  ]);
  clearTimeout(timer);
  return results;
}
