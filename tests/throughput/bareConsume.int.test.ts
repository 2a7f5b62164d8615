/**
 * The bare consume script (the floor the consume harness overhead is measured against) against
 * the real broker: on its own, one JSON line per window; its errors; warmed-up windows on
 * request; and taking turns with the harness's consumers on one queue.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import type { ClientSpec } from '../../src/client/api';
import { getConfig } from '../../src/config';
import { sleep } from '../../src/measure/clock';
import { BARE_CONSUME_SCRIPT, startBareConsumer } from '../../src/throughput/bareConsume';
import { measureConsumeOverhead } from '../../src/throughput/consumeOverhead';
import { consumeOverheadResult } from '../../src/throughput/consumeResult';
import { useAdminChannel } from './support/adminChannel';

const url = getConfig().amqpUrl;
const client: ClientSpec = { name: 'amqplib', profile: 'defaults' };
const run = promisify(execFile);

const admin = useAdminChannel(url);

/** A queue with `messages` ready messages of 64 bytes (deleted by the caller). */
async function filledQueue(messages: number): Promise<string> {
  const { queue } = await admin.channel.assertQueue(`amqp-bench.test.bare-consume.${randomUUID()}`, {
    durable: false,
    arguments: { 'x-expires': 120_000 },
  });
  for (let n = 0; n < messages; n += 1) admin.channel.sendToQueue(queue, Buffer.alloc(64, 0x61));
  const deadline = Date.now() + 10_000;
  while ((await admin.channel.checkQueue(queue)).messageCount < messages && Date.now() < deadline) await sleep(10);
  return queue;
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
      expect((await admin.channel.checkQueue(queue)).messageCount).toBe(3000 - consumed);
    } finally {
      await admin.channel.deleteQueue(queue);
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
        expect((await admin.channel.checkQueue(queue)).messageCount).toBe(2000 - first.consumed_total - second.consumed_total);
      } finally {
        await bare.close();
      }
      await bare.close();
      await expect(bare.run()).rejects.toThrow('the bare consumer is closed');
    } finally {
      await admin.channel.deleteQueue(queue);
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
