/**
 * Raw-result metrics from workload figures (pure). Names carry their unit; rates are `higher`,
 * latencies and losses `lower`, counts that only describe `none`.
 */
import { encodeHistogram, type LatencySummaryMs } from '../measure/histogram';
import { round1, round3 } from '../measure/round';
import { countMetric, msMetric, percentMetric, rateMetric } from '../results/metricValues';
import type { EncodedHistogram, Metric } from '../results/rawResult';
import { lossPercent, type DeliveryAccount } from '../suite-kit/accounting';
import type { AggregateFigures, RoundFigures, WorkloadFigures } from './summary';
import type { PublishOutcomes } from './producerThread';
import type { WorkloadOutcome } from './workload';

/** How the figures of every workload result are measured, for the raw result's notes. */
export const WORKLOAD_NOTES: readonly string[] = [
  'rates: produce = messages / (first producer start -> last producer done, confirmed or acknowledged by a broker round trip); consume = distinct messages delivered / (first producer start -> last new delivery); over several rounds: messages / summed spans',
  'e2e latency: consumer receive time minus the publish time in the message (process.hrtime.bigint, shared by all threads), first deliveries only; HDR histogram in µs merged over threads',
  'e2e_latency_from_schedule (paced rounds only): receive time minus the time the paced producer meant to publish, so a producer stalled by a fault is counted too (no coordinated omission)',
  'warm-up rounds are excluded from rates and latency, but included in the loss/duplicate accounting',
];

/** `<prefix>_p50_ms`, `_p95_ms`, `_p99_ms`, `_max_ms` and the sample count. */
export function latencyMetrics(prefix: string, latency: LatencySummaryMs): Record<string, Metric> {
  return {
    [`${prefix}_p50_ms`]: msMetric(latency.p50),
    [`${prefix}_p95_ms`]: msMetric(latency.p95),
    [`${prefix}_p99_ms`]: msMetric(latency.p99),
    [`${prefix}_max_ms`]: msMetric(latency.max),
    [`${prefix}_samples`]: countMetric(latency.count),
  };
}

/** Produce and consume rates, end-to-end latency (and from the schedule, when paced), over the measured rounds. */
export function throughputMetrics(figures: AggregateFigures): Record<string, Metric> {
  return {
    produce_throughput_msgs_per_sec: rateMetric(figures.produceRateMsgsPerSec),
    consume_throughput_msgs_per_sec: rateMetric(figures.consumeRateMsgsPerSec),
    ...latencyMetrics('e2e_latency', figures.latency),
    ...(figures.scheduleLatency.count > 0 ? latencyMetrics('e2e_latency_from_schedule', figures.scheduleLatency) : {}),
    messages_measured: countMetric(figures.measuredMessages),
  };
}

/** The encoded histograms of a set of rounds, for the raw result (recomputable later). */
export function latencyHistograms(figures: AggregateFigures, prefix = ''): Record<string, EncodedHistogram> {
  return {
    [`${prefix}e2e_latency`]: encodeHistogram(figures.histogram),
    ...(figures.scheduleLatency.count > 0 ? { [`${prefix}e2e_latency_from_schedule`]: encodeHistogram(figures.scheduleHistogram) } : {}),
  };
}

/** What was published, confirmed, delivered, duplicated and lost (whole run). */
export function accountMetrics(account: DeliveryAccount): Record<string, Metric> {
  return {
    messages_published: countMetric(account.published),
    messages_confirmed: countMetric(account.confirmed),
    messages_delivered: countMetric(account.deliveredUnique),
    deliveries: countMetric(account.deliveries),
    messages_lost: countMetric(account.lost, 'lower'),
    message_loss_percent: percentMetric(lossPercent(account)),
    duplicates: countMetric(account.duplicates, 'lower'),
    redeliveries: countMetric(account.redeliveries),
    republished: countMetric(account.republished),
    unexplained_duplicates: countMetric(account.unexplainedDuplicates, 'lower'),
  };
}

/**
 * The class of every publish copy of confirm-mode producers (summed over threads): confirmed,
 * nacked by the broker, rejected by the client, hung (pending when its thread ended). Empty
 * without confirms (a plain publish has no settlement to class).
 */
export function publishOutcomeMetrics(outcome: WorkloadOutcome): Record<string, Metric> {
  const reports = outcome.producerReports.filter((report) => report.outcomes !== undefined);
  if (!outcome.options.confirms || reports.length === 0) return {};
  const sum = (pick: (outcomes: PublishOutcomes) => number) => reports.reduce((total, report) => total + pick(report.outcomes!), 0);
  return {
    publishes_confirmed: countMetric(sum((outcomes) => outcomes.confirmed)),
    publishes_nacked: countMetric(sum((outcomes) => outcomes.nacked)),
    publishes_rejected_by_client: countMetric(sum((outcomes) => outcomes.rejected)),
    publishes_hung: countMetric(
      sum((outcomes) => outcomes.hung),
      'lower',
    ),
  };
}

/** Per-round samples (measured rounds only), for the spread of each figure. */
export function roundSamples(rounds: readonly RoundFigures[]): Record<string, number[]> {
  const measured = rounds.filter((round) => round.measured);
  const pick = (value: (round: RoundFigures) => number | null, digits: (n: number) => number) =>
    measured.flatMap((round) => (value(round) === null ? [] : [digits(value(round)!)]));
  return {
    produce_throughput_msgs_per_sec: pick((round) => round.produceRateMsgsPerSec, round1),
    consume_throughput_msgs_per_sec: pick((round) => round.consumeRateMsgsPerSec, round1),
    drain_ms: pick((round) => round.drainMs, round3),
    e2e_latency_p50_ms: pick((round) => round.latency.p50, round3),
    e2e_latency_p99_ms: pick((round) => round.latency.p99, round3),
  };
}

/** Per-round figures and the thread layout, for the raw result's details. */
export function workloadDetails(outcome: WorkloadOutcome, figures: WorkloadFigures): Record<string, unknown> {
  return {
    consumer_threads: outcome.plan.map((thread) => ({
      thread: thread.thread,
      consumers: thread.consumers,
      connections: thread.connections,
    })),
    producer_threads: outcome.options.producerThreads,
    rounds: figures.rounds.map((round) => ({
      label: round.label,
      measured: round.measured,
      messages: round.messages,
      delivered: round.account.deliveredUnique,
      produce_span_ms: round.produceSpanMs,
      produce_msgs_per_sec: round.produceRateMsgsPerSec,
      drain_ms: round.drainMs,
      drain_after_publish_ms: round.drainAfterPublishMs,
      consume_msgs_per_sec: round.consumeRateMsgsPerSec,
      e2e_latency_ms: round.latency,
    })),
    // The library's own words for the first publish it rejected, per producer thread that had one.
    first_publish_rejections: outcome.producerReports.flatMap((report) =>
      report.outcomes?.firstRejection ? [{ thread: report.threadIndex, error: report.outcomes.firstRejection }] : [],
    ),
    consumer_reconnects: outcome.consumerReconnects,
    producer_reconnects: outcome.producerReconnects,
    // How long, after the last round, connections still in their library's reconnection delay took to come back.
    end_recovery_wait_ms: outcome.endRecoveryWaitMs,
    connections_down_at_end: outcome.connectionsDownAtEnd,
    consumer_thread_startup_ms: outcome.consumerReports.map((report) => report.startupMs),
    queue: outcome.queue,
  };
}
