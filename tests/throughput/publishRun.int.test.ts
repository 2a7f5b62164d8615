/**
 * The throughput machinery against the real broker: a tiny session (2 logical publishers x 20
 * messages) in both modes, the raw result it records, and the worker's failure path (the bare
 * script: barePublish.int.test.ts); a client whose confirms never settle (a fixture, and amqp091-go 1.5.0 as it
 * comes) ends in the finding, within the bounds. Raw results go to a temporary BENCH_RAW_DIR (set
 * before the first getConfig()).
 */
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
import { measurePublishThroughput, measuredRounds } from '../../src/throughput/measure';
import { clientInfo, unavailableClients } from '../../src/client/registry';
import { unsettledPublishFinding } from '../../src/throughput/unsettled';
import { unsettledPublishes } from '../../src/throughput/measure';
import { resolvePublishWorkload } from '../../src/throughput/plan';
import { PublishBoard, PublishControl } from '../../src/throughput/publishBoard';
import { publishThroughputResult } from '../../src/throughput/result';
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
