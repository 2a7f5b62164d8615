/**
 * `node_pause`: the node's VM is stopped (SIGSTOP) and later continued (SIGCONT): its sockets stay
 * open and it says nothing, so clients see silence, not a close — like a long GC pause or a frozen
 * VM. Only heartbeats (or TCP keepalive) can tell. Only a node of the harness's own is paused.
 * A frozen node cannot close anything either, so this silence holds by itself until SIGCONT (the
 * removal, from which recovery is timed: the signal's call, microseconds, still an upper bound).
 */
import type { FaultDefinition } from '../model';
import { noArgument, required } from './arguments';
import { SILENCE_ROW } from './matrixRows';
import { nodeActionFault } from './nodeAction';

export const nodePause: FaultDefinition<Record<string, never>> = {
  kind: 'node_pause',
  label: 'Broker node paused',
  layer: 'node',
  broker: 'own_node',
  description: 'the broker node is frozen (SIGSTOP), then continued (SIGCONT): silence, not a close',
  argument: null,
  defaults: {},
  parse: (argument) => noArgument('node_pause', argument, {}),
  // Silence leaves no event: timed from the signal (a call of microseconds, still an upper bound).
  acted: () => false,
  actedWords: 'node paused',
  expected: 'heartbeat',
  actsOnData: false,
  matrix: SILENCE_ROW,
  create(context, options) {
    const node = required(context.node, this.kind, 'a broker node of the harness’s own');
    let paused = false;
    return nodeActionFault(this, options, {
      target: { type: 'node', name: node.name },
      async act(hit) {
        hit(node.name, 'pause', await node.pause());
        paused = true;
      },
      async undo(step) {
        if (!paused) return [];
        paused = false;
        step({ target: node.name, step: 'resume', bracket: await node.resume() });
        return [];
      },
    });
  },
};
