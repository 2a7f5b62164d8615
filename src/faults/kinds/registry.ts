/**
 * Every fault the harness can inject, by kind: one explicit list, in the order tables show them
 * (network, then broker, then node faults). To add a fault: one file in this folder with its
 * `FaultDefinition`, and a line here (docs/contributing.md, "Add a fault").
 */
import { ConfigError } from '../../errors';
import type { Fault, FaultContext, FaultDefinition, FaultOptions } from '../model';
import { ackTimeout } from './ackTimeout';
import { alarm } from './alarm';
import { brokerClose } from './brokerClose';
import { brokerRestart } from './brokerRestart';
import { channelError } from './channelError';
import { consumerCancel } from './consumerCancel';
import { deadPeer } from './deadPeer';
import { latency } from './latency';
import { nodeKill } from './nodeKill';
import { nodePartition } from './nodePartition';
import { nodePause } from './nodePause';
import { partition } from './partition';
import { resetPeer } from './resetPeer';
import { rollingRestart } from './rollingRestart';

const DEFINITIONS: readonly FaultDefinition<never>[] = [
  resetPeer,
  partition,
  latency,
  deadPeer,
  brokerClose,
  channelError,
  consumerCancel,
  ackTimeout,
  alarm,
  nodeKill,
  nodePartition,
  nodePause,
  brokerRestart,
  rollingRestart,
] as unknown as FaultDefinition<never>[];

export const FAULTS: ReadonlyMap<string, FaultDefinition> = new Map(
  (DEFINITIONS as unknown as FaultDefinition[]).map((definition) => [definition.kind, definition]),
);

/** Every fault kind, in table order. */
export const FAULT_KIND_NAMES: readonly string[] = [...FAULTS.keys()];

/** The definition of `kind`. @throws ConfigError listing the kinds there are */
export function faultDefinition(kind: string): FaultDefinition {
  const definition = FAULTS.get(kind);
  if (!definition) throw new ConfigError('fault kind', `one of ${FAULT_KIND_NAMES.join(', ')}`, kind);
  return definition;
}

/** What a suite asks for: a kind and (some of) its options; the rest are the kind's defaults. */
export interface FaultSpec {
  readonly kind: string;
  readonly options?: FaultOptions;
}

/** Builds the fault `spec` names against `context`. @throws ConfigError for an unknown kind or a missing context field */
export function createFault(spec: FaultSpec, context: FaultContext): Fault {
  const definition = faultDefinition(spec.kind);
  return definition.create(context, { ...definition.defaults, ...spec.options });
}

/**
 * `KIND[:ARG]` as given on a command line or in a workload file (`latency:200ms`, `reset_peer`).
 * @throws ConfigError naming the kind or the argument's expected form
 */
export function parseFaultArgument(text: string): FaultSpec {
  const colon = text.indexOf(':');
  const kind = (colon < 0 ? text : text.slice(0, colon)).trim();
  const definition = faultDefinition(kind);
  return { kind, options: definition.parse(colon < 0 ? undefined : text.slice(colon + 1)) };
}
