/** The thread-pool shelf with real worker threads: reused when idle and on, never otherwise. */
import path from 'node:path';
import { borrowThreadPool, closeShelvedPools, enableThreadPoolShelf, shelvedPoolCount } from '../../src/workers/shelf';

const ENTRY = path.join(__dirname, 'fixtures', 'threadIdThread.ts');

const threadIds = async (pool: ReturnType<typeof borrowThreadPool>, waitMs = 0) =>
  new Set(await Promise.all(Array.from({ length: pool.threads }, () => pool.run<{ waitMs: number }, number>({ waitMs }))));

describe('thread-pool shelf', () => {
  afterEach(closeShelvedPools);

  it('is off by default: a pool given back is destroyed, the next borrow starts new threads', async () => {
    const first = borrowThreadPool(ENTRY, 2);
    const firstIds = await threadIds(first, 20);
    await first.destroy();
    expect(shelvedPoolCount()).toBe(0);
    const second = borrowThreadPool(ENTRY, 2);
    try {
      const secondIds = await threadIds(second, 20);
      expect([...secondIds].filter((id) => firstIds.has(id))).toEqual([]);
    } finally {
      await second.destroy();
    }
  }, 30_000);

  it('when on, lends an idle pool of the same entry and size again, and a different size is a new pool', async () => {
    enableThreadPoolShelf();
    const first = borrowThreadPool(ENTRY, 2);
    const firstIds = await threadIds(first, 20);
    await first.destroy();
    await first.destroy();
    expect(shelvedPoolCount()).toBe(1);
    await expect(first.run({ waitMs: 0 })).rejects.toThrow('given back');

    const again = borrowThreadPool(ENTRY, 2);
    expect(shelvedPoolCount()).toBe(0);
    expect(await threadIds(again, 20)).toEqual(firstIds);
    const other = borrowThreadPool(ENTRY, 1);
    expect([...(await threadIds(other))].filter((id) => firstIds.has(id))).toEqual([]);
    await Promise.all([again.destroy(), other.destroy()]);
    expect(shelvedPoolCount()).toBe(2);
    await closeShelvedPools();
    expect(shelvedPoolCount()).toBe(0);
  }, 30_000);

  it('destroys rather than shelves a pool whose task is still running', async () => {
    enableThreadPoolShelf();
    const pool = borrowThreadPool(ENTRY, 1);
    const running = pool.run({ waitMs: 5_000 }).catch(() => 'cancelled');
    await pool.destroy();
    expect(shelvedPoolCount()).toBe(0);
    expect(await running).toBe('cancelled');
  }, 30_000);

  it('discards an idle pool when asked (its threads may hold what a task left behind): never lent again', async () => {
    enableThreadPoolShelf();
    const pool = borrowThreadPool(ENTRY, 1);
    const ids = await threadIds(pool, 20);
    await pool.discard();
    await pool.destroy();
    expect(shelvedPoolCount()).toBe(0);
    const next = borrowThreadPool(ENTRY, 1);
    try {
      expect([...(await threadIds(next))].filter((id) => ids.has(id))).toEqual([]);
    } finally {
      await next.destroy();
    }
  }, 30_000);
});
