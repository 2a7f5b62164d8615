/**
 * `broker_close`: the broker closes the clients' connections itself (connection.close, 320
 * CONNECTION_FORCED), as on a node shutdown, an operator's `close_connection` or a policy.
 * Aimed at the harness's own connections only, by their `connection_name` prefix; timed from
 * the connection.close frame passing the proxy (exact), the CLI call being 0.3 s or more.
 */
import type { FaultDefinition } from '../model';
import { isFrame, noArgument, required } from './arguments';
import { brokerActionFault } from './brokerAction';

export const brokerClose: FaultDefinition<Record<string, never>> = {
  kind: 'broker_close',
  label: 'Broker closes the connection',
  layer: 'broker',
  broker: 'shared',
  description: 'the broker closes each client connection with connection.close 320 (CONNECTION_FORCED)',
  argument: null,
  defaults: {},
  parse: (argument) => noArgument('broker_close', argument, {}),
  acted: (event) => isFrame(event, 'connection.close'),
  actedWords: 'first connection.close from the broker',
  expected: 'broker_closed',
  actsOnData: false,
  matrix: { bounds: () => ({ detectionBoundMs: 5000, recoveryBoundMs: 15_000 }) },
  create(context, options) {
    const broker = required(context.broker, this.kind, 'actions on the broker');
    const prefix = required(context.connectionNamePrefix, this.kind, "the clients' connection-name prefix");
    return brokerActionFault(this, options, {
      target: { type: 'connections', name_prefix: prefix, node: broker.node },
      action: 'close_connections',
      act: async () => {
        await broker.closeConnections(prefix, 'amqp-bench fault: broker_close');
      },
    });
  },
};
