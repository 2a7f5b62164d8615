/** ThreadBoard across real worker threads: the same class on both sides of the shared memory. */
import path from 'node:path';
import { Control, IntSlot, ThreadBoard, TimeSlot } from '../../src/recovery/board';
import { startThreadPool } from '../../src/workers/pool';
import type { BoardThreadTask } from './fixtures/boardThread';

describe('ThreadBoard across real threads', () => {
  it('shares times and counters and wakes waiters without blocking', async () => {
    const threads = 2;
    const board = new ThreadBoard(threads);
    const pool = startThreadPool(path.join(__dirname, 'fixtures', 'boardThread.ts'), threads);
    try {
      const tasks = Array.from({ length: threads }, (_, threadIndex) =>
        pool.run<BoardThreadTask, boolean>({ buffer: board.buffer, threads, threadIndex }),
      );
      // Nobody may count itself before GO.
      expect(await board.waitFor(Control.DETECTED, threads, 100)).toBe(false);
      const goNs = process.hrtime.bigint();
      board.raise(Control.GO);
      expect(await board.waitFor(Control.DETECTED, threads, 10_000)).toBe(true);
      expect(await Promise.all(tasks)).toEqual([true, true]);
      for (const index of [0, 1]) expect(board.time(index, TimeSlot.DETECTED)).toBeGreaterThan(goNs);
      expect([board.int(0, IntSlot.DELIVERIES), board.int(1, IntSlot.DELIVERIES)]).toEqual([1, 2]);
    } finally {
      await pool.destroy();
    }
  }, 30_000);
});
