/**
 * `latency`: every chunk from the broker is delayed by `latency_ms` ± `jitter_ms` (order kept). A
 * slow network, not a broken one: a client with a short deadline may take it for dead.
 */
import { ConfigError } from '../../errors';
import type { FaultDefinition } from '../model';
import { parseDurationMs, required } from './arguments';
import { toxicFault } from './toxicFault';

export interface LatencyOptions {
  readonly [key: string]: number | boolean;
  /** @default 200 */
  readonly latency_ms: number;
  /** @default 0 */
  readonly jitter_ms: number;
  /** Armed at toxicity 0 before the clients connect (so toxics armed after it act behind it). @default false */
  readonly armed: boolean;
}

export const latency: FaultDefinition<LatencyOptions> = {
  kind: 'latency',
  label: 'Slow network',
  layer: 'network',
  broker: 'shared',
  description: 'every chunk from the broker is delayed (order kept)',
  argument: 'delay, optionally with jitter: 200ms or 200ms~50ms',
  defaults: { latency_ms: 200, jitter_ms: 0, armed: false },
  parse(argument) {
    if (!argument) return this.defaults;
    const [delay, jitter, extra] = argument.split('~');
    if (extra !== undefined) throw new ConfigError('--fault latency:<delay>[~<jitter>]', 'a delay and at most one jitter', argument);
    return {
      latency_ms: parseDurationMs(delay!, '--fault latency:<delay>'),
      jitter_ms: jitter === undefined ? 0 : parseDurationMs(jitter, '--fault latency:<delay>~<jitter>'),
      armed: false,
    };
  },
  // Latency never acts as an event of its own: figures are timed from the call that added it.
  acted: () => false,
  actedWords: 'latency added',
  expected: null,
  actsOnData: false,
  create(context, options) {
    const proxy = required(context.proxy, this.kind, 'the proxy entry the clients connect through');
    return toxicFault(this, options, {
      proxy,
      armed: options.armed,
      specs: [
        {
          type: 'latency',
          name: 'latency_downstream',
          stream: 'downstream',
          attributes: { latency: options.latency_ms, jitter: options.jitter_ms },
        },
      ],
    });
  },
};
