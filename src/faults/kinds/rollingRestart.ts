/**
 * `rolling_restart`: each node in turn waits until no quorum queue depends on it (RabbitMQ's own
 * `check_if_node_is_quorum_critical`), stops gracefully (its clients get connection.close 320) and
 * is started again before the next one. Undone by starting any node still down.
 */
import { nowNs } from '../../measure/clock';
import type { FaultDefinition } from '../model';
import { isFrame, noArgument, required } from './arguments';
import { restart } from './nodeKill';
import { nodeActionFault } from './nodeAction';

export const rollingRestart: FaultDefinition<Record<string, never>> = {
  kind: 'rolling_restart',
  label: 'Rolling restart',
  layer: 'node',
  broker: 'cluster',
  description: 'every cluster node in turn stopped gracefully and started again',
  argument: null,
  defaults: {},
  parse: (argument) => noArgument('rolling_restart', argument, {}),
  acted: (event) => isFrame(event, 'connection.close'),
  actedWords: 'first connection.close from a stopping node',
  expected: null,
  actsOnData: false,
  create(context, options) {
    const nodes = required(context.nodes, this.kind, 'the cluster nodes');
    return nodeActionFault(this, options, {
      target: { type: 'cluster', nodes: nodes.map((node) => node.name) },
      async act(hit, step) {
        for (const node of nodes) {
          const checkStartedNs = nowNs();
          const problem = await node.untilNotQuorumCritical(60_000);
          step({
            target: node.name,
            step: 'quorum_check',
            bracket: { startedNs: checkStartedNs, completedNs: nowNs() },
            ...(problem ? { problem } : {}),
          });
          const stopped = await node.stop();
          hit(node.name, 'stop', stopped.bracket);
          step({ target: node.name, step: 'stop', bracket: stopped.bracket, ...(stopped.problem ? { problem: stopped.problem } : {}) });
          context.log?.(`${node.name} stopped; starting it again`);
          const problems = await restart(node, step, context.log);
          if (problems.length > 0) throw new Error(problems.join('; '));
        }
      },
      async undo(step) {
        const problems: string[] = [];
        for (const node of nodes) if (!node.running()) problems.push(...(await restart(node, step, context.log)));
        return problems;
      },
    });
  },
};
