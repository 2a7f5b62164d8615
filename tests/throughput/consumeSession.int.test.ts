/**
 * The sustained consume machinery against the real broker: short sessions (windows of a few
 * hundred ms) where every counted delivery is accounted for, the rate comes from the window,
 * starved consumers are called producer-bound, failures name their cause, and everything is
 * cleaned up (the bare consume script: bareConsume.int.test.ts).
 */
import path from 'node:path';
import type { ClientSpec } from '../../src/client/api';
import { getConfig } from '../../src/config';
import { WorkerError } from '../../src/errors';
import { waitForNoConnections } from '../../src/faults/brokerConnections';
import { sleep } from '../../src/measure/clock';
import { resolveConsumeWorkload, type ConsumeWorkloadInput } from '../../src/throughput/consumePlan';
import { sustainedConsumeResult } from '../../src/throughput/consumeResult';
import { openConsumeSession, type ConsumeSession } from '../../src/throughput/consumeSession';
import { measureSustainedConsume } from '../../src/throughput/sustainedConsume';
import { useAdminChannel } from './support/adminChannel';

const url = getConfig().amqpUrl;
const client: ClientSpec = { name: 'amqplib', profile: 'defaults' };

const admin = useAdminChannel(url);

async function queueExists(queue: string): Promise<boolean> {
  const probe = await admin.connection.createChannel();
  probe.on('error', () => undefined);
  try {
    await probe.checkQueue(queue);
    await probe.close();
    return true;
  } catch {
    return false;
  }
}

