/**
 * Turns what a failover scenario recorded into its metrics (pure; no I/O).
 *
 * Every outage ("episode") of a thread is timed from the latest moment the fault hit a node
 * before the thread learned of it (the kill signal, the partition's API call, the stop command
 * of a rolling restart): detection is the client's fault event, failover the first message
 * consumed after it (over the new connection: the dead one delivers nothing more). A thread's
 * headline figures are those of its first outage. Loss and duplicates come from the ledger of
 * sequence numbers, with confirmed messages as the baseline (src/suite-kit/accounting.ts).
 */
import { accountDeliveries, type DeliveryAccount } from '../suite-kit/accounting';
import { elapsedMs } from '../measure/clock';
import { quantile, sortSamples } from '../measure/statistics';
import type { Metric, Target } from '../results/rawResult';
import { RECEIVED_KINDS } from '../client/faults';
import type { FaultHit } from '../faults/model';
import type { EpisodeRecord, ThreadEpisodes } from './failoverBoard';
import type { FailoverOutcome } from './scenario';

export interface FailoverMetrics {
  readonly metrics: Record<string, Metric>;
  readonly samples: Record<string, number[]>;
  readonly targets: Target[];
  readonly details: Record<string, unknown>;
  readonly account: DeliveryAccount;
}

export interface EpisodeFigures {
  /** When the client reported it, ms after the injection. */
  readonly detectedAtMs: number;
  readonly hitNode: string | null;
  readonly cause: string;
  readonly detectionMs: number | null;
  readonly reconnectMs: number | null;
  readonly failoverMs: number | null;
  /** The node the connection went to after the outage (proxy connection list); null when unknown. */
  readonly nodeAfter: string | null;
}

const round3 = (value: number): number => Math.round(value * 1000) / 1000;
const ms = (value: number | null | undefined, direction: Metric['direction'] = 'lower'): Metric => ({
  value: value === null || value === undefined ? null : round3(value),
  unit: 'ms',
  direction,
});
const count = (value: number | null, direction: Metric['direction'] = 'none'): Metric => ({ value, unit: 'count', direction });

/** The latest hit at or before `ns`; the first hit for a detection that precedes every hit (flagged by the caller). */
export function hitBefore(hits: readonly FaultHit[], ns: bigint): FaultHit | undefined {
  let chosen: FaultHit | undefined;
  for (const hit of hits) if (hit.atNs <= ns && (!chosen || hit.atNs > chosen.atNs)) chosen = hit;
  return chosen;
}

export function episodeFigures(
  episode: EpisodeRecord,
  hits: readonly FaultHit[],
  nodeByPort: ReadonlyMap<number, string>,
  injectedNs: bigint,
): EpisodeFigures {
  const hit = hitBefore(hits, episode.detectedNs);
  const since = (ns: bigint | null): number | null => (hit === undefined || ns === null ? null : elapsedMs(hit.atNs, ns));
  return {
    detectedAtMs: elapsedMs(injectedNs, episode.detectedNs),
    hitNode: hit?.target ?? null,
    cause: RECEIVED_KINDS[episode.cause] ?? 'none',
    detectionMs: since(episode.detectedNs),
    reconnectMs: since(episode.reconnectedNs),
    failoverMs: since(episode.firstMessageNs),
    nodeAfter: episode.portAfter === 0 ? null : (nodeByPort.get(episode.portAfter) ?? null),
  };
}

/** Episodes that began after the injection (earlier ones are not this fault's). */
function faultEpisodes(thread: ThreadEpisodes, injectedNs: bigint): EpisodeRecord[] {
  return thread.episodes.filter((episode) => episode.detectedNs >= injectedNs);
}

function stats(prefix: string, values: readonly number[]): Record<string, Metric> {
  const sorted = sortSamples(values);
  return {
    [`${prefix}_p50_ms`]: ms(sorted && quantile(sorted, 0.5)),
    [`${prefix}_max_ms`]: ms(sorted && quantile(sorted, 1)),
  };
}

