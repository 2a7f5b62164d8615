/**
 * `node_partition`: a cluster node is cut off from its clients: its proxy entry drops every byte
 * both ways (Toxiproxy `timeout` with timeout 0) while the node itself stays in the cluster. Only
 * a client deadline (or heartbeats) notices. Undone by removing the toxics.
 */
import type { FaultDefinition } from '../model';
import { noArgument, required } from './arguments';
import { nodeActionFault } from './nodeAction';
import { toxicTimeout, type ActiveToxic } from '../toxics';

export const nodePartition: FaultDefinition<Record<string, never>> = {
  kind: 'node_partition',
  label: 'Node partitioned',
  layer: 'node',
  broker: 'own_node',
  description: "a cluster node's proxy entry drops every byte both ways; the node stays in the cluster",
  argument: null,
  defaults: {},
  parse: (argument) => noArgument('node_partition', argument, {}),
  acted: (event) => event.kind === 'data_dropped',
  actedWords: 'first data dropped',
  expected: null,
  actsOnData: true,
  create(context, options) {
    const node = required(context.node, this.kind, 'a cluster node');
    const proxy = required(node.proxy, this.kind, `the proxy entry in front of ${node.name}`);
    let toxic: ActiveToxic | undefined;
    return nodeActionFault(this, options, {
      target: { type: 'node', name: node.name },
      async act(hit) {
        toxic = await toxicTimeout(proxy, 0);
        hit(node.name, 'partition', toxic.injected);
        context.log?.(`partitioned ${node.name} from its clients (proxy entry ${proxy.name})`);
      },
      async undo(step) {
        if (!toxic) return [];
        const active = toxic;
        toxic = undefined;
        step({ target: node.name, step: 'heal', bracket: await active.remove() });
        return [];
      },
    });
  },
};
