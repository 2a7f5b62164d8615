/**
 * @benchmark
 *
 * Publish throughput over logical publisher threads x messages per thread and message size, in
 * plain and publisher-confirm modes, straight to the broker. Logical publishers are spread over
 * a bounded worker pool (at most 4 threads), one channel each, starting together at a barrier.
 * Each configuration is measured in REPLICATES independent replicates, one after the other, each
 * a fresh session (connections, channels, queue; the worker threads are reused within the file,
 * see src/workers/shelf.ts): one short warm-up round (SESSION_WARMUP_MESSAGES a publisher; full
 * rounds before it on threads new to the mode and client, see src/throughput/session.ts), then a few measured rounds whose median is the replicate's value. The recorded value is the median of the
 * replicates; the comparison tests the replicates (rounds of one session share its conditions and
 * are no replicates of a configuration). Also the harness overhead: the harness's publish rate
 * against a bare amqplib script's, alternating, in replicates too.
 * Correctness is asserted (every message reached the queue, no error, in every replicate); speed
 * is recorded. A publish the client never settles within the publish bound (a confirm that never
 * comes) stops its publisher and the replicate after that round: a finding of the client, with
 * which publishes and the client's version and words on its confirms, recorded as the result
 * (the test passes; `--fail-on-findings` fails it). So does a round the client does not finish
 * within the round bound (20 s quick, 30 s slow): it is cut there, and what was published (and
 * confirmed) within it is the figure, an incomplete round's, never a complete round's rate.
 */
import { hasBareConsume } from '../src/throughput/bareConsume';
import { measureConsumeOverhead } from '../src/throughput/consumeOverhead';
import { consumeLabel } from '../src/throughput/consumePlan';
import { CONSUME_PHASE, measureConsumeRow, msgRate, type ConsumeCase } from '../src/throughput/consumeRow';
import { consumeOverheadResult } from '../src/throughput/consumeResult';
import { benchContext } from '../fixtures/context';
import { recordResult } from '../fixtures/record';
import { clientFields, forEachClient } from '../fixtures/clients';
import { expectVerdictReached } from '../fixtures/verdict';
import { clientInfo } from '../src/client/registry';
import type { ClientSpec } from '../src/client/api';
import type { ResultDraft } from '../src/results/rawResult';
import { summarizeMs } from '../src/measure/histogram';
import { runReplicates } from '../src/results/replicates';
import { describeTargetVerdict } from '../src/results/targetVerdict';
import { markedTest, withMarkers } from '../src/testing';
import { replicatesOr } from '../src/config';
import { measurePublishThroughput, measuredRounds } from '../src/throughput/measure';
import { measureHarnessOverhead } from '../src/throughput/overhead';
import { resolvePublishWorkload, workloadLabel, type PublishMode, type PublishWorkloadInput } from '../src/throughput/plan';
import { publishRowResult, rate } from '../src/throughput/publishRow';
import { countErrors, harnessOverheadReplicatesResult } from '../src/throughput/result';

type PublishCase = Pick<PublishWorkloadInput, 'threads' | 'messagesPerThread' | 'messageSizeBytes' | 'mode'>;

type Row = [label: string, publishCase: PublishCase];

const row = (threads: number, messagesPerThread: number, messageSizeBytes: number, mode: PublishMode): Row => {
  const publishCase = { threads, messagesPerThread, messageSizeBytes, mode };
  return [workloadLabel(publishCase), publishCase];
};

/** The quick selection: small, so `benchmark and not slow and not stress` stays short. */
const QUICK_ROWS: Row[] = [
  row(10, 100, 256, 'plain'),
  row(10, 100, 256, 'confirm'),
  row(100, 100, 256, 'plain'),
  row(100, 100, 256, 'confirm'),
  row(100, 100, 4096, 'plain'),
  row(100, 100, 4096, 'confirm'),
];

/** 10x100 at 4 KiB, then 300x50 and 900x10 at both sizes; each size plain, then confirm. */
const SLOW_ROWS: Row[] = (
  [
    [10, 100, [4096]],
    [300, 50, [256, 4096]],
    [900, 10, [256, 4096]],
  ] as const
).flatMap(([threads, perThread, sizes]) =>
  sizes.flatMap((size) => (['plain', 'confirm'] as const).map((mode) => row(threads, perThread, size, mode))),
);

