/**
 * A fault as a result records it (the raw result's `fault`, schemas/raw-result.schema.json): its
 * kind, label, target and options, how it was injected and removed, the moment figures are timed
 * from, and what each thread received. Pure.
 */
import type { ReceivedKind } from '../client/faults';
import type { Fault as FaultRecord } from '../schemaTypes';
import type { Fault, FaultRemoval, Injection } from './model';
import type { FaultReference } from './moments';
import { strongestRemoval } from './toxics';

export type { FaultRecord };

export interface FaultRecordInput {
  readonly fault: Fault;
  /** Faults that acted before it in the same scenario. */
  readonly preFaults?: readonly Fault[];
  readonly injection: Injection;
  readonly reference: FaultReference;
  /** What each thread received, by thread index. */
  readonly receivedPerThread: readonly ReceivedKind[];
  readonly removal: FaultRemoval | null;
}

export function faultRecord(input: FaultRecordInput): FaultRecord {
  const { fault, reference } = input;
  const received: Record<string, number> = {};
  for (const kind of input.receivedPerThread) received[kind] = (received[kind] ?? 0) + 1;
  const expected = fault.definition.expected;
  const toxics = [...(input.preFaults ?? []), fault].flatMap((each) => each.toxic ?? []);
  return {
    kind: fault.kind,
    label: fault.definition.label,
    ...(input.preFaults && input.preFaults.length > 0 ? { pre_faults: input.preFaults.map((each) => each.kind) } : {}),
    target: { ...fault.target } as FaultRecord['target'],
    parameters: { ...fault.parameters },
    // Still written for proxy faults: readers of older results know faults by their toxic.
    ...(toxics.length > 0 ? { toxic: toxics.join('+') } : {}),
    injection: input.injection.mode,
    reference: {
      source: reference.source,
      exact: reference.exact,
      description: reference.exact ? reference.description : `${reference.description}: every latency timed from it is an upper bound`,
    },
    received,
    received_per_thread: [...input.receivedPerThread],
    expected,
    as_expected: expected === null ? null : input.receivedPerThread.every((kind) => kind === expected),
    removal: input.removal?.method ?? null,
  };
}

/**
 * The fault of k replicates of one scenario, as one record: what the threads received summed over
 * the replicates (`received_per_thread` concatenated in replicate order), as expected only if every
 * replicate was, exact only if every replicate's reference was, and the strongest removal any needed.
 */
export function combineFaultRecords(records: readonly [FaultRecord, ...FaultRecord[]]): FaultRecord {
  const [first] = records;
  const received: Record<string, number> = {};
  for (const record of records) for (const [kind, count] of Object.entries(record.received)) received[kind] = (received[kind] ?? 0) + count;
  const exact = records.every((record) => record.reference.exact);
  const removals = records
    .map((record) => record.removal)
    .filter((removal): removal is NonNullable<FaultRecord['removal']> => removal !== null);
  const toxicRemovals = removals.filter((removal) => removal !== 'undone' && removal !== 'nothing_to_undo');
  return {
    ...first,
    reference: exact ? first.reference : (records.find((record) => !record.reference.exact) ?? first).reference,
    received,
    received_per_thread: records.flatMap((record) => record.received_per_thread),
    as_expected: records.some((record) => record.as_expected === null) ? null : records.every((record) => record.as_expected === true),
    removal:
      removals.length === 0
        ? null
        : toxicRemovals.length > 0
          ? strongestRemoval(toxicRemovals)
          : removals.includes('undone')
            ? 'undone'
            : 'nothing_to_undo',
  };
}
