/**
 * Waiting on a shared Int32 word across threads without blocking an event loop: the one loop
 * every board (recovery, throughput, realistic) uses.
 */
type WaitAsync = (array: Int32Array, index: number, value: number, timeoutMs?: number) => { async: boolean; value: Promise<string> | string };
const waitAsync = (Atomics as unknown as { waitAsync: WaitAsync }).waitAsync;

/**
 * Resolves true once `control[index]` reaches at least `target`, false after `timeoutMs`, or
 * false as soon as `control[abortIndex]` (e.g. STOP or FAILED) becomes non-zero, checked every
 * `sliceMs`.
 */
export async function waitForWord(control: Int32Array, index: number, target: number, timeoutMs: number, abortIndex?: number, sliceMs = 50): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const current = Atomics.load(control, index);
    if (current >= target) return true;
    if (abortIndex !== undefined && Atomics.load(control, abortIndex) !== 0) return false;
    const remainingMs = deadline - Date.now();
    if (remainingMs <= 0) return false;
    const sliceBoundMs = abortIndex === undefined ? remainingMs : Math.min(remainingMs, sliceMs);
    const result = waitAsync(control, index, current, sliceBoundMs);
    if (result.async) {
      // A pending waitAsync does not keep Node's event loop alive; this timer does.
      const keepAlive = setTimeout(() => undefined, sliceBoundMs);
      await result.value;
      clearTimeout(keepAlive);
    }
  }
}
