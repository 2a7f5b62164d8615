/**
 * `ack_timeout`: a consumer holds deliveries unacked longer than the broker's consumer_timeout,
 * and the broker closes that consumer's channel with 406 PRECONDITION_FAILED ("delivery
 * acknowledgement on channel N timed out"), requeueing what it held. Libraries differ in whether
 * that channel and its consumer come back, and whether a publisher on the same connection survives.
 *
 * RabbitMQ 3.10 checks the timeout on each channel's tick (channel_tick_interval, 60 s by default;
 * the timeout itself 30 min), so the node the harness starts for it is configured with a 3 s
 * timeout and a 1 s tick: the channel is closed 3-4 s after the first held delivery. The hold is
 * the injection, done by the suite's consumer: its handler gets stuck, as a hung production
 * handler does, and holds every delivery from then on (its prefetch window fills) until the thread
 * noticed the fault (src/matrix/stuckHandler.ts says why every one, and why never acked). Its
 * moment is the broker's channel.close 406 as the proxy saw it; there is nothing to undo (the
 * held messages go back to the queue by themselves).
 */
import type { FaultDefinition } from '../model';
import { noArgument, required } from './arguments';
import { brokerActionFault } from './brokerAction';
import type { FaultEvent } from '../toxiproxyClient';

/** The node's consumer_timeout (ms), and how often each channel checks it (channel_tick_interval, ms). */
export const ACK_TIMEOUT_SETTINGS = { consumer_timeout: 3000, channel_tick_interval: 1000 } as const;

function channelClosed406(event: FaultEvent): boolean {
  return (
    event.kind === 'amqp_frame' &&
    event.stream === 'downstream' &&
    event.detail?.method === 'channel.close' &&
    event.detail.reply_code === 406
  );
}

export const ackTimeout: FaultDefinition<Record<string, never>> = {
  kind: 'ack_timeout',
  label: 'Consumer acknowledgement timeout',
  layer: 'broker',
  broker: 'own_node',
  description: `a consumer holds its deliveries unacked past the broker's consumer_timeout (${ACK_TIMEOUT_SETTINGS.consumer_timeout / 1000} s on the node started for it): its channel is closed with 406 PRECONDITION_FAILED`,
  argument: null,
  defaults: {},
  parse: (argument) => noArgument('ack_timeout', argument, {}),
  acted: channelClosed406,
  actedWords: 'channel.close 406 from the broker',
  expected: 'channel_closed',
  actsOnData: false,
  nodeSettings: ACK_TIMEOUT_SETTINGS,
  holdsDelivery: true,
  // The broker acts 3-4 s after the hold; a library may take its own time to open the channel
  // again: the slowest that does, amqp-connection-manager with its defaults, waits its fixed 5 s
  // (back at 5.2-5.3 s), so 10 s as for the other channel-level rows; a consumer still working
  // through the requeued deliveries is waited for up to twice that (src/matrix/recoveryWait.ts).
  matrix: { bounds: () => ({ detectionBoundMs: 15_000, recoveryBoundMs: 10_000 }) },
  create(context, options) {
    const broker = required(context.broker, this.kind, 'actions on a broker node of the harness’s own');
    return brokerActionFault(this, options, {
      target: { type: 'node', name: broker.node },
      action: 'hold_delivery',
      // The consumers hold every delivery from the injection on: nothing to call on the broker.
      act: async () => undefined,
    });
  },
};
