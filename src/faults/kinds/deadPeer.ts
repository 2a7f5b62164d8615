/**
 * `dead_peer`: the broker goes silent without closing anything (Toxiproxy `timeout` with timeout
 * 0, both ways): no RST, no FIN, no AMQP close. Only the client itself can notice — by missed
 * heartbeats or TCP keepalive — so the harness gives it no deadline of its own; a client with
 * heartbeats off (or at a 60 s default) may never notice within the bound, which is the finding.
 *
 * The broker misses the client's heartbeats too and closes its socket after two to three
 * intervals; a partition would hold that FIN back, and so does the embedded proxy (`hold_end`):
 * otherwise a client without any heartbeat check would be told by the broker's close, in the
 * same window as a client that checks. Real Toxiproxy ignores `hold_end` and passes the close.
 */
import type { FaultDefinition } from '../model';
import { noArgument, required } from './arguments';
import { SILENCE_ROW } from './matrixRows';
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
  removedWhen: (event) => event.kind === 'timeout_removed_closed',
  removedWords: 'the silence removed (the proxy closing the connection it held)',
  embeddedProxyOnly:
    "holding the broker's close back during the silence (the timeout toxic's hold_end): through Toxiproxy the broker's close passes, and a client may be told by it",
  matrix: SILENCE_ROW,
  create(context, options) {
    const proxy = required(context.proxy, this.kind, 'the proxy entry the clients connect through');
    return toxicFault(this, options, {
      proxy,
      armed: false,
      specs: (['downstream', 'upstream'] as const).map((stream) => ({
        type: 'timeout',
        name: `timeout_${stream}`,
        stream,
        attributes: { timeout: 0, hold_end: 1 },
      })),
    });
  },
};
