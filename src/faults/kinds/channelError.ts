/**
 * `channel_error`: the broker closes a client's publishing channel (channel.close 404 NOT_FOUND),
 * provoked from outside: the exchange the client publishes to is deleted, so its next publish
 * fails on the broker, which closes that channel — and only that channel: the connection and
 * its other channels (the consumer's) stay up unless the library takes them down with it. The
 * exchange is declared again (with its bindings) right away, so a library that re-opens its
 * channel can publish again at once.
 */
import type { FaultDefinition } from '../model';
import { isFrame, noArgument, required } from './arguments';
import { brokerActionFault } from './brokerAction';

export const channelError: FaultDefinition<Record<string, never>> = {
  kind: 'channel_error',
  label: 'Server closes a channel (404)',
  layer: 'broker',
  broker: 'shared',
  description: "the publish exchange is deleted: the broker closes the client's publishing channel with 404 NOT_FOUND",
  argument: null,
  defaults: {},
  parse: (argument) => noArgument('channel_error', argument, {}),
  acted: (event) => isFrame(event, 'channel.close'),
  actedWords: 'first channel.close from the broker',
  expected: 'channel_closed',
  actsOnData: true,
  destroysMessages: 'publishes that met the exchange declared again but not yet bound went nowhere (confirmed, unroutable)',
  matrix: { bounds: () => ({ detectionBoundMs: 5000, recoveryBoundMs: 10_000 }) },
  create(context, options) {
    const broker = required(context.broker, this.kind, 'actions on the broker');
    const exchange = required(context.exchange, this.kind, 'the exchange the clients publish to');
    return brokerActionFault(this, options, {
      target: { type: 'exchange', name: exchange, node: broker.node },
      action: 'delete_exchange',
      act: () => broker.deleteExchange(exchange),
      undo: () => broker.restoreExchange(exchange),
    });
  },
};
