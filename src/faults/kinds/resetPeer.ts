/**
 * `reset_peer`: the proxy resets every client connection (TCP RST) on the next data from the
 * broker, after `timeout_ms`. Armed before the clients connect by default, as real Toxiproxy
 * sends a true RST only then (a reset_peer added to open links closes them with a FIN).
 */
import type { FaultDefinition } from '../model';
import { parseDurationMs, required } from './arguments';
import { toxicFault } from './toxicFault';

export interface ResetPeerOptions {
  readonly [key: string]: number | boolean;
  /** Delay before the reset once data arrives. @default 0 */
  readonly timeout_ms: number;
  /** Armed at toxicity 0 before the clients connect, fired when injected. @default true */
  readonly armed: boolean;
}

export const resetPeer: FaultDefinition<ResetPeerOptions> = {
  kind: 'reset_peer',
  label: 'TCP reset',
  layer: 'network',
  broker: 'shared',
  description: 'the proxy resets every client connection (TCP RST) on the next data from the broker',
  argument: 'delay before the reset, e.g. 0ms (default 0)',
  defaults: { timeout_ms: 0, armed: true },
  parse: (argument) => ({ timeout_ms: argument ? parseDurationMs(argument, '--fault reset_peer:<delay>') : 0, armed: true }),
  acted: (event) => event.kind === 'reset_sent',
  actedWords: 'first RST sent',
  expected: 'reset',
  actsOnData: true,
  create(context, options) {
    const proxy = required(context.proxy, this.kind, 'the proxy entry the clients connect through');
    return toxicFault(this, options, {
      proxy,
      armed: options.armed,
      specs: [{ type: 'reset_peer', name: 'reset_peer_downstream', stream: 'downstream', attributes: { timeout: options.timeout_ms } }],
    });
  },
};
