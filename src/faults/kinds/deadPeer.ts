/**
 * `dead_peer`: the broker goes silent without closing anything (Toxiproxy `timeout` with timeout
 * 0, both ways): no RST, no FIN, no AMQP close. Only the client itself can notice — by missed
 * heartbeats or TCP keepalive — so the harness gives it no deadline of its own; a client with
 * heartbeats off (or at a 60 s default) may never notice within the bound, which is the finding.
 */
import type { FaultDefinition } from '../model';
import { noArgument, required } from './arguments';
import { toxicFault } from './toxicFault';

export const deadPeer: FaultDefinition<Record<string, never>> = {
  kind: 'dead_peer',
  label: 'Dead peer (silence)',
  layer: 'network',
  broker: 'shared',
  description: 'every byte is dropped both ways and nothing is closed: only heartbeats or TCP keepalive can tell',
  argument: null,
  defaults: {},
  parse: (argument) => noArgument('dead_peer', argument, {}),
  acted: (event) => event.kind === 'data_dropped',
  actedWords: 'first data dropped',
  expected: 'heartbeat',
  actsOnData: true,
  create(context, options) {
    const proxy = required(context.proxy, this.kind, 'the proxy entry the clients connect through');
    return toxicFault(this, options, {
      proxy,
      armed: false,
      specs: (['downstream', 'upstream'] as const).map((stream) => ({
        type: 'timeout',
        name: `timeout_${stream}`,
        stream,
        attributes: { timeout: 0 },
      })),
    });
  },
};
