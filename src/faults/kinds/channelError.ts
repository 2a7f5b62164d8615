/**
 * `channel_error`: the broker closes a client's publishing channel (channel.close 404 NOT_FOUND),
 * provoked from outside: the exchange the client publishes to is deleted, so its next publish
 * fails on the broker, which closes that channel — and only that channel: the connection and
 * its other channels (the consumer's) stay up unless the library takes them down with it. The
 * exchange stays absent until the fault is removed (2 s at least), then is declared again with
 * its bindings: a library that re-opens its channel and publishes at once meets the absent
 * exchange every time (another 404), never a race with the harness's re-declaration — declared
 * again "right away", whether a fast library's first publish came before or after it decided the
 * cell by a few milliseconds (py-amqp's publisher came back in one run and not the next).
 */
import type { FaultDefinition } from '../model';
import { isFrame, noArgument, required } from './arguments';
import { brokerActionFault } from './brokerAction';

export const channelError: FaultDefinition<Record<string, never>> = {
  kind: 'channel_error',
  label: 'Server closes a channel (404)',
  layer: 'broker',
  broker: 'shared',
  description:
    "the publish exchange is deleted (declared again when the fault is removed): the broker closes the client's publishing channel with 404 NOT_FOUND",
  argument: null,
  defaults: {},
  parse: (argument) => noArgument('channel_error', argument, {}),
  acted: (event) => isFrame(event, 'channel.close'),
  actedWords: 'first channel.close from the broker',
  expected: 'channel_closed',
  actsOnData: true,
  destroysMessages: 'publishes that met the exchange declared again but not yet bound went nowhere (confirmed, unroutable)',
  // The exchange stays absent 2 s at least (longer while a thread has not noticed, up to the bound).
  // Recovery is waited for 15 s: a publisher whose library never confirms again after the 404
  // (py-amqp re-opens the channel without confirm mode) blocks its connection's heartbeats, and
  // the broker closes that connection 12.6-12.9 s after the removal at the normalised 5 s
  // heartbeat; at a 10 s bound its publishes were classed 0.3 s after that close, so a busier
  // moment would class them hung instead of rejected, the same library reading two ways.
  matrix: { bounds: () => ({ detectionBoundMs: 5000, holdMs: 2000, recoveryBoundMs: 15_000 }) },
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
