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
import { quantileOf } from '../measure/statistics';
import { countMetric, msMetric } from '../results/metricValues';
import type { Metric, Target } from '../results/rawResult';
import { RECEIVED_KINDS } from '../client/faults';
import type { FaultHit } from '../faults/model';
import type { EpisodeRecord, ThreadEpisodes } from './failoverBoard';
import { failoverDetails } from './metricsDetails';
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

const ms = msMetric;
const count = countMetric;

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
  return {
    [`${prefix}_p50_ms`]: ms(quantileOf(values, 0.5)),
    [`${prefix}_max_ms`]: ms(quantileOf(values, 1)),
  };
}

/** A consumer thread with the figures of the outages that began after the injection (`first`: its headline). */
export interface ThreadFigures {
  readonly consumer: FailoverOutcome['consumers'][number];
  readonly episodes: readonly EpisodeFigures[];
  readonly first: EpisodeFigures | undefined;
}

/** The threads the fault hit and what became of them. */
interface ThreadGroups {
  readonly onTarget: readonly ThreadFigures[];
  readonly hit: readonly (ThreadFigures & { readonly first: EpisodeFigures })[];
  readonly failedOver: readonly ThreadFigures[];
  readonly toSurvivor: readonly ThreadFigures[];
  readonly stalled: readonly ThreadFigures[];
}

export function computeFailoverMetrics(outcome: FailoverOutcome): FailoverMetrics {
  const threads = outcome.consumers.map((consumer): ThreadFigures => {
    const episodes = faultEpisodes(consumer, outcome.injectedNs).map((episode) =>
      episodeFigures(episode, outcome.hits, outcome.nodeByPort, outcome.injectedNs),
    );
    return { consumer, episodes, first: episodes[0] };
  });
  const groups = groupThreads(outcome, threads);
  const { hit, onTarget, failedOver } = groups;
  const firstDetections = hit.flatMap(({ first }) => (first.detectionMs === null ? [] : [first.detectionMs]));
  const firstFailovers = hit.flatMap(({ first }) => (first.failoverMs === null ? [] : [first.failoverMs]));
  // The client's own part, whatever the fault's reference: from its fault event to consuming again.
  const afterDetection = hit.flatMap(({ first }) =>
    first.failoverMs === null || first.detectionMs === null ? [] : [first.failoverMs - first.detectionMs],
  );
  const allFailovers = hit.flatMap((thread) =>
    thread.episodes.flatMap((episode) => (episode.failoverMs === null ? [] : [episode.failoverMs])),
  );
  const producerEpisodes = faultEpisodes(outcome.producer, outcome.injectedNs).map((episode) =>
    episodeFigures(episode, outcome.hits, outcome.nodeByPort, outcome.injectedNs),
  );
  const account = accountDeliveries(outcome.ledger, { to: outcome.sequences, baseline: 'confirmed' });
  const metrics: Record<string, Metric> = {
    ...threadCounts(threads.length, groups),
    ...stats('thread_detection', firstDetections),
    ...stats('thread_failover', firstFailovers),
    ...stats('thread_failover_after_detection', afterDetection),
    outages_total: count(hit.reduce((sum, thread) => sum + thread.episodes.length, 0)),
    producer_outages: count(producerEpisodes.length),
    producer_failover_ms: ms(producerEpisodes[0]?.failoverMs),
    ...accountCounts(account, outcome.readyLeft),
    ...faultTimes(outcome),
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
    details: failoverDetails(outcome, threads, producerEpisodes, account),
  };
}

function groupThreads(outcome: FailoverOutcome, threads: readonly ThreadFigures[]): ThreadGroups {
  const hit = threads.flatMap((thread) => (thread.first === undefined ? [] : [{ ...thread, first: thread.first }]));
  const onTarget = outcome.target === null ? threads : threads.filter((thread) => thread.consumer.nodeAtFault === outcome.target);
  const failedOver = hit.filter((thread) => thread.episodes.every((episode) => episode.failoverMs !== null));
  // Failed over to another node: the connection after the outage goes to a node the fault had not hit.
  const toSurvivor = failedOver.filter(({ first }) => first.nodeAfter !== null && first.nodeAfter !== first.hitNode);
  // Stalled: nothing consumed once the fault was undone, while traffic still flowed (a consumer
  // the broker cancelled, or one whose connection is up but delivers nothing).
  const stalled = threads.filter(
    (thread) => thread.consumer.lastMessageNs === null || thread.consumer.lastMessageNs < outcome.restore.completedNs,
  );
  return { onTarget, hit, failedOver, toSurvivor, stalled };
}

function threadCounts(total: number, groups: ThreadGroups): Record<string, Metric> {
  return {
    threads_total: count(total),
    threads_on_failed_node: count(groups.onTarget.length),
    threads_hit: count(groups.hit.length),
    threads_failed_over: count(groups.failedOver.length),
    threads_failed_over_to_survivor: count(groups.toSurvivor.length),
    threads_stalled: count(groups.stalled.length, 'lower'),
  };
}

function accountCounts(account: DeliveryAccount, readyLeft: number | null): Record<string, Metric> {
  return {
    messages_published: count(account.published),
    messages_confirmed: count(account.confirmed),
    messages_republished: count(account.republished),
    messages_lost: count(account.lost, 'lower'),
    messages_duplicated: count(account.duplicates, 'lower'),
    duplicates_unexplained: count(account.unexplainedDuplicates, 'lower'),
    redeliveries: count(account.redeliveries),
    messages_left_in_queue: count(readyLeft),
  };
}

/** How long a single node restart took, and the fault from its first hit to its last step. */
function faultTimes(outcome: FailoverOutcome): Record<string, Metric> {
  const restart = outcome.steps.filter((step) => step.step === 'restart');
  const firstHitNs = outcome.hits[0]?.atNs;
  const lastStepNs = outcome.steps.reduce<bigint | undefined>(
    (latest, step) => (!latest || step.bracket.completedNs > latest ? step.bracket.completedNs : latest),
    undefined,
  );
  return {
    node_restart_ms: ms(restart.length === 1 ? elapsedMs(restart[0]!.bracket.startedNs, restart[0]!.bracket.completedNs) : null, 'none'),
    fault_duration_ms: ms(firstHitNs !== undefined && lastStepNs !== undefined ? elapsedMs(firstHitNs, lastStepNs) : null, 'none'),
  };
}
