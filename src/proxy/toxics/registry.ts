/**
 * Every toxic type the proxy knows, in one explicit map (no registration by import side
 * effects). Adding a toxic: one file implementing ToxicDefinition, one line here.
 */
import { bandwidthToxic } from './bandwidth';
import { latencyToxic } from './latency';
import { limitDataToxic } from './limitData';
import { noopToxic } from './noop';
import { resetPeerToxic } from './resetPeer';
import { slicerToxic } from './slicer';
import { slowCloseToxic } from './slowClose';
import { timeoutToxic } from './timeout';
import type { IntegerAttributes, ToxicDefinition } from './types';

export type AnyToxicDefinition = ToxicDefinition<IntegerAttributes>;

export const TOXIC_REGISTRY: ReadonlyMap<string, AnyToxicDefinition> = new Map<string, AnyToxicDefinition>([
  ['latency', latencyToxic],
  ['bandwidth', bandwidthToxic],
  ['slow_close', slowCloseToxic],
  ['timeout', timeoutToxic],
  ['reset_peer', resetPeerToxic],
  ['slicer', slicerToxic],
  ['limit_data', limitDataToxic],
  ['noop', noopToxic],
]);

/** The definition of a toxic type, or undefined for a type Toxiproxy would call invalid. */
export function findToxicDefinition(type: string): AnyToxicDefinition | undefined {
  return TOXIC_REGISTRY.get(type);
}
