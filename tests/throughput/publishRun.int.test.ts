/**
 * The throughput machinery against the real broker: a tiny session (2 logical publishers x 20
 * messages) in both modes, the raw result it records, the bare script, and the worker's
 * failure path; a client whose confirms never settle (a fixture, and amqp091-go 1.5.0 as it
 * comes) ends in the finding, within the bounds. Raw results go to a temporary BENCH_RAW_DIR (set
 * before the first getConfig()).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import amqp from 'amqplib';

const rawDir = fs.mkdtempSync(path.join(os.tmpdir(), 'amqp-bench-throughput-'));
process.env.BENCH_RAW_DIR = rawDir;

import { recordResult } from '../../fixtures/record';
import { getConfig } from '../../src/config';
import { summarizeMs } from '../../src/measure/histogram';
import { WorkerError } from '../../src/errors';
import { BARE_PUBLISH_SCRIPT, bareProgramOf, parseBareRecord, startBarePublisher } from '../../src/suite-kit/barePublish';
import { measurePublishThroughput, measuredRounds } from '../../src/throughput/measure';
import { measureHarnessOverhead } from '../../src/throughput/overhead';
import { bareClientOf } from '../../src/suite-kit/barePublish';
import { clientLabel } from '../../src/client/api';
import { adapterOf, allClientSpecs, clientInfo, unavailableClients } from '../../src/client/registry';
import { unsettledPublishFinding } from '../../src/throughput/unsettled';
import { unsettledPublishes } from '../../src/throughput/measure';
import { resolvePublishWorkload } from '../../src/throughput/plan';
import { PublishBoard, PublishControl } from '../../src/throughput/publishBoard';
import { queueCountReaching } from '../client/support/signals';
import { harnessOverheadResult, publishThroughputResult } from '../../src/throughput/result';
import { openPublishSession } from '../../src/throughput/session';
import publishThread from '../../src/throughput/publishThread';
import { closeShelvedPools, enableThreadPoolShelf } from '../../src/workers/shelf';

const url = getConfig().amqpUrl;

afterAll(() => {
  fs.rmSync(rawDir, { recursive: true, force: true });
});

async function queueExists(queue: string): Promise<boolean> {
  const connection = await amqp.connect(url);
  try {
    const channel = await connection.createChannel();
    channel.on('error', () => undefined);
    return await channel.checkQueue(queue).then(
      () => true,
      () => false,
    );
  } finally {
    await connection.close().catch(() => undefined);
  }
}

describe.each(['plain', 'confirm'] as const)('a tiny publish session in %s mode (real broker)', (mode) => {
  it('delivers every message of every round to the queue and records a complete raw result', async () => {
    expect(getConfig().rawResultsDir).toBe(rawDir);
    const workload = resolvePublishWorkload({ threads: 2, messagesPerThread: 20, mode, rounds: 3, warmupRounds: 1, roundBoundMs: 10_000 });
    expect(workload.workerThreads).toBe(2);
    const outcome = await measurePublishThroughput({ url, firstUseWarmupPublishesPerThread: 0 }, workload);

    expect(outcome.report.workers.map((worker) => worker.fatal)).toEqual([undefined, undefined]);
    expect(outcome.report.errorSamples).toEqual([]);
    expect(outcome.rounds.map((round) => [round.round, round.warmup, round.published, round.received, round.errors])).toEqual([
      [1, true, 40, 40, 0],
      [2, false, 40, 40, 0],
      [3, false, 40, 40, 0],
      [4, false, 40, 40, 0],
    ]);
    for (const round of outcome.rounds) {
      expect(round.durationMs).toBeGreaterThan(0);
      expect(round.msgsPerSec).toBeCloseTo((40 * 1000) / round.durationMs, 6);
    }
    // Every worker ran every round; its own record agrees with what the board carried.
    for (const worker of outcome.report.workers) expect(worker.rounds.map((round) => round.published)).toEqual([20, 20, 20, 20]);
    // Warm-up publishes stay out of the histogram.
    expect(outcome.report.histogram.totalCount).toBe(120);

    const written: ReturnType<typeof recordResult> = recordResult(publishThroughputResult(outcome));
    expect(written.name).toBe('publish_throughput');
    const files = fs.readdirSync(rawDir).filter((file) => file.startsWith('publish_throughput_'));
    const onDisk = files
      .map((file) => JSON.parse(fs.readFileSync(path.join(rawDir, file), 'utf8')) as typeof written)
      .find((result) => result.parameters.publish_mode === mode);
    expect(onDisk).toBeDefined();
    expect(onDisk!.test_id).toBe(
      `tests/throughput/publishRun.int.test.ts::a tiny publish session in ${mode} mode (real broker)::delivers every message of every round to the queue and records a complete raw result`,
    );
    expect(Object.keys(onDisk!.metrics).sort()).toEqual(
      [
        'errors',
        'messages_total',
        'publish_latency_max_ms',
        'publish_latency_p50_ms',
        'publish_latency_p95_ms',
        'publish_latency_p99_ms',
        'throughput_mb_per_sec',
        'throughput_msgs_per_sec',
      ].sort(),
    );
    for (const [name, metric] of Object.entries(onDisk!.metrics))
      expect({ name, value: typeof metric.value }).toEqual({ name, value: 'number' });
    expect(onDisk!.metrics.messages_total!.value).toBe(120);
    expect(onDisk!.samples!.throughput_msgs_per_sec).toHaveLength(3);
    expect(onDisk!.histograms!.publish_latency!.count).toBe(120);
    expect(onDisk!.parameters).toEqual({
      threads: 2,
      messages_per_thread: 20,
      message_size_bytes: 256,
      publish_mode: mode,
      rounds: 3,
      worker_threads: 2,
    });
    expect(measuredRounds(outcome)).toHaveLength(3);
  }, 60_000);
});

describe('a publish session', () => {
  it('warms threads new to the mode and client up to the publishes asked for, once per pool on the shelf', async () => {
    enableThreadPoolShelf();
    try {
      // 2 publishers x 20 messages on 2 threads: 20 publishes a thread a round; 50 asked for: 3 rounds.
      const workload = resolvePublishWorkload({ threads: 2, messagesPerThread: 20, mode: 'plain', rounds: 2, warmupRounds: 1 });
      const first = await measurePublishThroughput({ url, firstUseWarmupPublishesPerThread: 50 }, workload);
      expect(first.rounds.map((round) => round.warmup)).toEqual([true, true, true, false, false]);
      expect(summarizeMs(first.report.histogram).count).toBe(2 * 40);
      const again = await measurePublishThroughput({ url, firstUseWarmupPublishesPerThread: 50 }, workload);
      expect(again.rounds.map((round) => round.warmup)).toEqual([true, false, false]);
      const confirm = resolvePublishWorkload({ threads: 2, messagesPerThread: 20, mode: 'confirm', rounds: 2, warmupRounds: 1 });
      const otherMode = await measurePublishThroughput({ url, firstUseWarmupPublishesPerThread: 50 }, confirm);
      expect(otherMode.rounds.map((round) => round.warmup)).toEqual([true, true, true, false, false]);
    } finally {
      await closeShelvedPools();
    }
  }, 60_000);

  it("runs the session's own warm-up round short, after full first-use rounds, and every measured round full", async () => {
    enableThreadPoolShelf();
    try {
      const workload = resolvePublishWorkload({
        threads: 2,
        messagesPerThread: 20,
        mode: 'confirm',
        rounds: 2,
        warmupRounds: 1,
        sessionWarmupMessagesPerThread: 3,
      });
      // New threads: 50 publishes a thread asked for, 20 a round: 3 warm-up rounds, the last one short.
      const first = await measurePublishThroughput({ url, firstUseWarmupPublishesPerThread: 50 }, workload);
      expect(first.rounds.map((round) => [round.warmup, round.expected, round.published, round.received])).toEqual([
        [true, 40, 40, 40],
        [true, 40, 40, 40],
        [true, 6, 6, 6],
        [false, 40, 40, 40],
        [false, 40, 40, 40],
      ]);
      expect(summarizeMs(first.report.histogram).count).toBe(2 * 40);
      // Warm threads: the short round alone, then the measured ones.
      const again = await measurePublishThroughput({ url, firstUseWarmupPublishesPerThread: 50 }, workload);
      expect(again.rounds.map((round) => [round.warmup, round.published, round.received])).toEqual([
        [true, 6, 6],
        [false, 40, 40],
        [false, 40, 40],
      ]);
      for (const worker of again.report.workers) expect(worker.rounds.map((round) => round.published)).toEqual([3, 20, 20]);
    } finally {
      await closeShelvedPools();
    }
  }, 60_000);

  it('deletes its queue on close, and close() can be called twice', async () => {
    const session = await openPublishSession({
      url,
      workload: resolvePublishWorkload({ threads: 1, messagesPerThread: 5, rounds: 1, warmupRounds: 0 }),
    });
    try {
      expect(await queueExists(session.queue)).toBe(true);
      const round = await session.runRound();
      expect(round.received).toBe(5);
    } finally {
      await session.close();
    }
    await session.close();
    expect(session.state).toBe('closed');
    expect(await queueExists(session.queue)).toBe(false);
    await expect(session.runRound()).rejects.toBeInstanceOf(WorkerError);
  }, 60_000);
});

describe('a client whose confirms never settle', () => {
  const neverSettles = {
    name: 'fixture-never-settles',
    profile: 'normalised' as const,
    module: path.join(__dirname, '../fixtures/adapters/never-settles.js'),
  };

  it('stops the publisher at the publish never settled within the publish bound, and the measurement after that round: the finding, not a hang', async () => {
    // One publisher, 40 a round: its publishes 101 to 105 never settle, so round 3 stops at its 21st.
    const workload = resolvePublishWorkload({
      threads: 1,
      messagesPerThread: 40,
      mode: 'confirm',
      rounds: 3,
      warmupRounds: 1,
      roundBoundMs: 10_000,
      publishBoundMs: 1000,
    });
    const outcome = await measurePublishThroughput({ url, client: neverSettles, firstUseWarmupPublishesPerThread: 0 }, workload);
    expect(outcome.rounds.map((round) => [round.round, round.warmup, round.published, round.errors, round.unsettled])).toEqual([
      [1, true, 40, 0, 0],
      [2, false, 40, 0, 0],
      [3, false, 20, 0, 1],
    ]);
    expect(outcome.rounds[2]!.durationMs).toBeGreaterThanOrEqual(1000);
    expect(unsettledPublishes(outcome)).toEqual([{ round: 3, warmup: false, publisher: 1, publish: 21 }]);
    expect(outcome.report.workers.map((worker) => worker.fatal)).toEqual([undefined]);

    const result = publishThroughputResult(outcome);
    expect(result.samples?.throughput_msgs_per_sec).toHaveLength(1);
    expect(result.metrics.throughput_msgs_per_sec?.value).toBe(result.samples?.throughput_msgs_per_sec?.[0]);
    expect(result.notes).toContain(
      '1 publish(es) never settled within the publish bound of 1000 ms in round 3: each stopped its publisher, and the measurement stopped after that round; the rates are those of the 1 measured round(s) before it',
    );
    const { version } = clientInfo({ name: 'amqplib', profile: 'normalised' });
    expect(unsettledPublishFinding([outcome], clientInfo(neverSettles))).toEqual({
      kind: 'publish_hung',
      text: '1 confirm(s) never settled within the publish bound of 1000 ms: each stopped its publisher there (an application awaiting it would still be waiting), and the measurement after that round',
      count: 1,
      evidence: ['round 3: publisher 1 at its publish 21 of 40', `amqplib ${version}`],
    });
  }, 60_000);

  it('has no finding when every confirm settled', async () => {
    const workload = resolvePublishWorkload({ threads: 1, messagesPerThread: 20, mode: 'confirm', rounds: 1, warmupRounds: 0 });
    const outcome = await measurePublishThroughput({ url, firstUseWarmupPublishesPerThread: 0 }, workload);
    expect(unsettledPublishFinding([outcome], clientInfo({ name: 'amqplib', profile: 'defaults' }))).toBeUndefined();
  }, 30_000);

  const goMissing = unavailableClients().find((client) => client.name === 'amqp091-go')?.why;
  (goMissing ? it.skip : it)(
    'amqp091-go 1.5.0 in confirm mode: every confirm settled, or the finding naming the library, its version and the upstream report',
    async () => {
      const goClient = { name: 'amqp091-go', profile: 'defaults' as const };
      const workload = resolvePublishWorkload({
        threads: 2,
        messagesPerThread: 500,
        mode: 'confirm',
        rounds: 2,
        warmupRounds: 1,
        roundBoundMs: 20_000,
        publishBoundMs: 3000,
      });
      const outcome = await measurePublishThroughput({ url, client: goClient, firstUseWarmupPublishesPerThread: 0 }, workload);
      expect(outcome.report.workers.map((worker) => worker.fatal)).toEqual([undefined, undefined]);
      const finding = unsettledPublishFinding([outcome], clientInfo(goClient));
      const info = clientInfo(goClient);
      if (finding === undefined) {
        expect(outcome.rounds.map((round) => round.published)).toEqual([1000, 1000, 1000]);
        return;
      }
      expect(finding.text).toMatch(/^[12] confirm\(s\) never settled within the publish bound of 3000 ms: /);
      expect(finding.evidence[0]).toMatch(/^round \d+(?: \(warm-up\))?: publisher [12] at its publish \d+ of 500/);
      expect(finding.evidence[1]).toBe(`${info.library} ${info.version}; its confirms: ${String(info.settings.confirms)}`);
      if (info.version === '1.5.0') expect(finding.evidence[1]).toMatch(/rabbitmq\/amqp091-go#182, fixed in 1\.8\.0/);
      expect(outcome.rounds.at(-1)!.unsettled).toBe(finding.count);
    },
    60_000,
  );
});

describe('the publish worker', () => {
  it('reports a connection it cannot make as fatal and still counts itself ready, so nobody waits for it', async () => {
    const board = new PublishBoard(1);
    const report = await publishThread({
      worker: 0,
      workers: 1,
      buffer: board.buffer,
      url: 'amqp://guest:guest@127.0.0.1:1',
      queue: 'unused',
      publishers: 3,
      firstPublisher: 0,
      messagesPerThread: 1,
      messageSizeBytes: 8,
      mode: 'plain',
      warmupRounds: 0,
      sessionWarmupMessagesPerThread: 1,
      client: { name: 'amqplib', profile: 'defaults' },
      phaseBoundMs: 2000,
      publishBoundMs: 1000,
    });
    expect(report.fatal).toMatch(/could not connect and open 3 publishers: .*ECONNREFUSED/);
    expect(report.fatal).not.toContain('guest:guest');
    expect(board.flag(PublishControl.READY)).toBe(1);
    expect(board.flag(PublishControl.FAILED)).toBe(1);
  }, 30_000);
});

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
