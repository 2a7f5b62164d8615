/**
 * Raw results of the throughput suite, built from what was measured (pure): `publish_throughput`
 * and `harness_overhead`. One replicate's value is the median of its measured rounds (or pairs);
 * every round's rate is kept in `samples`, the merged latency histogram in `histograms`. The
 * recorded result combines k replicates (fresh sessions) into one: its values are the medians of
 * the replicates' values, which the comparison tests (src/results/replicates.ts).
 */
import { encodeHistogram, summarizeMs } from '../measure/histogram';
import { isNonEmpty, type NonEmptyArray } from '../measure/statistics';
import type { Metric, ResultDraft } from '../results/rawResult';
import { combineReplicates } from '../results/replicates';
import { judgedTarget } from '../results/targetVerdict';
import { cutRound, measuredRounds, unsettledPublishes, type PublishThroughputOutcome } from './measure';
import { overheadRatioPercent, roundFigure, summarizeRates } from './rates';
import type { RoundOutcome } from './session';

export type { ResultDraft } from '../results/rawResult';

/** Counts of events that add up over replicates rather than having a median. */
const PUBLISH_TOTALS = ['errors', 'messages_total'] as const;

/**
 * The recorded `publish_throughput` result of one configuration: its k replicates (one session
 * each) combined, each metric's value the median of the replicates' values, errors and messages
 * the totals.
 */
export function publishThroughputReplicatesResult(outcomes: NonEmptyArray<PublishThroughputOutcome>): ResultDraft {
  const drafts = outcomes.map(publishThroughputResult) as unknown as NonEmptyArray<ResultDraft>;
  return combineReplicates(drafts, { totals: PUBLISH_TOTALS, round: roundFigure });
}

/** The recorded `harness_overhead` result: k replicates (each its own session and bare process) combined. */
export function harnessOverheadReplicatesResult(inputs: NonEmptyArray<OverheadInput>): ResultDraft {
  const drafts = inputs.map(harnessOverheadResult) as unknown as NonEmptyArray<ResultDraft>;
  return combineReplicates(drafts, { totals: ['errors'], round: roundFigure });
}

/** The harness must reach at least this share of a bare amqplib script's publish rate. */
export const HARNESS_OVERHEAD_TARGET_PERCENT = 90;

/** A throughput figure as a metric, rounded as every throughput figure is (`roundFigure`: 4 significant digits). */
export const throughputMetric = (value: number | null, unit: string, direction: Metric['direction']): Metric => ({
  value: value === null ? null : roundFigure(value),
  unit,
  direction,
});
const metric = throughputMetric;

const LATENCY_NOTES = {
  plain:
    "publish latency (plain mode): the publish() call, including the wait for the channel's 'drain' when it returned false (backpressure); it does not include the broker taking the message",
  confirm:
    "publish latency (confirm mode): from publish() to the broker's confirm; each logical publisher waits for its confirm before its next publish",
} as const;

const ROUND_NOTES = {
  plain:
    "round time: from the first publish of any worker to the last worker's flush (one synchronous round trip per channel after its last publish, so the broker has taken every message)",
  confirm: 'round time: from the first publish of any worker to the last confirm',
} as const;

/** Total errors: failed publishes, nacks and failed flushes of every round (warm-up included), plus one per worker that gave up. */
export function countErrors(outcome: PublishThroughputOutcome): number {
  return outcome.rounds.reduce((sum, round) => sum + round.errors, 0) + outcome.report.workers.filter((worker) => worker.fatal).length;
}

/**
 * Messages that did not reach the queue (expected minus received, summed over every round); of a
 * round cut at its bound, only the published ones were expected (the rest were never sent).
 */
export function countMissing(outcome: PublishThroughputOutcome): number {
  return outcome.rounds.reduce((sum, round) => sum + Math.max(0, (round.cut ? round.published : round.expected) - round.received), 0);
}

/**
 * The `publish_throughput` raw result of one configuration. Its rates come from the measured
 * rounds in which every publish settled: a round whose publisher stopped on a publish never
 * settled lasted as long as the publish bound, not as the client took (and is the last one, see
 * measure.ts); with no such round, the rates are null and the result says why. A round cut at the
 * round bound is no complete round either: its figure is `incomplete_round_msgs_per_sec` (no
 * direction: never judged as a complete round's rate), with the round in `details.cut_round`.
 * @throws RangeError when there is no measured round, no publish left unsettled and no cut round either.
 */
