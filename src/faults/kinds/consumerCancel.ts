/**
 * `consumer_cancel`: the broker cancels a client's consumer (basic.cancel, sent to clients that
 * declared the consumer_cancel_notify capability), as when its queue is deleted, or its node is
 * lost. Provoked by deleting the consumed queue, which stays absent until the fault is removed
 * (the queue declared again, with its bindings): a library that consumes again at once meets an
 * absent queue every time, never a race with the harness's re-declaration, and what it did
 * meanwhile (its basic.consume attempts, the broker's 404s) is on the proxy's timeline. Messages
 * the queue held when deleted go with it: the fault's loss, not the client's (results count them
 * apart).
 */
import type { FaultDefinition } from '../model';
import { isFrame, noArgument, required } from './arguments';
import { brokerActionFault } from './brokerAction';

export const consumerCancel: FaultDefinition<Record<string, never>> = {
  kind: 'consumer_cancel',
  label: 'Server cancels the consumer',
  layer: 'broker',
  broker: 'shared',
  description:
    "the consumed queue is deleted (declared again when the fault is removed): the broker cancels the client's consumer (basic.cancel)",
  argument: null,
  defaults: {},
  parse: (argument) => noArgument('consumer_cancel', argument, {}),
  acted: (event) => isFrame(event, 'basic.cancel'),
  actedWords: 'first basic.cancel from the broker',
  expected: 'consumer_cancelled',
  actsOnData: false,
  destroysMessages: 'the queue was deleted with its messages, and publishes until it was declared again went nowhere',
  // The queue stays absent 2 s at least (longer while a thread has not noticed, up to the bound).
  matrix: { bounds: () => ({ detectionBoundMs: 5000, holdMs: 2000, recoveryBoundMs: 10_000 }) },
  create(context, options) {
    const broker = required(context.broker, this.kind, 'actions on the broker');
    const queues = required(context.queues, this.kind, 'the queues the clients consume');
    return brokerActionFault(this, options, {
      target: { type: 'queue', name: queues.join(','), node: broker.node },
      action: 'delete_and_redeclare_queue',
      // Every queue at once: the clients' consumers are cancelled together.
      act: async () => {
        await Promise.all(queues.map((queue) => broker.deleteQueue(queue)));
      },
      undo: async () => {
        await Promise.all(queues.map((queue) => broker.restoreQueue(queue)));
      },
    });
  },
};
