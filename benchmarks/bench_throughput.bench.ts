/**
 * @benchmark
 *
 * Publish throughput over logical publisher threads x messages per thread and message size, in
 * plain and publisher-confirm modes, straight to the broker. Logical publishers are spread over
 * a bounded worker pool (at most 4 threads), one channel each, starting together at a barrier.
 * Each configuration is measured in REPLICATES independent replicates, one after the other, each
 * a fresh session (connections, channels, queue, worker pool): one warm-up round, then a few
 * measured rounds whose median is the replicate's value. The recorded value is the median of the
 * replicates; the comparison tests the replicates (rounds of one session share its conditions and
 * are no replicates of a configuration). Also the harness overhead: the harness's publish rate
 * against a bare amqplib script's, alternating, in replicates too.
 * Correctness is asserted (every message reached the queue, no error, in every replicate); speed
 * is recorded.
 */
import { benchContext } from '../fixtures/context';
import { recordResult } from '../fixtures/record';
import { clientFields, forEachClient } from '../fixtures/clients';
import type { ClientSpec } from '../src/client/api';
import type { ResultDraft } from '../src/results/rawResult';
import { mergeHistograms, summarizeMs } from '../src/measure/histogram';
import { runReplicates } from '../src/results/replicates';
import { markedTest, withMarkers } from '../src/testing';
import { measurePublishThroughput, measuredRounds } from '../src/throughput/measure';
import { measureHarnessOverhead } from '../src/throughput/overhead';
import { resolvePublishWorkload, workloadLabel, type PublishMode } from '../src/throughput/plan';
import { countErrors, harnessOverheadReplicatesResult, publishThroughputReplicatesResult } from '../src/throughput/result';

interface PublishCase {
  readonly threads: number;
  readonly messagesPerThread: number;
  readonly messageSizeBytes: number;
  readonly mode: PublishMode;
}

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

const SLOW_ROWS: Row[] = [
  row(10, 100, 4096, 'plain'),
  row(10, 100, 4096, 'confirm'),
  row(300, 50, 256, 'plain'),
  row(300, 50, 256, 'confirm'),
  row(300, 50, 4096, 'plain'),
  row(300, 50, 4096, 'confirm'),
  row(900, 10, 256, 'plain'),
  row(900, 10, 256, 'confirm'),
  row(900, 10, 4096, 'plain'),
  row(900, 10, 4096, 'confirm'),
];

/**
 * Independent replicates per configuration. Six is the fewest with which a change can still be
 * significant after the comparison corrects for a hundred metrics at once: the exact Mann-Whitney
 * p-value of 6 against 6 replicates is at least 0.0022 (5 against 5: 0.0079, 4 against 4: 0.029).
 */
const REPLICATES = 6;
/** Measured rounds per replicate (after one warm-up round); the replicate's value is their median. */
const ROUNDS = 2;
const QUICK_TIMEOUT_MS = 120_000;
const SLOW_TIMEOUT_MS = 600_000;
/** Harness overhead: messages per timed run on each side, and pairs of runs (alternating) per replicate. */
const OVERHEAD_MESSAGES = 20_000;
const OVERHEAD_PAIRS = 2;

/** A draft with its client said: as parameters (results of different clients never compared) and its version and settings. */
const withClient = (draft: ResultDraft, client: ClientSpec): ResultDraft => {
  const fields = clientFields(client);
  return { ...draft, parameters: { ...draft.parameters, ...fields.parameters }, client: fields.client };
};

/** Plain-mode publish calls take microseconds: show those as µs rather than `0.00 ms`. */
const latency = (ms: number | null): string =>
  ms === null ? 'n/a' : ms < 1 ? `${Math.round(ms * 1000)} µs` : `${ms < 10 ? ms.toFixed(2) : ms.toFixed(1)} ms`;

const rate = (value: number | null | undefined): string =>
  typeof value === 'number' ? `${Math.round(value).toLocaleString('en-US')} msg/s` : 'n/a';

