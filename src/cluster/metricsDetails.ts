/**
 * The details a failover result keeps beside its metrics (pure): the fault's hits and steps and
 * every thread's outages, times relative to the injection so outages lie beside the fault's steps.
 */
import { elapsedMs } from '../measure/clock';
import { round3 } from '../measure/round';
import type { DeliveryAccount } from '../suite-kit/accounting';
import type { EpisodeFigures, ThreadFigures } from './metrics';
import type { FailoverOutcome } from './scenario';

export function failoverDetails(
  outcome: FailoverOutcome,
  threads: readonly ThreadFigures[],
  producerEpisodes: readonly EpisodeFigures[],
  account: DeliveryAccount,
): Record<string, unknown> {
  return {
    queue_type: outcome.queueType,
    queue_holder: outcome.queueHolder,
    failed_node: outcome.target,
    // Times relative to the injection, so outages can be laid beside the fault's steps.
    hits: outcome.hits.map((entry) => ({
      node: entry.target,
      action: entry.action,
      at_ms: round3(elapsedMs(outcome.injectedNs, entry.atNs)),
      bracket_ms: round3(elapsedMs(entry.bracket.startedNs, entry.bracket.completedNs)),
    })),
    restored_at_ms: round3(elapsedMs(outcome.injectedNs, outcome.restore.completedNs)),
    steps: outcome.steps.map((step) => ({
      node: step.target,
      step: step.step,
      at_ms: round3(elapsedMs(outcome.injectedNs, step.bracket.startedNs)),
      took_ms: round3(elapsedMs(step.bracket.startedNs, step.bracket.completedNs)),
      ...(step.problem ? { problem: step.problem } : {}),
    })),
    rate_per_second: outcome.ratePerSecond,
    silence_deadline_ms: outcome.silenceDeadlineMs,
    lost_seqs: account.lostSeqs,
    unexplained_seqs: account.unexplainedSeqs,
    problems: outcome.problems,
    threads: threads.map(({ consumer, episodes }) => ({
      thread: consumer.threadIndex,
      home_node: consumer.homeNode,
      node_at_fault: consumer.nodeAtFault,
      messages: consumer.messages,
      messages_after_fault: consumer.messagesAfterInjection,
      last_message_at_ms: consumer.lastMessageNs === null ? null : round3(elapsedMs(outcome.injectedNs, consumer.lastMessageNs)),
      false_alarms: consumer.report.falseAlarms,
      outages: episodes.map(roundEpisode),
      ...(consumer.droppedEpisodes > 0 ? { outages_not_recorded: consumer.droppedEpisodes } : {}),
      ...(consumer.report.error ? { error: consumer.report.error } : {}),
    })),
    producer: {
      outages: producerEpisodes.map(roundEpisode),
      ...(outcome.producer.report ? { report: outcome.producer.report } : {}),
    },
  };
}

function roundEpisode(episode: EpisodeFigures): Record<string, unknown> {
  const value = (figure: number | null) => (figure === null ? null : round3(figure));
  return {
    detected_at_ms: value(episode.detectedAtMs),
    hit_node: episode.hitNode,
    cause: episode.cause,
    detection_ms: value(episode.detectionMs),
    reconnect_ms: value(episode.reconnectMs),
    failover_ms: value(episode.failoverMs),
    node_after: episode.nodeAfter,
  };
}