/**
 * Independent replicates per configuration. Six is the fewest with which a change can still be
 * significant after the comparison corrects for a hundred metrics at once: the exact Mann-Whitney
 * p-value of 6 against 6 replicates is at least 0.0022 (5 against 5: 0.0079, 4 against 4: 0.029).
 * BENCH_REPLICATES replaces it (`npm run bench:clients` takes 2, to fit every client in one run).
 */
const REPLICATES = replicatesOr(6);
/** Measured rounds per replicate (after one warm-up round); the replicate's value is their median. */
const ROUNDS = 2;
/**
 * Publishes per logical publisher in each session's warm-up round. The threads are warm by then
 * (first-use rounds, full size, once per pool and mode), so the session's warm-up only has to
 * carry traffic over what is new in it: every publisher's channel (and a client's lazy set-up of
 * it), the fresh queue, and in confirm mode a few confirms each. A full round did the same at ten
 * times the cost (3-4 s of a 100x100 confirm test): after either, the first measured round ran at
 * the second's pace (median ratio 1.08 both ways, 36 replicates each, two cores under load).
 */
const SESSION_WARMUP_MESSAGES = 10;
/** Round bounds: a round not finished within its bound is cut there (the client's finding). */
const QUICK_ROUND_BOUND_MS = 20_000;
const SLOW_ROUND_BOUND_MS = 30_000;
/**
 * A client too slow for the round bound spends it whole in each replicate's first round, plus its
 * session (100 channels opened and closed): the quick bound leaves room for that in every replicate.
 */
const QUICK_TIMEOUT_MS = Math.max(120_000, REPLICATES * (QUICK_ROUND_BOUND_MS + 15_000));
const SLOW_TIMEOUT_MS = 600_000;
/** Harness overhead: messages per timed run on each side, and pairs of runs (alternating) per replicate. */
const OVERHEAD_MESSAGES = 20_000;
const OVERHEAD_PAIRS = 2;

/** A draft with its client said: as parameters (results of different clients never compared) and its version and settings. */
const withClient = (draft: ResultDraft, client: ClientSpec): ResultDraft => {
  const fields = clientFields(client);
  return { ...draft, parameters: { ...draft.parameters, ...fields.parameters }, client: fields.client };
};

async function measureAndRecord(client: ClientSpec, publishCase: PublishCase, roundBoundMs: number): Promise<void> {
  const workload = resolvePublishWorkload({
    ...publishCase,
    rounds: ROUNDS,
    warmupRounds: 1,
    sessionWarmupMessagesPerThread: SESSION_WARMUP_MESSAGES,
    roundBoundMs,
  });
  const outcomes = await runReplicates(REPLICATES, () => measurePublishThroughput({ url: benchContext().directUrl, client }, workload));
  const { draft, findings, progress } = publishRowResult(outcomes, clientInfo(client), workload, roundBoundMs);
  recordResult(withClient(draft, client), progress);

  // Correctness is asserted, in every replicate; speed is recorded. Confirm mode: every message was
  // acked and is in the queue. Plain mode: nothing may be lost on a healthy local broker either.
  for (const [replicate, outcome] of outcomes.entries()) {
    expect({ replicate, fatal: outcome.report.workers.filter((worker) => worker.fatal) }).toEqual({ replicate, fatal: [] });
    expect({ replicate, errors: countErrors(outcome), samples: outcome.report.errorSamples }).toEqual({
      replicate,
      errors: 0,
      samples: [],
    });
    // A round in which publishes never settled, or cut at the round bound, is the finding's: it was the last.
    const stopped = outcome.rounds.some((round) => round.unsettled > 0 || round.cut);
    // What a cut round published (in confirm mode, had confirmed) is in the queue, no more, no less.
    for (const round of outcome.rounds.filter((each) => each.cut && each.unsettled === 0))
      expect({ replicate, round: round.round, received: round.received }).toEqual({
        replicate,
        round: round.round,
        received: round.published,
      });
    for (const round of outcome.rounds.filter((each) => each.unsettled === 0 && !each.cut)) {
      // Every measured round is a full one; only the session's own warm-up round is shorter.
      const expected = round.warmup ? round.expected : workload.messagesPerRound;
      expect({ replicate, round: round.round, published: round.published, received: round.received }).toEqual({
        replicate,
        round: round.round,
        published: expected,
        received: expected,
      });
    }
    if (stopped) continue;
    expect(summarizeMs(outcome.report.histogram).count).toBe(workload.messagesPerRound * workload.rounds);
    expect(measuredRounds(outcome)).toHaveLength(workload.rounds);
  }
  expectVerdictReached({ findings, harnessProblems: [] });
}

