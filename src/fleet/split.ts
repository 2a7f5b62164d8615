/**
 * How one workload is split over N agents (pure). Agent i runs the producers and consumers whose
 * global index is i mod N; producer p publishes to queue p mod Q (the workload's queue pattern)
 * and sends messages p, p + P, ... of the one schedule, so the agents together send exactly what
 * one process would — the rate of agent i is the workload's rate times its producers over P.
 * When N divides the number of queues, each agent's producers and consumers use queues no other
 * agent touches: it accounts for its messages alone and times its end-to-end latency on its own
 * clock, wherever it runs.
 */
import { ConfigError } from '../errors';
import { accountsAlone, ownsQueues, queueIndexesOf, type LoadShare } from '../load/share';
import type { LoadWorkload } from '../load/workload';

export interface AgentPlan {
  readonly index: number;
  readonly count: number;
  readonly share: LoadShare;
  /** Indexes of the queues its producers and consumers use, ascending. */
  readonly queues: readonly number[];
  /** Its share of the intended rate (msg/s), for a constant rate; null otherwise (steps, ramps and rate 0 are split by producer all the same). */
  readonly ratePerSecond: number | null;
  /** See `accountsAlone` (src/load/share.ts). */
  readonly accountsAlone: boolean;
  /** No other agent uses any of its queues (then, without a coordinator, it owns them). */
  readonly ownsQueues: boolean;
}

/** The agents' count a workload can take: every agent needs a producer or a consumer. */
export function maxAgents(workload: Pick<LoadWorkload, 'producers' | 'consumers'>): number {
  return Math.max(workload.producers, workload.consumers);
}

/**
 * The plan of each of `count` agents.
 * @throws ConfigError when an agent would run nothing (more agents than producers or consumers)
 */
export function splitWorkload(workload: LoadWorkload, count: number): AgentPlan[] {
  if (!Number.isInteger(count) || count < 1) throw new ConfigError('--agents', 'a whole number ≥ 1', String(count));
  if (count > maxAgents(workload))
    throw new ConfigError(
      '--agents',
      `at most ${maxAgents(workload)} for ${workload.producers} producer(s) and ${workload.consumers} consumer(s): agent ${maxAgents(workload)} would run nothing (give more with -x/-y)`,
      String(count),
    );
  return Array.from({ length: count }, (_, index) => agentPlan(workload, count, index));
}

/** The plan of agent `index` of `count` (no checks: `splitWorkload` makes them). */
export function agentPlan(workload: LoadWorkload, count: number, index: number): AgentPlan {
  const mine = (total: number) => Array.from({ length: total }, (_, each) => each).filter((each) => each % count === index);
  const share: LoadShare = { producers: mine(workload.producers), consumers: mine(workload.consumers) };
  const queues = queueIndexesOf(share, workload.queues);
  const ratePerSecond =
    workload.rate.kind === 'constant' && workload.producers > 0
      ? (workload.rate.perSecond * share.producers.length) / workload.producers
      : null;
  return {
    index,
    count,
    share,
    queues,
    ratePerSecond,
    accountsAlone: accountsAlone(share, workload),
    ownsQueues: ownsQueues(share, workload),
  };
}

/**
 * How many of `total` things (the herd's connections) agent `index` of `count` takes, spread the
 * same way as producers: those with index ≡ `index` mod `count`.
 * @example spreadCount(10, 3, 0) // 4 (0, 3, 6, 9)
 */
export function spreadCount(total: number, count: number, index: number): number {
  return total > index ? Math.ceil((total - index) / count) : 0;
}