export function publishThroughputResult(outcome: PublishThroughputOutcome): ResultDraft {
  const { workload } = outcome;
  const measured = measuredRounds(outcome);
  const settled = measured.filter((round) => round.unsettled === 0 && !round.cut);
  const unsettled = unsettledPublishes(outcome);
  const cut = cutRound(outcome);
  if (measured.length === 0 && unsettled.length === 0 && !cut) throw new RangeError('publish_throughput needs at least one measured round');
  const msgRates = settled.map((round) => round.msgsPerSec);
  const mbRates = settled.map((round) => round.mbPerSec);
  const rates = isNonEmpty(msgRates) ? summarizeRates(msgRates) : undefined;
  const mbMedian = isNonEmpty(mbRates) ? summarizeRates(mbRates).median : null;
  const latency = summarizeMs(outcome.report.histogram);
  const messagesTotal = measured.reduce((sum, round) => sum + round.published, 0);
  return {
    name: 'publish_throughput',
    category: 'throughput',
    parameters: {
      threads: workload.threads,
      messages_per_thread: workload.messagesPerThread,
      message_size_bytes: workload.messageSizeBytes,
      publish_mode: workload.mode,
      rounds: workload.rounds,
      worker_threads: workload.workerThreads,
    },
    metrics: {
      throughput_msgs_per_sec: metric(rates?.median ?? null, 'msg/s', 'higher'),
      throughput_mb_per_sec: metric(mbMedian, 'MB/s', 'higher'),
      publish_latency_p50_ms: metric(latency.p50, 'ms', 'lower'),
      publish_latency_p95_ms: metric(latency.p95, 'ms', 'lower'),
      publish_latency_p99_ms: metric(latency.p99, 'ms', 'lower'),
      publish_latency_max_ms: metric(latency.max, 'ms', 'lower'),
      errors: metric(countErrors(outcome), 'count', 'lower'),
      messages_total: metric(messagesTotal, 'count', 'none'),
      ...(cut ? { incomplete_round_msgs_per_sec: metric(cut.msgsPerSec, 'msg/s', 'none') } : {}),
    },
    samples: {
      throughput_msgs_per_sec: msgRates.map(roundFigure),
      throughput_mb_per_sec: mbRates.map(roundFigure),
    },
    histograms: { publish_latency: encodeHistogram(outcome.report.histogram) },
    notes: [...publishNotes(outcome, settled.length, unsettled.length > 0), ...(cut ? [cutRoundNote(outcome, cut, settled.length)] : [])],
    details: {
      rounds: outcome.rounds.map((round) => ({
        round: round.round,
        warmup: round.warmup,
        duration_ms: roundFigure(round.durationMs),
        msgs_per_sec: roundFigure(round.msgsPerSec),
        published: round.published,
        errors: round.errors,
        unsettled: round.unsettled,
        cut: round.cut,
        expected: round.expected,
        received: round.received,
      })),
      rate_spread_percent: rates === undefined ? null : roundFigure(rates.spreadPercent),
      publish_bound_ms: workload.publishBoundMs,
      round_bound_ms: workload.roundBoundMs,
      cut_round: cut ? cutRoundDetails(cut) : null,
      unsettled_publishes: unsettled.map((each) => ({ ...each })),
      latency_samples: latency.count,
      latency_mean_ms: latency.mean,
      messages_missing: countMissing(outcome),
      assignments: workload.assignments.map((assignment) => ({
        worker: assignment.worker,
        first_publisher: assignment.firstPublisher,
        publishers: assignment.publishers,
      })),
      worker_failures: outcome.report.workers
        .filter((worker) => worker.fatal)
        .map((worker) => ({ worker: worker.worker, error: worker.fatal })),
      error_samples: outcome.report.errorSamples,
    },
  };
}

/** What a reader needs to read the result's figures: how the rate was formed, what the latency and the round mean. */
function publishNotes(outcome: PublishThroughputOutcome, settledRounds: number, anyUnsettled: boolean): string[] {
  const { workload } = outcome;
  const warmupRounds = outcome.rounds.length - measuredRounds(outcome).length;
  return [
    ...(settledRounds > 0
      ? [
          `throughput: the median of ${settledRounds} measured rounds (after ${warmupRounds} warm-up round(s), discarded: more on threads new to the mode); every round's rate is in samples`,
        ]
      : []),
    ...(anyUnsettled ? [unsettledNote(outcome, settledRounds)] : []),
    ROUND_NOTES[workload.mode],
    LATENCY_NOTES[workload.mode],
    `${workload.threads} logical publishers (one channel each) over ${workload.workerThreads} worker thread(s), one connection per worker, straight to the broker (no proxy), default exchange into a dedicated queue purged after every round`,
    'MB/s counts message bodies only, 1 MB = 10^6 bytes',
    'messages_total: messages published in the measured rounds; errors: every round, warm-up included',
  ];
}

/** Why the rates stop where they do: the round in which publishes never settled, and what is left to measure by. */
function unsettledNote(outcome: PublishThroughputOutcome, settledRounds: number): string {
  const last = outcome.rounds.at(-1);
  const publishes = unsettledPublishes(outcome).length;
  return `${publishes} publish(es) never settled within the publish bound of ${outcome.workload.publishBoundMs} ms in round ${last?.round ?? '?'}${last?.warmup ? ' (warm-up)' : ''}: each stopped its publisher, and the measurement stopped after that round; ${settledRounds > 0 ? `the rates are those of the ${settledRounds} measured round(s) before it` : 'no measured round had every publish settle, so there is no rate'}`;
}

