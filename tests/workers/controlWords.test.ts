/** ControlWords.wake: a waiter with an abort word sees it at once, not at the end of its slice. */
import { ControlWords } from '../../src/workers/controlWords';

const WORD = 0;
const ABORT = 1;

describe('ControlWords.wake', () => {
  it('wakes a waiter so it reads its abort word now, leaving the word as it was', async () => {
    const words = new ControlWords(new SharedArrayBuffer(8), 2);
    const startedMs = Date.now();
    // A 10 s slice: without the wake the abort word would be read only after it.
    const waiting = words.waitFor(WORD, 1, 20_000, ABORT, 10_000);
    words.raise(ABORT);
    words.wake(WORD);
    await expect(waiting).resolves.toBe(false);
    expect(Date.now() - startedMs).toBeLessThan(5_000);
    expect(words.flag(WORD)).toBe(0);
  });

  it('leaves a waiter whose abort word is clear waiting for its word', async () => {
    const words = new ControlWords(new SharedArrayBuffer(8), 2);
    const waiting = words.waitFor(WORD, 1, 20_000, ABORT, 10_000);
    words.wake(WORD);
    words.raise(WORD);
    await expect(waiting).resolves.toBe(true);
  });
});
