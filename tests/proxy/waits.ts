/** Bounded waits of the proxy tests: a pause, a deadline on a promise, a poll until a condition holds. */

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export function withTimeout<T>(promise: Promise<T>, timeoutMs: number, message: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${message} (after ${timeoutMs} ms)`)), timeoutMs);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

/** Polls `check` until it returns true. */
export async function eventually(check: () => boolean | Promise<boolean>, timeoutMs = 5000, message = 'condition not met'): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await check())) {
    if (performance.now() > deadline) throw new Error(`${message} (after ${timeoutMs} ms)`);
    await sleep(20);
  }
}