export function computeFailoverMetrics(outcome: FailoverOutcome): FailoverMetrics {
  const threads = outcome.consumers.map((consumer) => {
    const episodes = faultEpisodes(consumer, outcome.injectedNs).map((episode) =>
      episodeFigures(episode, outcome.hits, outcome.nodeByPort, outcome.injectedNs),
    );
    return { consumer, episodes, first: episodes[0] };
  });
  const hit = threads.filter((thread) => thread.first !== undefined);
  const onTarget = outcome.target === null ? threads : threads.filter((thread) => thread.consumer.nodeAtFault === outcome.target);
  const failedOver = hit.filter((thread) => thread.episodes.every((episode) => episode.failoverMs !== null));
  // Failed over to another node: the connection after the outage goes to a node the fault had not hit.
  const toSurvivor = failedOver.filter((thread) => thread.first!.nodeAfter !== null && thread.first!.nodeAfter !== thread.first!.hitNode);
  const firstDetections = hit.flatMap((thread) => (thread.first!.detectionMs === null ? [] : [thread.first!.detectionMs]));
  const firstFailovers = hit.flatMap((thread) => (thread.first!.failoverMs === null ? [] : [thread.first!.failoverMs]));
  // The client's own part, whatever the fault's reference: from its fault event to consuming again.
  const afterDetection = hit.flatMap(({ first }) =>
    first!.failoverMs === null || first!.detectionMs === null ? [] : [first!.failoverMs - first!.detectionMs],
  );
  const allFailovers = hit.flatMap((thread) =>
    thread.episodes.flatMap((episode) => (episode.failoverMs === null ? [] : [episode.failoverMs])),
  );
  // Stalled: nothing consumed once the fault was undone, while traffic still flowed (a consumer
  // the broker cancelled, or one whose connection is up but delivers nothing).
  const stalled = threads.filter(
    (thread) => thread.consumer.lastMessageNs === null || thread.consumer.lastMessageNs < outcome.restore.completedNs,
  );
  const producerEpisodes = faultEpisodes(outcome.producer, outcome.injectedNs).map((episode) =>
    episodeFigures(episode, outcome.hits, outcome.nodeByPort, outcome.injectedNs),
  );
  const account = accountDeliveries(outcome.ledger, { to: outcome.sequences, baseline: 'confirmed' });
  const restart = outcome.steps.filter((step) => step.step === 'restart');
  const firstHitNs = outcome.hits[0]?.atNs;
  const lastStepNs = outcome.steps.reduce<bigint | undefined>(
    (latest, step) => (!latest || step.bracket.completedNs > latest ? step.bracket.completedNs : latest),
    undefined,
  );

  const metrics: Record<string, Metric> = {
    threads_total: count(threads.length),
    threads_on_failed_node: count(onTarget.length),
    threads_hit: count(hit.length),
    threads_failed_over: count(failedOver.length),
    threads_failed_over_to_survivor: count(toSurvivor.length),
    threads_stalled: count(stalled.length, 'lower'),
    ...stats('thread_detection', firstDetections),
    ...stats('thread_failover', firstFailovers),
    ...stats('thread_failover_after_detection', afterDetection),
    outages_total: count(hit.reduce((sum, thread) => sum + thread.episodes.length, 0)),
    producer_outages: count(producerEpisodes.length),
    producer_failover_ms: ms(producerEpisodes[0]?.failoverMs),
    messages_published: count(account.published),
    messages_confirmed: count(account.confirmed),
    messages_republished: count(account.republished),
    messages_lost: count(account.lost, 'lower'),
    messages_duplicated: count(account.duplicates, 'lower'),
    duplicates_unexplained: count(account.unexplainedDuplicates, 'lower'),
    redeliveries: count(account.redeliveries),
    messages_left_in_queue: count(outcome.readyLeft),
    node_restart_ms: ms(restart.length === 1 ? elapsedMs(restart[0]!.bracket.startedNs, restart[0]!.bracket.completedNs) : null, 'none'),
    fault_duration_ms: ms(firstHitNs !== undefined && lastStepNs !== undefined ? elapsedMs(firstHitNs, lastStepNs) : null, 'none'),
  };
  const targets: Target[] = [
    { metric: 'messages_lost', comparator: '<', threshold: 1, unit: 'count', met: account.lost < 1 },
    {
      metric: 'threads_failed_over',
      comparator: '>',
      threshold: Math.max(0, onTarget.length - 1),
      unit: 'count',
      met: failedOver.length >= onTarget.length && hit.length > 0,
    },
  ];
  return {
    metrics,
    samples: {
      thread_detection_ms: firstDetections,
      thread_failover_ms: firstFailovers,
      thread_failover_after_detection_ms: afterDetection,
      outage_failover_ms: allFailovers,
    },
    targets,
    account,
    details: {
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