/** The cut round as details: what was published and confirmed within the bound, over how long, and the rate it implies. */
function cutRoundDetails(cut: RoundOutcome): Record<string, number | boolean> {
  return {
    round: cut.round,
    warmup: cut.warmup,
    published: cut.published,
    expected: cut.expected,
    received: cut.received,
    duration_ms: roundFigure(cut.durationMs),
    msgs_per_sec: roundFigure(cut.msgsPerSec),
  };
}

/** What the incomplete round's figure is, and what it is not. */
function cutRoundNote(outcome: PublishThroughputOutcome, cut: RoundOutcome, settledRounds: number): string {
  const { roundBoundMs, mode } = outcome.workload;
  const what = mode === 'confirm' ? 'published and confirmed' : 'published';
  return (
    `incomplete_round_msgs_per_sec: round ${cut.round}${cut.warmup ? ' (warm-up)' : ''} did not finish within the round bound of ${roundBoundMs} ms and was cut there: ` +
    `${cut.published} of ${cut.expected} messages ${what} in ${Math.round(cut.durationMs)} ms, ${roundFigure(cut.msgsPerSec)} msg/s over the part of the round run. ` +
    `An incomplete round: the whole round would have taken longer than the bound, so this is no complete round's rate and is never judged as one; ` +
    `the measurement stopped there (${settledRounds > 0 ? `throughput is the median of the ${settledRounds} complete measured round(s) before it` : 'no complete measured round, so throughput has no value'})`
  );
}

export interface OverheadPair {
  /** Which side ran first in this pair (they alternate). */
  readonly first: 'harness' | 'bare';
  readonly harnessMsgsPerSec: number;
  readonly bareMsgsPerSec: number;
}

export interface OverheadInput {
  readonly messages: number;
  readonly messageSizeBytes: number;
  readonly pairs: readonly OverheadPair[];
  readonly errors: number;
}

/**
 * The `harness_overhead` raw result: the median over the pairs of (harness rate / bare rate x
 * 100). Pairs run back to back, so a pair shares the machine's load of the moment and the
 * median of paired ratios is steadier than a ratio of medians on a shared machine. The target
 * (at least 90%) is recorded, met or missed.
 * @throws RangeError when there is no pair.
 */
export function harnessOverheadResult(input: OverheadInput): ResultDraft {
  const harness = input.pairs.map((pair) => pair.harnessMsgsPerSec);
  const bare = input.pairs.map((pair) => pair.bareMsgsPerSec);
  const ratios = input.pairs.map((pair) => overheadRatioPercent(pair.harnessMsgsPerSec, pair.bareMsgsPerSec));
  if (!isNonEmpty(harness) || !isNonEmpty(bare) || !isNonEmpty(ratios))
    throw new RangeError('harness_overhead needs at least one pair of runs');
  const ratio = summarizeRates(ratios).median;
  return {
    name: 'harness_overhead',
    category: 'throughput',
    parameters: {
      messages: input.messages,
      message_size_bytes: input.messageSizeBytes,
      publish_mode: 'plain',
      threads: 1,
      worker_threads: 1,
      rounds: input.pairs.length,
    },
    metrics: {
      ratio_percent: metric(ratio, '%', 'higher'),
      harness_msgs_per_sec: metric(summarizeRates(harness).median, 'msg/s', 'higher'),
      bare_msgs_per_sec: metric(summarizeRates(bare).median, 'msg/s', 'none'),
      errors: metric(input.errors, 'count', 'lower'),
    },
    samples: {
      ratio_percent: ratios.map(roundFigure),
      harness_msgs_per_sec: harness.map(roundFigure),
      bare_msgs_per_sec: bare.map(roundFigure),
    },
    // Judged on the pairs' interval: each pair is one independent repetition of the check.
    targets: [judgedTarget({ metric: 'ratio_percent', comparator: '>', threshold: HARNESS_OVERHEAD_TARGET_PERCENT, unit: '%' }, ratios)],
    notes: [
      `ratio_percent: the median over ${input.pairs.length} back-to-back pairs of harness rate / bare rate x 100 (the side that runs first alternates); target: at least ${HARNESS_OVERHEAD_TARGET_PERCENT}% (recorded, not asserted)`,
      "same workload on both sides: one long-lived connection and channel, warmed up before the first timed run, plain publishes of the same size to the same queue, backpressure honoured with 'drain', timed from the first publish to a synchronous round trip after the last",
      'harness: a piscina worker thread recording every publish in an HDR histogram; bare: scripts/bare-publish.js --serve in its own Node.js process, one timed run per request',
      "bare: the client's own library (scripts/bare/<library>.js) with the library options of the configuration measured (its adapter's bareOptions: the same heartbeat, TCP_NODELAY and timeouts as the harness side, see `client.settings`), so the ratio is the harness's cost, not a difference of settings",
    ],
    details: {
      pairs: input.pairs.map((pair) => ({
        first: pair.first,
        harness_msgs_per_sec: roundFigure(pair.harnessMsgsPerSec),
        bare_msgs_per_sec: roundFigure(pair.bareMsgsPerSec),
      })),
    },
  };
}
