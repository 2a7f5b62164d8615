/**
 * The sustained consume machinery against the real broker: short sessions (windows of a few
 * hundred ms) where every counted delivery is accounted for, the rate comes from the window,
 * starved consumers are called producer-bound, failures name their cause, and everything is
 * cleaned up; the bare consume script on its own and driven side by side with the harness.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import amqp, { type Channel, type ChannelModel } from 'amqplib';
import type { ClientSpec } from '../../src/client/api';
import { getConfig } from '../../src/config';
import { WorkerError } from '../../src/errors';
import { waitForNoConnections } from '../../src/faults/brokerConnections';
import { sleep } from '../../src/measure/clock';
import { BARE_CONSUME_SCRIPT, startBareConsumer } from '../../src/throughput/bareConsume';
import { measureConsumeOverhead } from '../../src/throughput/consumeOverhead';
import { resolveConsumeWorkload, type ConsumeWorkloadInput } from '../../src/throughput/consumePlan';
import { consumeOverheadResult, sustainedConsumeResult } from '../../src/throughput/consumeResult';
import { openConsumeSession, type ConsumeSession } from '../../src/throughput/consumeSession';
import { measureSustainedConsume } from '../../src/throughput/sustainedConsume';

const url = getConfig().amqpUrl;
const client: ClientSpec = { name: 'amqplib', profile: 'defaults' };
const run = promisify(execFile);

let admin: ChannelModel;
let channel: Channel;

beforeAll(async () => {
  admin = await amqp.connect(url);
  channel = await admin.createChannel();
  channel.on('error', () => undefined);
});

afterAll(async () => {
  await admin.close().catch(() => undefined);
});

async function queueExists(queue: string): Promise<boolean> {
  const probe = await admin.createChannel();
  probe.on('error', () => undefined);
  try {
    await probe.checkQueue(queue);
    await probe.close();
    return true;
  } catch {
    return false;
  }
}

/** A queue with `messages` ready messages of 64 bytes (deleted by the caller). */
async function filledQueue(messages: number): Promise<string> {
  const { queue } = await channel.assertQueue(`amqp-bench.test.bare-consume.${randomUUID()}`, {
    durable: false,
    arguments: { 'x-expires': 120_000 },
  });
  for (let n = 0; n < messages; n += 1) channel.sendToQueue(queue, Buffer.alloc(64, 0x61));
  const deadline = Date.now() + 10_000;
  while ((await channel.checkQueue(queue)).messageCount < messages && Date.now() < deadline) await sleep(10);
  return queue;
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
    expect(outcome.report.producers.reduce((sum, producer) => sum + producer.published, 0)).toBe(account!.published);
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
      await channel.deleteQueue(session.queue);
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

describe('the bare consume script', () => {
  it('runs on its own: one JSON line per window, and every message it counted left the queue', async () => {
    const queue = await filledQueue(3000);
    try {
      const { stdout } = await run(
        process.execPath,
        [
          BARE_CONSUME_SCRIPT,
          '--queue',
          queue,
          '--consumers',
          '2',
          '--prefetch',
          '10',
          '--warmup-ms',
          '0',
          '--window-ms',
          '150',
          '--windows',
          '2',
        ],
        { env: { ...process.env, AMQP_URL: url }, timeout: 30_000 },
      );
      const records = stdout
        .trim()
        .split('\n')
        .map(
          (line) =>
            JSON.parse(line) as {
              window: number;
              consumers: number;
              messages: number;
              consumed_total: number;
              started_ns: string;
              ended_ns: string;
            },
        );
      expect(records.map((record) => [record.window, record.consumers])).toEqual([
        [1, 2],
        [2, 2],
      ]);
      expect(BigInt(records[1]!.started_ns)).toBe(BigInt(records[0]!.ended_ns));
      const consumed = records[0]!.consumed_total;
      expect(consumed).toBeGreaterThanOrEqual(records[0]!.messages + records[1]!.messages);
      // Each counted delivery was acked before the channels closed; the rest went back to the queue.
      expect((await channel.checkQueue(queue)).messageCount).toBe(3000 - consumed);
    } finally {
      await channel.deleteQueue(queue);
    }
  }, 60_000);

  it("fails with the script's own message when the queue does not exist or the client has no bare module", async () => {
    await expect(
      startBareConsumer({ url, queue: `amqp-bench.missing.${randomUUID()}`, consumers: 1, prefetch: 1, warmupMs: 0, windowMs: 1 }),
    ).rejects.toThrow(/bare-consume exited: bare-consume: .*NOT_FOUND/);
    await expect(
      startBareConsumer({ url, queue: 'unused', client: 'nope', consumers: 1, prefetch: 1, warmupMs: 0, windowMs: 1 }),
    ).rejects.toThrow('bare-consume exited: bare-consume: no bare module for client "nope" (scripts/bare/nope.js)');
  }, 30_000);

  it('serves warmed-up windows on request, then refuses to run once closed', async () => {
    const queue = await filledQueue(2000);
    try {
      const bare = await startBareConsumer({ url, queue, consumers: 1, prefetch: 10, warmupMs: 50, windowMs: 100 });
      try {
        const first = await bare.run();
        expect(first).toMatchObject({ consumers: 1, prefetch: 10, warmup_ms: 50, window_ms: 100 });
        expect(first.msgs_per_sec).toBeCloseTo(first.messages / first.seconds, 6);
        expect(first.endedNs - first.startedNs).toBeGreaterThanOrEqual(90_000_000n);
        expect(first.cpuMs).toEqual(expect.any(Number));
        const second = await bare.run();
        expect((await channel.checkQueue(queue)).messageCount).toBe(2000 - first.consumed_total - second.consumed_total);
      } finally {
        await bare.close();
      }
      await bare.close();
      await expect(bare.run()).rejects.toThrow('the bare consumer is closed');
    } finally {
      await channel.deleteQueue(queue);
    }
  }, 30_000);
});

describe('the consume harness-overhead comparison', () => {
  it('takes turns on the same queue (never both at once), fed by the same producers', async () => {
    const outcome = await measureConsumeOverhead({
      url,
      client,
      bareClient: 'amqplib',
      consumers: 2,
      prefetch: 20,
      pairs: 2,
      // Long enough that a turn gets deliveries even while the whole test suite loads the machine.
      windowMs: 1000,
      warmupMs: 200,
      producerThreads: 1,
      watermarks: { lowMessages: 3000, highMessages: 4000 },
    });
    expect(outcome.pairs.map((pair) => pair.first)).toEqual(['harness', 'bare']);
    for (const pair of outcome.pairs) {
      expect(pair.harness.delivered).toBeGreaterThan(0);
      expect(pair.bare.delivered).toBeGreaterThan(0);
      // The broker saw exactly one side's two consumers in each window.
      expect([pair.harness.depth.minConsumers, pair.harness.depth.maxConsumers]).toEqual([2, 2]);
      expect([pair.bare.depth.minConsumers, pair.bare.depth.maxConsumers]).toEqual([2, 2]);
      // Both sides' consuming threads, CPU per message from /proc.
      expect([typeof pair.harness.cpuUsPerMessage, typeof pair.bare.cpuUsPerMessage]).toEqual(['number', 'number']);
    }
    expect(outcome.report.errors).toEqual([]);
    const result = consumeOverheadResult(outcome);
    expect(result.samples?.harness_msgs_per_sec).toHaveLength(2);
    // Judged on the two pairs' interval: met when both are above 90%, else inconclusive (two pairs never make a miss).
    const ratios = result.samples?.ratio_percent ?? [];
    expect(result.targets?.[0]?.verdict).toBe(ratios.every((ratio) => ratio > 90) ? 'met' : 'inconclusive');
  }, 90_000);
});
