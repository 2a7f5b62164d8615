/**
 * The part of a workload one process runs (pure). A workload's producers and consumers are
 * numbered from 0; producer p publishes to queue p mod Q and sends messages p, p + P, p + 2P, ...
 * of the schedule; consumer c consumes queue c mod Q. One process runs them all; an agent of a
 * fleet runs some (src/fleet/split.ts decides which), so the agents together run exactly the
 * workload one process would, message for message.
 */
import { messagesOfProducer } from './traffic';
import type { LoadWorkload } from './workload';

export interface LoadShare {
  /** Global indexes of the producers this process runs, ascending. */
  readonly producers: readonly number[];
  /** Global indexes of the consumers this process runs, ascending. */
  readonly consumers: readonly number[];
}

/** Every producer and consumer: the share of a process that runs the workload alone. */
export function wholeShare(workload: Pick<LoadWorkload, 'producers' | 'consumers'>): LoadShare {
  return {
    producers: Array.from({ length: workload.producers }, (_, index) => index),
    consumers: Array.from({ length: workload.consumers }, (_, index) => index),
  };
}

/** Messages among the first `total` of the workload that the share's producers send. */
export function messagesOfShare(total: number, share: LoadShare, producerCount: number): number {
  return share.producers.reduce((sum, producer) => sum + messagesOfProducer(total, producer, producerCount), 0);
}

/** The queue (its index) a producer or consumer of global index `index` uses. */
export function queueIndexOf(index: number, queueCount: number): number {
  return index % queueCount;
}

/**
 * Every queue the share's producers publish to is consumed, and only by the share's own
 * consumers: then a confirmed message the share never consumed is lost, and every end-to-end
 * latency it records was timed by one process (one clock).
 */
export function accountsAlone(share: LoadShare, workload: Pick<LoadWorkload, 'consumers' | 'queues'>): boolean {
  const mine = new Set(share.consumers);
  return share.producers.every((producer) => {
    const queue = queueIndexOf(producer, workload.queues);
    const consumers = Array.from({ length: workload.consumers }, (_, index) => index).filter(
      (consumer) => queueIndexOf(consumer, workload.queues) === queue,
    );
    return consumers.length > 0 && consumers.every((consumer) => mine.has(consumer));
  });
}

/** Indexes of the queues the share's producers and consumers use, ascending. */
export function queueIndexesOf(share: LoadShare, queueCount: number): number[] {
  return [...new Set([...share.producers, ...share.consumers].map((index) => queueIndexOf(index, queueCount)))].sort((a, b) => a - b);
}

/** No producer or consumer outside the share uses any queue the share uses. */
export function ownsQueues(share: LoadShare, workload: Pick<LoadWorkload, 'producers' | 'consumers' | 'queues'>): boolean {
  const used = new Set(queueIndexesOf(share, workload.queues));
  const mine = (list: readonly number[]) => new Set(list);
  const [producers, consumers] = [mine(share.producers), mine(share.consumers)];
  const outside = (count: number, own: Set<number>) =>
    Array.from({ length: count }, (_, index) => index).some((index) => !own.has(index) && used.has(queueIndexOf(index, workload.queues)));
  return !outside(workload.producers, producers) && !outside(workload.consumers, consumers);
}
