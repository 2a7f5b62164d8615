import { Worker } from 'node:worker_threads';
import { Control, IntSlot, ThreadBoard, TimeSlot } from '../../src/workers/board';

describe('ThreadBoard across real threads', () => {
  it('keeps a waiting thread alive until the flag is raised or the bound passes', async () => {
    const board = new ThreadBoard(1);
    const startedAt = Date.now();
    expect(await board.waitFor(Control.GO, 1, 200)).toBe(false);
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(190);
    setTimeout(() => board.raise(Control.GO), 50);
    expect(await board.waitFor(Control.GO, 1, 5000)).toBe(true);
  });

  it('shares times and counters and wakes waiters without blocking', async () => {
    const board = new ThreadBoard(2);
    // A plain JS worker that waits for GO, writes its time and counts itself detected.
    const source = `
      const { workerData } = require('node:worker_threads');
      const control = new Int32Array(workerData.buffer, 0, 8);
      const times = new BigInt64Array(workerData.buffer, 32, 2 * 5);
      (async () => {
        // waitAsync alone does not keep a thread's event loop alive (ThreadBoard.waitFor adds a timer too).
        const keepAlive = setInterval(() => undefined, 1000);
        while (Atomics.load(control, 1) === 0) await Atomics.waitAsync(control, 1, 0, 1000).value;
        clearInterval(keepAlive);
        Atomics.store(times, workerData.index * 5 + 1, process.hrtime.bigint());
        Atomics.add(control, 5, 1);
        Atomics.notify(control, 5);
      })();`;
    const workers = [0, 1].map((index) => new Worker(source, { eval: true, workerData: { buffer: board.buffer, index } }));
    try {
      expect(await board.waitFor(Control.DETECTED, 2, 50)).toBe(false);
      const goNs = process.hrtime.bigint();
      board.raise(Control.GO);
      expect(await board.waitFor(Control.DETECTED, 2, 10_000)).toBe(true);
      for (const index of [0, 1]) expect(board.time(index, TimeSlot.DETECTED)).toBeGreaterThan(goNs);
      board.setInt(1, IntSlot.DELIVERIES, 7);
      board.addInt(1, IntSlot.DELIVERIES, 3);
      expect(board.int(1, IntSlot.DELIVERIES)).toBe(10);
    } finally {
      await Promise.all(workers.map((worker) => worker.terminate()));
    }
  }, 20_000);
});
