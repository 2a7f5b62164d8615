/**
 * The bare publish script (the floor the harness overhead is measured against) and the
 * harness-overhead comparison, against the real broker: timed rounds on request and on its own,
 * one per client library's own bare program, its errors, and both sides taking turns.
 */
import { execFileSync } from 'node:child_process';
import amqp from 'amqplib';
import { clientLabel } from '../../src/client/api';
import { adapterOf, allClientSpecs } from '../../src/client/registry';
import { getConfig } from '../../src/config';
import { BARE_PUBLISH_SCRIPT, bareClientOf, bareProgramOf, parseBareRecord, startBarePublisher } from '../../src/suite-kit/barePublish';
import { measureHarnessOverhead } from '../../src/throughput/overhead';
import { harnessOverheadResult } from '../../src/throughput/result';
import { queueCountReaching } from '../client/support/signals';

const url = getConfig().amqpUrl;

describe('the bare publish script', () => {
  async function withQueue(body: (queue: string, count: (expected: number) => Promise<number>) => Promise<void>): Promise<void> {
    const connection = await amqp.connect(url);
    try {
      const channel = await connection.createChannel();
      // Not exclusive: the script publishes from its own connection.
      const { queue } = await channel.assertQueue(`amqp-bench.test.bare.${process.pid}.${Date.now()}`, {
        durable: false,
        arguments: { 'x-expires': 60_000 },
      });
      try {
        await body(queue, (expected) => queueCountReaching(channel, queue, expected));
      } finally {
        await channel.deleteQueue(queue);
      }
    } finally {
      await connection.close();
    }
  }

  it('serves timed rounds on request over one connection, after its warm-up', async () => {
    await withQueue(async (queue, count) => {
      const bare = await startBarePublisher({ url, queue, messages: 500, messageSizeBytes: 64, warmupMessages: 100, timeoutMs: 30_000 });
      try {
        expect(bare.warmupMessages).toBe(100);
        expect(await count(100)).toBe(100);
        const first = await bare.run();
        expect(first).toMatchObject({ messages: 500, message_size_bytes: 64, warmup_messages: 100 });
        expect(first.msgs_per_sec).toBeCloseTo(500 / first.seconds, 6);
        await bare.run();
        expect(await count(1100)).toBe(1100);
      } finally {
        await bare.close();
      }
      await bare.close();
      await expect(bare.run()).rejects.toThrow('the bare publisher is closed');
    });
  }, 30_000);

  it('runs on its own: one JSON line per timed round', async () => {
    await withQueue(async (queue, count) => {
      const stdout = execFileSync(
        process.execPath,
        [BARE_PUBLISH_SCRIPT, '--queue', queue, '--messages', '50', '--warmup', '10', '--rounds', '2'],
        { env: { ...process.env, AMQP_URL: url }, timeout: 30_000 },
      ).toString();
      const lines = stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { round: number; messages: number });
      expect(lines.map((line) => [line.round, line.messages])).toEqual([
        [1, 50],
        [2, 50],
      ]);
      expect(await count(110)).toBe(110);
    });
  }, 30_000);

  // The overhead check hands each script the library options of the configuration measured.
  it.each(allClientSpecs().map((spec) => [clientLabel(spec), spec] as const))(
    "runs %s's library with that configuration's options, and every message arrives",
    async (_label, spec) => {
      const adapter = adapterOf(spec);
      await withQueue(async (queue, count) => {
        const bare = await startBarePublisher({
          url,
          queue,
          library: bareClientOf(spec),
          program: bareProgramOf(spec),
          libraryOptions: adapter.bareOptions!(spec.profile),
          messages: 200,
          messageSizeBytes: 64,
          warmupMessages: 20,
          timeoutMs: 20_000,
        });
        try {
          expect((await bare.run()).messages).toBe(200);
        } finally {
          await bare.close();
        }
        expect(await count(220)).toBe(220);
      });
    },
    30_000,
  );

  it("fails with the script's own message when the queue does not exist", async () => {
    await expect(
      startBarePublisher({ url, queue: `amqp-bench.missing.${process.pid}`, messages: 1, messageSizeBytes: 1, timeoutMs: 30_000 }),
    ).rejects.toThrow(/bare-publish exited: bare-publish: .*NOT_FOUND/);
  }, 30_000);

  it('rejects a record line without every figure', () => {
    expect(() => parseBareRecord('hello')).toThrow('bare-publish printed a line that is not JSON: "hello"');
    expect(() => parseBareRecord('{"messages":1}')).toThrow(
      'bare-publish output needs a finite non-negative number in "message_size_bytes"; got undefined',
    );
  });
});

describe('the harness-overhead comparison', () => {
  it('runs both sides alternately on the same queue, and every message arrives', async () => {
    const outcome = await measureHarnessOverhead({ url, messages: 300, messageSizeBytes: 256, pairs: 2 });
    expect(outcome.pairs.map((pair) => pair.first)).toEqual(['harness', 'bare']);
    expect(outcome.harnessRounds.map((round) => round.received)).toEqual([300, 300, 300]);
    // The bare warm-up, then one run per pair.
    expect(outcome.bareRuns).toEqual([
      { published: 300, received: 300 },
      { published: 300, received: 300 },
      { published: 300, received: 300 },
    ]);
    expect(outcome.errors).toBe(0);
    const result = harnessOverheadResult(outcome);
    expect(result.samples?.ratio_percent).toHaveLength(2);
    // Judged on the two pairs' interval: met when both are above 90%, else inconclusive (two pairs never make a miss).
    const ratios = result.samples?.ratio_percent ?? [];
    expect(result.targets?.[0]?.verdict).toBe(ratios.every((ratio) => ratio > 90) ? 'met' : 'inconclusive');
  }, 60_000);
});