describe('a short sustained consume session (real broker)', () => {
  it('counts every delivery that arrived, exactly once, rates each window from its edges, and leaves nothing behind', async () => {
    const workload = resolveConsumeWorkload({
      consumers: 3,
      consumerThreads: 2,
      producerThreads: 2,
      prefetch: 20,
      rounds: 2,
      windowMs: 500,
      warmupMs: 200,
      // A backlog the consumers cannot empty in the 1.2 s they run, even when the producers fall behind: the account purges it.
      watermarks: { lowMessages: 20_000, highMessages: 40_000 },
    });
    const outcome = await measureSustainedConsume({ url, client, workload });
    const { windows, account } = outcome.phase;

    expect(outcome.report.errors).toEqual([]);
    expect(windows).toHaveLength(2);
    for (const window of windows) {
      expect(window.durationMs).toBeGreaterThanOrEqual(450);
      expect(window.delivered).toBeGreaterThan(0);
      expect(window.consumeRateMsgsPerSec).toBeCloseTo((window.delivered * 1000) / window.durationMs, 6);
      // Only this session's three consumers were on the queue while it was measured.
      expect([window.depth.minConsumers, window.depth.maxConsumers]).toEqual([3, 3]);
      // The consumer threads' CPU time, read by the main thread from /proc (this machine is Linux).
      expect(window.consumerCpuPercent).toEqual(expect.any(Number));
      expect(window.consumerCpuPercent!).toBeLessThanOrEqual(200 + 20);
      expect(window.depth.samples).toBeGreaterThan(0);
    }
    // Consecutive windows: each starts where the last ended.
    expect(windows[1]!.startedNs).toBe(windows[0]!.endedNs);
    // The account: every message published in the session was counted or purged, none twice; the
    // backlog (at least the low mark) was purged, not consumed.
    expect(account).toBeDefined();
    expect(account!.purged).toBeGreaterThanOrEqual(1000);
    expect(account!.delivered + account!.purged).toBe(account!.published);
    expect(outcome.report.consumers.reduce((sum, thread) => sum + thread.delivered, 0)).toBe(account!.delivered);
    // The start fill put exactly the start depth in the queue (checked against the broker's count); the producers published the rest.
    expect(outcome.report.fill).toEqual({ messages: workload.startMessages, connections: 2, fillMs: expect.any(Number) });
    expect(outcome.report.fill!.messages + outcome.report.producers.reduce((sum, producer) => sum + producer.published, 0)).toBe(
      account!.published,
    );
    expect(outcome.report.producers.every((producer) => producer.flushed)).toBe(true);
    expect(outcome.report.consumers.map((thread) => thread.consumers)).toEqual([2, 1]);

    const result = sustainedConsumeResult(outcome);
    expect(result.metrics.messages_missing?.value).toBe(0);
    expect(result.metrics.messages_extra?.value).toBe(0);
    expect(result.samples?.consume_throughput_msgs_per_sec).toHaveLength(2);

    expect(await queueExists(outcome.queue)).toBe(false);
    expect((await waitForNoConnections(url, outcome.connectionPrefix)).leaked).toEqual([]);
  }, 90_000);

  it('calls the figure producer-bound when the producers cannot keep the queue from running dry', async () => {
    // Producers held to two messages ahead: the consumers empty the queue at once, again and again.
    const workload = resolveConsumeWorkload({
      consumers: 1,
      producerThreads: 1,
      rounds: 1,
      windowMs: 400,
      warmupMs: 100,
      watermarks: { lowMessages: 1, highMessages: 2 },
    });
    const outcome = await measureSustainedConsume({ url, client, workload });
    expect(outcome.phase.windows[0]!.depth.ranDry).toBe(true);
    const result = sustainedConsumeResult(outcome);
    expect(result.details?.bound).toBe('producers');
    expect(result.metrics.producer_bound_windows?.value).toBe(1);
    expect(result.notes?.join('\n')).toMatch(/PRODUCER-BOUND/);
    expect(outcome.phase.account!.delivered + outcome.phase.account!.purged).toBe(outcome.phase.account!.published);
  }, 60_000);

  it('counts as missing the deliveries a client never hands over, though the queue was purged', async () => {
    // Five deliveries swallowed by the adapter: unacked, so the purge cannot take them either.
    const dropping: ClientSpec = {
      name: 'fixture-drops-deliveries',
      profile: 'defaults',
      module: path.join(__dirname, '../fixtures/adapters/drops-deliveries.js'),
    };
    const workload = resolveConsumeWorkload({
      consumers: 1,
      producerThreads: 1,
      rounds: 1,
      windowMs: 300,
      warmupMs: 100,
      // A backlog left at the end whatever the machine's load (CI saw 2000 emptied): the purge must have something to take.
      watermarks: { lowMessages: 20_000, highMessages: 40_000 },
    });
    const outcome = await measureSustainedConsume({ url, client: dropping, workload });
    const result = sustainedConsumeResult(outcome);
    expect(outcome.phase.account!.purged).toBeGreaterThan(0);
    expect([result.metrics.messages_missing?.value, result.metrics.messages_extra?.value]).toEqual([5, 0]);
    expect((await waitForNoConnections(url, outcome.connectionPrefix)).leaked).toEqual([]);
  }, 60_000);

  it('fails a phase naming the cause when the queue disappears, and still cleans up; close() twice', async () => {
    const workload = resolveConsumeWorkload({
      consumers: 1,
      producerThreads: 1,
      rounds: 1,
      windowMs: 2000,
      warmupMs: 100,
      watermarks: { lowMessages: 500, highMessages: 1000 },
    });
    const session = await openConsumeSession({ url, client, workload });
    try {
      const phase = session.runPhase(1);
      await sleep(300);
      await admin.channel.deleteQueue(session.queue);
      await expect(phase).rejects.toThrow(WorkerError);
      await expect(phase).rejects.toThrow(/queue depth sampling stopped: .*NOT_FOUND/);
      expect(session.state).toBe('closed');
    } finally {
      await session.close();
    }
    await session.close();
    await expect(session.runPhase(1)).rejects.toThrow('the consume session is closed; open a new one');
    expect((await waitForNoConnections(url, session.connectionPrefix)).leaked).toEqual([]);
  }, 60_000);

  it('ends the windows early once the last ones agree, and says which way they ended', async () => {
    // A backlog that lasts: the queue never runs dry here, which would end the windows too.
    await withSmallSession({ windowMs: 200, warmupMs: 100, watermarks: { lowMessages: 20_000, highMessages: 40_000 } }, async (session) => {
      // One window always agrees with itself: steady after the first of three.
      const early = await session.runPhase(3, { steady: { minWindows: 1, withinPercent: 0 } });
      expect([early.windows.length, early.windowsEnded]).toEqual([1, 'steady']);
      // Never steady within -1%: all three.
      const full = await session.runPhase(3, { steady: { minWindows: 1, withinPercent: -1 } });
      expect([full.windows.length, full.windowsEnded]).toEqual([3, 'max']);
      expect(full.windows.every((window) => window.depth.ranDry === false)).toBe(true);
    });
  }, 60_000);

  it('ends the windows early once one ran dry: the figure is producer-bound whatever follows', async () => {
    // Producers held to two messages ahead: the consumer empties the queue at once, again and again.
    await withSmallSession({ windowMs: 300, warmupMs: 100, watermarks: { lowMessages: 1, highMessages: 2 } }, async (session) => {
      // Never steady within -1%: only the dry window ends it, after the least asked for (2).
      const phase = await session.runPhase(4, { steady: { minWindows: 2, withinPercent: -1 } });
      expect([phase.windows.length, phase.windowsEnded]).toEqual([2, 'dry']);
      expect(phase.windows.some((window) => window.depth.ranDry === true)).toBe(true);
    });
  }, 60_000);

  it('allows the account (an exact one) only in the first phase', async () => {
    const session = await withSmallSession(
      { windowMs: 200, warmupMs: 0, watermarks: { lowMessages: 200, highMessages: 400 } },
      async (open) => {
        expect((await open.runPhase(1)).windows).toHaveLength(1);
        await expect(open.runPhase(1, { account: true })).rejects.toThrow('the account must be exact: only in the first phase');
      },
    );
    expect(await queueExists(session.queue)).toBe(false);
  }, 60_000);
});

/** A session of one consumer and one producer with these windows and depths, closed after `use` (also when it fails). */
async function withSmallSession(
  shape: Pick<ConsumeWorkloadInput, 'windowMs' | 'warmupMs' | 'watermarks'>,
  use: (session: ConsumeSession) => Promise<void>,
): Promise<ConsumeSession> {
  const workload = resolveConsumeWorkload({ consumers: 1, producerThreads: 1, rounds: 1, ...shape });
  const session = await openConsumeSession({ url, client, workload });
  try {
    await use(session);
  } finally {
    await session.close();
  }
  return session;
}
