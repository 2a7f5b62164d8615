/**
 * `node_kill`: kill -9 of a cluster node's VM. Its clients' TCP peer (the proxy's upstream link)
 * vanishes and the proxy closes their side. Undone by starting the node again (bounded).
 */
import { describeError } from '../../errors';
import type { FaultDefinition } from '../model';
import { noArgument, required } from './arguments';
import { nodeActionFault } from './nodeAction';

export const nodeKill: FaultDefinition<Record<string, never>> = {
  kind: 'node_kill',
  label: 'Node killed',
  layer: 'node',
  broker: 'own_node',
  description: 'kill -9 of a cluster node; undone by starting it again',
  argument: null,
  defaults: {},
  parse: (argument) => noArgument('node_kill', argument, {}),
  acted: () => false,
  actedWords: 'node killed',
  expected: null,
  actsOnData: false,
  create(context, options) {
    const node = required(context.node, this.kind, 'a cluster node');
    let killed = false;
    return nodeActionFault(this, options, {
      target: { type: 'node', name: node.name },
      async act(hit) {
        hit(node.name, 'kill', await node.kill());
        killed = true;
        context.log?.(`killed ${node.name} (kill -9)`);
      },
      async undo(step) {
        if (!killed && node.running()) return [];
        killed = false;
        return restart(node, step, context.log);
      },
    });
  },
};

/** Starts `node` again, recording the step; returns the problem if it did not come back. */
export async function restart(
  node: Parameters<typeof nodeKill.create>[0]['node'] & object,
  step: (entry: { target: string; step: string; bracket: { startedNs: bigint; completedNs: bigint }; problem?: string }) => void,
  log?: (line: string) => void,
): Promise<string[]> {
  const startedNs = process.hrtime.bigint();
  try {
    step({ target: node.name, step: 'restart', bracket: await node.restart() });
    log?.(`${node.name} running again`);
    return [];
  } catch (error) {
    const problem = `${node.name} did not come back: ${describeError(error)}`;
    step({ target: node.name, step: 'restart', bracket: { startedNs, completedNs: process.hrtime.bigint() }, problem });
    return [problem];
  }
}