forEachClient((client) =>
  describe('TestPublishThroughput', () => {
    markedTest().each(QUICK_ROWS)(
      'test_publish_throughput[%s]',
      async (_label, publishCase) => measureAndRecord(client, publishCase, QUICK_ROUND_BOUND_MS),
      QUICK_TIMEOUT_MS,
    );

    markedTest().each(SLOW_ROWS.map((slow) => withMarkers(['slow'], slow)))(
      'test_publish_throughput[%s]',
      async (_label, publishCase) => measureAndRecord(client, publishCase, SLOW_ROUND_BOUND_MS),
      SLOW_TIMEOUT_MS,
    );
  }),
);

forEachClient((client) =>
  describe('TestHarnessOverhead', () => {
    // A witness of the harness (bench verify), not a measurement of the client.
    markedTest(['witness'])(
      'test_harness_overhead',
      async () => {
        const messages = OVERHEAD_MESSAGES;
        const outcomes = await runReplicates(REPLICATES, () =>
          measureHarnessOverhead({ url: benchContext().directUrl, client, messages, messageSizeBytes: 256, pairs: OVERHEAD_PAIRS }),
        );
        const draft = withClient(harnessOverheadReplicatesResult(outcomes), client);
        const target = draft.targets?.[0];
        recordResult(
          draft,
          `harness ${rate(draft.metrics.harness_msgs_per_sec?.value)} vs bare ${rate(draft.metrics.bare_msgs_per_sec?.value)}: ` +
            `ratio ${draft.metrics.ratio_percent?.value}% (median of ${outcomes.length} replicates of ${OVERHEAD_PAIRS} pairs; ${target ? describeTargetVerdict(target) : 'no target'}); replicates ${draft.replicates?.ratio_percent?.join('%, ')}%`,
        );

        // The ratio is recorded, not asserted (speed goals never fail a run on a shared machine).
        for (const outcome of outcomes) {
          expect(outcome.errors).toBe(0);
          expect(outcome.pairs).toHaveLength(OVERHEAD_PAIRS);
          for (const round of outcome.harnessRounds)
            expect({ round: round.round, received: round.received }).toEqual({ round: round.round, received: messages });
          for (const run of outcome.bareRuns) expect(run.received).toBe(run.published);
        }
      },
      240_000,
    );
  }),
);

/*
 * Consume throughput, in the spirit of RabbitMQ PerfTest: harness producers (plain amqplib) keep
 * the queue between two watermarks, N consumers of the client under test ack every delivery
 * within a prefetch window, and the rate is counted on the consumers' side over windows of steady
 * state after a warm-up (src/throughput/sustainedConsume.ts). A window in which the queue ran dry
 * makes the figure producer-bound, and the result says so. Also the consume harness overhead: the
 * harness's consumers against the bare script's (the same library alone), taking turns on the
 * same queue. Correctness is asserted (every message counted once, no thread failed); speed is
 * recorded, never asserted.
 */

type ConsumeRow = [label: string, consumeCase: ConsumeCase];

const consumeRow = (consumers: number, messageSizeBytes: number, consumerThreads: number): ConsumeRow => {
  const consumeCase = { consumers, messageSizeBytes, consumerThreads };
  return [consumeLabel(consumeCase), consumeCase];
};

/** The quick selection: small, so `benchmark and not slow and not stress` stays short. */
const QUICK_CONSUME_ROWS: ConsumeRow[] = [consumeRow(1, 256, 1), consumeRow(10, 256, 1)];
const SLOW_CONSUME_ROWS: ConsumeRow[] = [consumeRow(10, 4096, 1), consumeRow(100, 256, 2), consumeRow(100, 4096, 2)];

