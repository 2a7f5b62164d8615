/**
 * The faults of the failover scenarios, each with the same small interface: `run()` does the
 * damage and records when it hit which node, `restore()` undoes it (bounded, safe to call
 * twice, never throws: it returns what went wrong). A scenario calls `restore()` in its
 * `finally`, so a killed node is always brought back and a partition always healed.
 *
 * - `node_killed`: kill -9 of the node's Erlang VM. Its clients' TCP peer (the fault proxy's
 *   upstream link) vanishes and the proxy closes their side. Restored by starting the node.
 * - `node_partitioned`: the node's proxy entry drops every byte both ways (Toxiproxy `timeout`
 *   with timeout 0); the node itself stays in the cluster. Only a client deadline notices.
 * - `rolling_restart`: each node in turn waits until no quorum queue depends on it
 *   (`rabbitmq-queues check_if_node_is_quorum_critical`), stops gracefully (clients get an AMQP
 *   connection.close, 320 CONNECTION_FORCED) and is started again before the next one.
 */
import { describeError } from '../errors';
import { toxicTimeout, type ActiveToxic } from '../faults';
import { nowNs, type Bracket } from '../measure/clock';
import type { ClusterLayout, ClusterNode } from './layout';
import { killNode, restartNode, stopNode } from './nodeControl';
import type { NodeProxy } from './nodeProxies';
import { pause, runningPid } from './processes';
import { runCli } from './rabbitmqctl';

export const CLUSTER_FAULTS = ['node_killed', 'node_partitioned', 'rolling_restart'] as const;
export type ClusterFaultKind = (typeof CLUSTER_FAULTS)[number];

/** One moment the fault hit a node: detections are timed from the latest hit before them. */
export interface FaultHit {
  readonly node: string;
  readonly action: 'kill' | 'partition' | 'stop';
  /** When the action started (kill: the signal; partition: the toxic API call; stop: the stop command). */
  readonly atNs: bigint;
  readonly bracket: Bracket;
}

/** What the fault did besides hitting: restarts, and how long each took. */
export interface FaultStep {
  readonly node: string;
  readonly step: 'restart' | 'heal' | 'stop' | 'quorum_check';
  readonly bracket: Bracket;
  readonly problem?: string;
}

export interface ClusterFault {
  readonly kind: ClusterFaultKind;
  /** The node hit (kill, partition); null for a rolling restart (every node). */
  readonly target: ClusterNode | null;
  readonly hits: readonly FaultHit[];
  readonly steps: readonly FaultStep[];
  run(): Promise<void>;
  /** Undoes whatever is still undone; returns the problems (empty: all back). */
  restore(): Promise<string[]>;
}

export interface FaultContext {
  readonly layout: ClusterLayout;
  readonly proxies: readonly NodeProxy[];
  /** Bound on a node's boot after a kill or stop. @default 120000 */
  readonly bootBoundMs?: number;
  readonly log?: (line: string) => void;
}

export function clusterFault(kind: ClusterFaultKind, target: ClusterNode, context: FaultContext): ClusterFault {
  switch (kind) {
    case 'node_killed':
      return killFault(target, context);
    case 'node_partitioned':
      return partitionFault(target, context);
    case 'rolling_restart':
      return rollingRestart(context);
  }
}

function killFault(target: ClusterNode, context: FaultContext): ClusterFault {
  const hits: FaultHit[] = [];
  const steps: FaultStep[] = [];
  let killed = false;
  return {
    kind: 'node_killed',
    target,
    hits,
    steps,
    async run() {
      const { bracket } = await killNode(target);
      killed = true;
      hits.push({ node: target.name, action: 'kill', atNs: bracket.startedNs, bracket });
      context.log?.(`killed ${target.name} (kill -9)`);
    },
    async restore() {
      if (!killed && runningPid(target) !== undefined) return [];
      killed = false;
      return restartStep(context, target, steps);
    },
  };
}

function partitionFault(target: ClusterNode, context: FaultContext): ClusterFault {
  const hits: FaultHit[] = [];
  const steps: FaultStep[] = [];
  const proxy = context.proxies.find((candidate) => candidate.node.name === target.name);
  let toxic: ActiveToxic | undefined;
  return {
    kind: 'node_partitioned',
    target,
    hits,
    steps,
    async run() {
      if (!proxy) throw new Error(`no fault-proxy entry for ${target.name}`);
      // timeout 0: data is dropped both ways and the connection is never closed by the proxy.
      toxic = await toxicTimeout(proxy.target, 0);
      hits.push({ node: target.name, action: 'partition', atNs: toxic.injected.startedNs, bracket: toxic.injected });
      context.log?.(`partitioned ${target.name} from its clients (proxy entry ${proxy.target.name})`);
    },
    async restore() {
      if (!toxic) return [];
      const active = toxic;
      toxic = undefined;
      try {
        steps.push({ node: target.name, step: 'heal', bracket: await active.remove() });
        return [];
      } catch (error) {
        return [`partition of ${target.name} not removed: ${describeError(error)}`];
      }
    },
  };
}

function rollingRestart(context: FaultContext): ClusterFault {
  const hits: FaultHit[] = [];
  const steps: FaultStep[] = [];
  return {
    kind: 'rolling_restart',
    target: null,
    hits,
    steps,
    async run() {
      for (const node of context.layout.nodes) {
        const checkStartedNs = nowNs();
        const problem = await waitUntilNotQuorumCritical(context.layout, node, 60_000);
        steps.push({
          node: node.name,
          step: 'quorum_check',
          bracket: { startedNs: checkStartedNs, completedNs: nowNs() },
          ...(problem ? { problem } : {}),
        });
        const stopped = await stopNode(context.layout, node);
        hits.push({ node: node.name, action: 'stop', atNs: stopped.bracket.startedNs, bracket: stopped.bracket });
        steps.push({ node: node.name, step: 'stop', bracket: stopped.bracket, ...(stopped.problem ? { problem: stopped.problem } : {}) });
        context.log?.(`${node.name} ${stopped.how}; starting it again`);
        const problems = await restartStep(context, node, steps);
        if (problems.length > 0) throw new Error(problems.join('; '));
      }
    },
    async restore() {
      const problems: string[] = [];
      for (const node of context.layout.nodes) {
        if (runningPid(node) === undefined) problems.push(...(await restartStep(context, node, steps)));
      }
      return problems;
    },
  };
}

async function restartStep(context: FaultContext, node: ClusterNode, steps: FaultStep[]): Promise<string[]> {
  const startedNs = nowNs();
  try {
    const bracket = await restartNode(context.layout, node, context.bootBoundMs ?? 120_000);
    steps.push({ node: node.name, step: 'restart', bracket });
    context.log?.(`${node.name} running again`);
    return [];
  } catch (error) {
    const problem = `${node.name} did not come back: ${describeError(error)}`;
    steps.push({ node: node.name, step: 'restart', bracket: { startedNs, completedNs: nowNs() }, problem });
    return [problem];
  }
}

/** Polls RabbitMQ's own pre-restart check until it passes; returns the last problem if it never did. */
async function waitUntilNotQuorumCritical(layout: ClusterLayout, node: ClusterNode, boundMs: number): Promise<string | undefined> {
  const deadline = Date.now() + boundMs;
  let problem: string | undefined;
  while (Date.now() < deadline) {
    try {
      await runCli(layout, node, 'rabbitmq-queues', ['check_if_node_is_quorum_critical'], 30_000);
      return undefined;
    } catch (error) {
      problem = describeError(error);
    }
    await pause(1000);
  }
  return problem;
}
