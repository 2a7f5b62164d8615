/**
 * Figures of a workload run (pure: outcome in, figures out). Every time is a difference of two
 * `process.hrtime.bigint()` readings, taken in whichever threads saw the event.
 *
 * Per round:
 * - produce span: the first producer starting the round -> the last producer done (with
 *   confirms: its last confirm; without: the broker answered a check queued behind its last
 *   message). Produce rate = messages / produce span.
 * - drain time (consume span): the first producer starting -> the last new message delivered.
 *   Consume rate = messages delivered / drain time: the end-to-end rate, pipeline latency
 *   included. (It can exceed the produce rate slightly: the produce span ends with a broker
 *   round trip, which may come back after the last delivery.)
 * - end-to-end latency: receive time minus the publish time in the message, first deliveries
 *   only (a duplicate's age says nothing about the pipeline), merged over threads. In paced
 *   rounds also from the scheduled publish time, which counts the producer's own stalls.
 */
import { elapsedMs } from '../measure/clock';
import { mergeHistograms, summarizeMs, type LatencyHistogram, type LatencySummaryMs } from '../measure/histogram';
import { quantile, sortSamples } from '../measure/statistics';
import { accountDeliveries, type DeliveryAccount, type LossBaseline } from '../suite-kit/accounting';
import type { WorkloadOutcome } from './workload';

export interface RoundFigures {
  readonly index: number;
  readonly label: string;
  readonly measured: boolean;
  readonly messages: number;
  readonly drained: boolean;
  readonly account: DeliveryAccount;
  readonly produceSpanMs: number | null;
  readonly produceRateMsgsPerSec: number | null;
  readonly drainMs: number | null;
  readonly consumeRateMsgsPerSec: number | null;
  /** Last producer done -> last delivery; negative when the last confirm came after the last delivery. */
  readonly drainAfterPublishMs: number | null;
  readonly latency: LatencySummaryMs;
  readonly histogram: LatencyHistogram;
  /** Paced rounds: latency from the scheduled publish time (empty otherwise). */
  readonly scheduleLatency: LatencySummaryMs;
  readonly scheduleHistogram: LatencyHistogram;
}

export interface WorkloadFigures {
  readonly rounds: readonly RoundFigures[];
  /** Over the measured rounds: messages / summed spans (a weighted mean of the round rates). */
  readonly produceRateMsgsPerSec: number | null;
  readonly consumeRateMsgsPerSec: number | null;
  readonly measuredMessages: number;
  readonly latency: LatencySummaryMs;
  readonly histogram: LatencyHistogram;
  readonly scheduleLatency: LatencySummaryMs;
  readonly scheduleHistogram: LatencyHistogram;
  /** The whole run (warm-up included): loss and duplicates. */
  readonly account: DeliveryAccount;
}

const minOf = (values: bigint[]): bigint | null => (values.length === 0 ? null : values.reduce((a, b) => (b < a ? b : a)));
const maxOf = (values: bigint[]): bigint | null => (values.length === 0 ? null : values.reduce((a, b) => (b > a ? b : a)));
const rate = (messages: number, spanMs: number | null): number | null =>
  spanMs === null || spanMs <= 0 ? null : (messages / spanMs) * 1000;

export function workloadFigures(outcome: WorkloadOutcome): WorkloadFigures {
  const baseline: LossBaseline = outcome.options.confirms ? 'confirmed' : 'published';
  const rounds = outcome.rounds.map(({ round, drained }): RoundFigures => {
    const producerRounds = outcome.producerReports.flatMap((report) => report.rounds.filter((stats) => stats.round === round.index));
    const consumerRounds = outcome.consumerReports.map((report) => report.rounds[round.index]).filter((stats) => stats !== undefined);
    const firstStart = minOf(producerRounds.map((stats) => stats.startNs));
    const lastEnd = maxOf(producerRounds.map((stats) => stats.endNs));
    const lastDelivery = maxOf(consumerRounds.flatMap((stats) => (stats.lastNs === null ? [] : [stats.lastNs])));
    const account = accountDeliveries(outcome.ledger, { from: round.firstSeq, to: round.firstSeq + round.messages, baseline });
    const produceSpanMs = firstStart !== null && lastEnd !== null ? elapsedMs(firstStart, lastEnd) : null;
    const drainMs = firstStart !== null && lastDelivery !== null ? elapsedMs(firstStart, lastDelivery) : null;
    const histogram = mergeHistograms(consumerRounds.flatMap((stats) => (stats.latency ? [stats.latency] : [])));
    const scheduleHistogram = mergeHistograms(consumerRounds.flatMap((stats) => (stats.scheduleLatency ? [stats.scheduleLatency] : [])));
    return {
      index: round.index,
      label: round.label,
      measured: round.measured,
      messages: round.messages,
      drained,
      account,
      produceSpanMs,
      produceRateMsgsPerSec: rate(round.messages, produceSpanMs),
      drainMs,
      consumeRateMsgsPerSec: rate(account.deliveredUnique, drainMs),
      drainAfterPublishMs: lastEnd !== null && lastDelivery !== null ? elapsedMs(lastEnd, lastDelivery) : null,
      latency: summarizeMs(histogram),
      histogram,
      scheduleLatency: summarizeMs(scheduleHistogram),
      scheduleHistogram,
    };
  });
  return { rounds, ...aggregateRounds(rounds.filter((round) => round.measured)), account: accountDeliveries(outcome.ledger, { baseline }) };
}

export type AggregateFigures = Omit<WorkloadFigures, 'rounds' | 'account'>;

/** Rates and latency over a set of rounds: messages / summed spans (a weighted mean of the round rates), histograms merged. */
export function aggregateRounds(rounds: readonly RoundFigures[]): AggregateFigures {
  const sum = (pick: (round: RoundFigures) => number | null): number | null =>
    rounds.length === 0 || rounds.some((round) => pick(round) === null) ? null : rounds.reduce((total, round) => total + pick(round)!, 0);
  const messages = rounds.reduce((total, round) => total + round.messages, 0);
  const delivered = rounds.reduce((total, round) => total + round.account.deliveredUnique, 0);
  const histogram = mergeHistograms(rounds.map((round) => round.histogram));
  const scheduleHistogram = mergeHistograms(rounds.map((round) => round.scheduleHistogram));
  return {
    produceRateMsgsPerSec: rate(
      messages,
      sum((round) => round.produceSpanMs),
    ),
    consumeRateMsgsPerSec: rate(
      delivered,
      sum((round) => round.drainMs),
    ),
    measuredMessages: messages,
    latency: summarizeMs(histogram),
    histogram,
    scheduleLatency: summarizeMs(scheduleHistogram),
    scheduleHistogram,
  };
}

/** The rounds labelled `label`, aggregated (a phase of a workload: `baseline`, `latency`). */
export function phaseFigures(rounds: readonly RoundFigures[], label: string): AggregateFigures {
  return aggregateRounds(rounds.filter((round) => round.label === label));
}

/** The drain times of the measured rounds (first producer starting -> last message delivered), with their median and maximum. */
export function drainTimes(rounds: readonly RoundFigures[]): { samples: number[]; medianMs: number | null; maxMs: number | null } {
  const samples = rounds.filter((round) => round.measured).flatMap((round) => (round.drainMs === null ? [] : [round.drainMs]));
  const sorted = sortSamples(samples);
  return { samples, medianMs: sorted ? quantile(sorted, 0.5) : null, maxMs: sorted ? quantile(sorted, 1) : null };
}
