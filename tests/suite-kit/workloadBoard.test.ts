import { accountDeliveries } from '../../src/suite-kit/accounting';
import { Word, WorkloadBoard } from '../../src/suite-kit/workloadBoard';

describe('WorkloadBoard: shared control words and delivery ledger', () => {
  it('counts first deliveries once, per round, and duplicates in the ledger', () => {
    const board = new WorkloadBoard({ sequences: 4, rounds: 2 });
    board.markPublished(0);
    board.markConfirmed(0);
    expect(board.recordDelivery(0, 0, false)).toBe(true);
    expect(board.recordDelivery(0, 0, true)).toBe(false);
    expect(board.recordDelivery(3, 1, false)).toBe(true);
    expect(board.flag(Word.UNIQUE)).toBe(2);
    expect(board.flag(Word.DELIVERIES)).toBe(3);
    expect(board.roundUnique(0)).toBe(1);
    expect(board.roundUnique(1)).toBe(1);
    const snapshot = board.snapshot();
    expect(Array.from(snapshot.delivered)).toEqual([2, 0, 0, 1]);
    expect(Array.from(snapshot.redelivered)).toEqual([1, 0, 0, 0]);
    expect(accountDeliveries(snapshot, { baseline: 'confirmed', to: 1 })).toMatchObject({ duplicates: 1, unexplainedDuplicates: 0 });
  });

  it('counts a sequence number or round outside the layout as foreign, not as a delivery', () => {
    const board = new WorkloadBoard({ sequences: 2, rounds: 1 });
    expect(board.recordDelivery(2, 0, false)).toBe(false);
    expect(board.recordDelivery(0, 1, false)).toBe(false);
    expect(board.flag(Word.FOREIGN)).toBe(2);
    expect(board.flag(Word.DELIVERIES)).toBe(0);
  });

  it('is the same board when attached to the same buffer (as a worker does)', () => {
    const main = new WorkloadBoard({ sequences: 8, rounds: 3 });
    const worker = new WorkloadBoard(main.layout, main.buffer);
    worker.recordDelivery(7, 2, false);
    worker.count(Word.CONSUMERS_READY, 5);
    expect(main.roundUnique(2)).toBe(1);
    expect(main.flag(Word.CONSUMERS_READY)).toBe(5);
  });

  it('refuses a buffer of the wrong size for the layout', () => {
    const board = new WorkloadBoard({ sequences: 8, rounds: 3 });
    expect(() => new WorkloadBoard({ sequences: 9, rounds: 3 }, board.buffer)).toThrow(/board buffer has \d+ bytes; layout .* needs \d+/);
  });

  it('waits for a word without blocking, and gives up at its bound', async () => {
    const board = new WorkloadBoard({ sequences: 0, rounds: 1 });
    setTimeout(() => board.raise(Word.ROUND, 2), 20);
    await expect(board.waitFor(Word.ROUND, 2, 5000)).resolves.toBe(true);
    const startedMs = Date.now();
    await expect(board.waitFor(Word.STOP, 1, 30)).resolves.toBe(false);
    expect(Date.now() - startedMs).toBeGreaterThanOrEqual(25);
  });
});
