import { Control, ThreadBoard } from '../../src/recovery/board';

describe('ThreadBoard waits', () => {
  it('keeps a waiting thread alive until the flag is raised or the bound passes', async () => {
    const board = new ThreadBoard(1);
    const startedAt = Date.now();
    expect(await board.waitFor(Control.GO, 1, 200)).toBe(false);
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(190);
    setTimeout(() => board.raise(Control.GO), 50);
    expect(await board.waitFor(Control.GO, 1, 5000)).toBe(true);
  });
});
