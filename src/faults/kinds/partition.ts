/**
 * `partition`: the proxy drops every byte both ways (Toxiproxy `timeout`); a connection with no
 * data arriving for `timeout_ms` is closed by the proxy (0: never). Against a busy connection only
 * the client's own deadline (a drain deadline, heartbeats) notices, so a close, silence or missed
 * heartbeats are all legitimate ways to learn of it.
 */
import type { FaultDefinition } from '../model';
import { parseDurationMs, required } from './arguments';
import { toxicFault } from './toxicFault';

export interface PartitionOptions {
  readonly [key: string]: number;
  /** Idle time after which the proxy closes a connection; 0 never closes. @default 100 */
  readonly timeout_ms: number;
}

export const partition: FaultDefinition<PartitionOptions> = {
  kind: 'partition',
  label: 'Partition',
  layer: 'network',
  broker: 'shared',
  description: 'the proxy drops every byte both ways; an idle connection is closed after the timeout',
  argument: 'idle time before the proxy closes a connection, e.g. 100ms (0: never)',
  defaults: { timeout_ms: 100 },
  parse: (argument) => ({ timeout_ms: argument ? parseDurationMs(argument, '--fault partition:<timeout>') : 100 }),
  // Felt when the first chunk is dropped, or an idle connection is closed.
  acted: (event) => event.kind === 'data_dropped' || event.kind === 'timeout_closed',
  actedWords: 'first data dropped',
  expected: null,
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
        attributes: { timeout: options.timeout_ms },
      })),
    });
  },
};