async function measureAndRecord(client: ClientSpec, publishCase: PublishCase, roundBoundMs: number): Promise<void> {
  const workload = resolvePublishWorkload({ ...publishCase, rounds: ROUNDS, warmupRounds: 1, roundBoundMs });
  const outcomes = await runReplicates(REPLICATES, () => measurePublishThroughput({ url: benchContext().directUrl, client }, workload));
  const draft = withClient(publishThroughputReplicatesResult(outcomes), client);
  const replicateRates = draft.replicates?.throughput_msgs_per_sec ?? [];
  const merged = mergeHistograms(outcomes.map((outcome) => outcome.report.histogram));
  const summary = summarizeMs(merged);
  const errors = outcomes.reduce((sum, outcome) => sum + countErrors(outcome), 0);
  recordResult(
    draft,
    `${rate(draft.metrics.throughput_msgs_per_sec?.value)} (${draft.metrics.throughput_mb_per_sec?.value} MB/s; median of ${outcomes.length} replicates, ${Math.round(Math.min(...replicateRates))}-${Math.round(Math.max(...replicateRates))}), ` +
      `${workload.mode === 'confirm' ? 'publish->confirm' : 'publish call'} p50 ${latency(summary.p50)}, p95 ${latency(summary.p95)}, p99 ${latency(summary.p99)}, max ${latency(summary.max)} (all replicates); ` +
      `${workload.workerThreads} worker thread(s), errors ${errors}`,
  );

  // Correctness is asserted, in every replicate; speed is recorded. Confirm mode: every message was
  // acked and is in the queue. Plain mode: nothing may be lost on a healthy local broker either.
  for (const [replicate, outcome] of outcomes.entries()) {
    expect({ replicate, fatal: outcome.report.workers.filter((worker) => worker.fatal) }).toEqual({ replicate, fatal: [] });
    expect({ replicate, errors: countErrors(outcome), samples: outcome.report.errorSamples }).toEqual({
      replicate,
      errors: 0,
      samples: [],
    });
    for (const round of outcome.rounds) {
      expect({ replicate, round: round.round, published: round.published, received: round.received }).toEqual({
        replicate,
        round: round.round,
        published: workload.messagesPerRound,
        received: workload.messagesPerRound,
      });
    }
    expect(summarizeMs(outcome.report.histogram).count).toBe(workload.messagesPerRound * workload.rounds);
    expect(measuredRounds(outcome)).toHaveLength(workload.rounds);
  }
}

forEachClient((client) =>
  describe('TestPublishThroughput', () => {
    markedTest().each(QUICK_ROWS)(
      'test_publish_throughput[%s]',
      async (_label, publishCase) => measureAndRecord(client, publishCase, 20_000),
      QUICK_TIMEOUT_MS,
    );

    markedTest().each(SLOW_ROWS.map((slow) => withMarkers(['slow'], slow)))(
      'test_publish_throughput[%s]',
      async (_label, publishCase) => measureAndRecord(client, publishCase, 30_000),
      SLOW_TIMEOUT_MS,
    );
  }),
);

forEachClient((client) =>
  describe('TestHarnessOverhead', () => {
    test('test_harness_overhead', async () => {
      const messages = OVERHEAD_MESSAGES;
      const outcomes = await runReplicates(REPLICATES, () =>
        measureHarnessOverhead({ url: benchContext().directUrl, client, messages, messageSizeBytes: 256, pairs: OVERHEAD_PAIRS }),
      );
      const draft = withClient(harnessOverheadReplicatesResult(outcomes), client);
      const target = draft.targets?.[0];
      recordResult(
        draft,
        `harness ${rate(draft.metrics.harness_msgs_per_sec?.value)} vs bare ${rate(draft.metrics.bare_msgs_per_sec?.value)}: ` +
          `ratio ${draft.metrics.ratio_percent?.value}% (median of ${outcomes.length} replicates of ${OVERHEAD_PAIRS} pairs; target >= ${target?.threshold}%: ${target?.met ? 'met' : 'missed'}); replicates ${draft.replicates?.ratio_percent?.join('%, ')}%`,
      );

      // The ratio is recorded, not asserted (speed goals never fail a run on a shared machine).
      for (const outcome of outcomes) {
        expect(outcome.errors).toBe(0);
        expect(outcome.pairs).toHaveLength(OVERHEAD_PAIRS);
        for (const round of outcome.harnessRounds)
          expect({ round: round.round, received: round.received }).toEqual({ round: round.round, received: messages });
        for (const run of outcome.bareRuns) expect(run.received).toBe(run.published);
      }
    }, 240_000);
  }),
);
