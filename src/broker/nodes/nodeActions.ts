/**
 * The fault model's `NodeActions` for a node of the harness's own (a benchmark cluster node, or
 * the node started for alarms and pauses): kill, pause (SIGSTOP) and resume (SIGCONT), stop and
 * restart, RabbitMQ's quorum check — each bounded, and only ever on a VM that carries this
 * harness's node marker (processes.ts), so the shared broker on 5672 can never be hit.
 */
import { TimeoutError } from '../../errors';
import type { NodeActions } from '../../faults/model';
import type { ProxyTarget } from '../../faults/toxics';
import { nowNs, type Bracket } from '../../measure/clock';
import type { ClusterLayout, ClusterNode } from './layout';
import { killNode, restartNode, stopNode } from './nodeControl';
import { sleep } from '../../measure/clock';
import { runningPid } from './processes';
import { runCli } from './rabbitmqctl';

/** Bound on a node's boot after a kill or stop. */
const BOOT_BOUND_MS = 120_000;

export function nodeActions(layout: ClusterLayout, node: ClusterNode, proxy?: ProxyTarget, bootBoundMs = BOOT_BOUND_MS): NodeActions {
  const signal = (name: 'SIGSTOP' | 'SIGCONT'): Bracket => {
    const pid = runningPid(node);
    if (pid === undefined) throw new TimeoutError(`${node.name} is not running: cannot send ${name}`);
    const startedNs = nowNs();
    process.kill(pid, name);
    return { startedNs, completedNs: nowNs() };
  };
  return {
    name: node.name,
    ...(proxy ? { proxy } : {}),
    kill: async () => (await killNode(node)).bracket,
    pause: async () => signal('SIGSTOP'),
    resume: async () => signal('SIGCONT'),
    stop: async () => {
      const stopped = await stopNode(layout, node);
      return { bracket: stopped.bracket, ...(stopped.problem ? { problem: stopped.problem } : {}) };
    },
    restart: () => restartNode(layout, node, bootBoundMs),
    running: () => runningPid(node) !== undefined,
    async untilNotQuorumCritical(boundMs) {
      const deadline = Date.now() + boundMs;
      let problem: string | undefined;
      while (Date.now() < deadline) {
        try {
          await runCli(layout, node, 'rabbitmq-queues', ['check_if_node_is_quorum_critical'], 30_000);
          return undefined;
        } catch (error) {
          problem = (error as Error).message;
        }
        await sleep(1000);
      }
      return problem;
    },
  };
}
