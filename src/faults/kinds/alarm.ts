/**
 * `alarm`: a resource alarm blocks publishers (a memory alarm: the node's watermark set to 0),
 * until it is cleared. The broker stops reading from publishing connections and tells clients
 * that asked (connection.blocked / connection.unblocked). Every client of the node is affected,
 * so only a node the harness starts for it may be alarmed: the shared broker never is
 * (BrokerActions refuses).
 */
import type { FaultDefinition } from '../model';
import { isFrame, noArgument, required } from './arguments';
import { brokerActionFault } from './brokerAction';

export const alarm: FaultDefinition<Record<string, never>> = {
  kind: 'alarm',
  label: 'Resource alarm (publishers blocked)',
  layer: 'broker',
  broker: 'own_node',
  description: 'a memory alarm on the node: publishers are blocked (connection.blocked) until it clears',
  argument: null,
  defaults: {},
  parse: (argument) => noArgument('alarm', argument, {}),
  acted: (event) => isFrame(event, 'connection.blocked'),
  actedWords: 'first connection.blocked from the broker',
  expected: 'blocked',
  actsOnData: true,
  removedWhen: (event) => isFrame(event, 'connection.unblocked'),
  removedWords: 'connection.unblocked from the broker',
  // Held blocked 2 s (what each publish does meanwhile), and close() of a blocked connection checked.
  matrix: { bounds: () => ({ detectionBoundMs: 5000, holdMs: 2000, recoveryBoundMs: 10_000, closeCheck: true }) },
  create(context, options) {
    const broker = required(context.broker, this.kind, 'actions on a broker node of the harness’s own');
    return brokerActionFault(this, options, {
      target: { type: 'node', name: broker.node },
      action: 'memory_alarm',
      act: () => broker.setMemoryAlarm(true),
      undo: () => broker.setMemoryAlarm(false),
    });
  },
};