/** The overhead check: the 10-consumer quick configuration, in pairs of one window each (the pairs are its replicates: BENCH_REPLICATES). */
const CONSUME_OVERHEAD_CONSUMERS = 10;
const CONSUME_OVERHEAD_PAIRS = replicatesOr(5);
/** Filling 200k messages dominates a test on a loaded machine (50 s seen at load 16, when the backlog was also consumed to the end). */
const CONSUME_QUICK_TIMEOUT_MS = 180_000;
const CONSUME_SLOW_TIMEOUT_MS = 300_000;
const CONSUME_OVERHEAD_TIMEOUT_MS = 300_000;

async function measureConsumeAndRecord(client: ClientSpec, consumeCase: ConsumeCase): Promise<void> {
  const { outcome, draft, progress } = await measureConsumeRow(client, consumeCase, benchContext().directUrl);
  recordResult(withClient(draft, client), progress);

  // Correctness is asserted; speed (and a producer-bound figure, which the result states) is recorded.
  expect(outcome.report.errors).toEqual([]);
  expect(outcome.phase.windows.length).toBe(outcome.phase.windowsEnded === 'max' ? CONSUME_PHASE.rounds : CONSUME_PHASE.minRounds);
  expect({ missing: draft.metrics.messages_missing?.value, extra: draft.metrics.messages_extra?.value }).toEqual({ missing: 0, extra: 0 });
}

forEachClient((client) =>
  describe('TestConsumeThroughput', () => {
    markedTest().each(QUICK_CONSUME_ROWS)(
      'test_sustained_consume[%s]',
      async (_label, consumeCase) => measureConsumeAndRecord(client, consumeCase),
      CONSUME_QUICK_TIMEOUT_MS,
    );

    markedTest().each(SLOW_CONSUME_ROWS.map((slow) => withMarkers(['slow'], slow)))(
      'test_sustained_consume[%s]',
      async (_label, consumeCase) => measureConsumeAndRecord(client, consumeCase),
      CONSUME_SLOW_TIMEOUT_MS,
    );

    // The bare module of the client's library (amqplib-recovery is amqplib's own recovery: same library).
    const bareClient = client.name === 'amqplib-recovery' ? 'amqplib' : client.name;
    (hasBareConsume(bareClient) ? markedTest(['witness']) : test.skip)(
      'test_consume_harness_overhead',
      async () => {
        const outcome = await measureConsumeOverhead({
          url: benchContext().directUrl,
          client,
          bareClient,
          consumers: CONSUME_OVERHEAD_CONSUMERS,
          prefetch: CONSUME_PHASE.prefetch,
          pairs: CONSUME_OVERHEAD_PAIRS,
          windowMs: CONSUME_PHASE.windowMs,
          warmupMs: CONSUME_PHASE.warmupMs,
        });
        const draft = consumeOverheadResult(outcome);
        const target = draft.targets?.[0];
        recordResult(
          withClient(draft, client),
          `harness ${msgRate(draft.metrics.harness_msgs_per_sec?.value)} vs bare ${msgRate(draft.metrics.bare_msgs_per_sec?.value)}: ` +
            `ratio ${draft.metrics.ratio_percent?.value}% (median of ${draft.samples?.ratio_percent?.length} clean pairs; ${target ? describeTargetVerdict(target) : 'no target'}); ` +
            `pairs ${draft.samples?.ratio_percent?.join('%, ')}%; producer-bound pairs ${draft.metrics.producer_bound_pairs?.value}; ` +
            `CPU per message harness ${draft.metrics.harness_cpu_us_per_msg?.value ?? 'n/a'} µs vs bare ${draft.metrics.bare_cpu_us_per_msg?.value ?? 'n/a'} µs (efficiency ${draft.metrics.cpu_efficiency_percent?.value ?? 'n/a'}%)`,
        );

        // The ratio is recorded, not asserted (speed goals never fail a run on a shared machine).
        expect(outcome.report.errors).toEqual([]);
        expect(outcome.pairs).toHaveLength(CONSUME_OVERHEAD_PAIRS);
        for (const pair of outcome.pairs) {
          // Never both sides at once on the queue: each window saw only its own consumers.
          expect([pair.harness.depth.maxConsumers, pair.bare.depth.maxConsumers]).toEqual([
            CONSUME_OVERHEAD_CONSUMERS,
            CONSUME_OVERHEAD_CONSUMERS,
          ]);
        }
      },
      CONSUME_OVERHEAD_TIMEOUT_MS,
    );
  }),
);
