/** The fault record of several replicates, combined (pure). */
import { strongestRemoval } from '../faults/toxics';
import type { Fault } from '../results/schemaTypes';

/**
 * The fault of k replicates of one scenario, as one record: what the threads received summed over
 * the replicates (`received_per_thread` concatenated in replicate order), as expected only if every
 * replicate was, exact only if every replicate's reference was, and the strongest removal any needed.
 */
export function combineFaults(faults: readonly [Fault, ...Fault[]]): Fault {
  const [first] = faults;
  const received: Record<string, number> = {};
  for (const fault of faults) for (const [kind, count] of Object.entries(fault.received)) received[kind] = (received[kind] ?? 0) + count;
  const exact = faults.every((fault) => fault.reference.exact);
  const removals = faults.map((fault) => fault.removal).filter((removal): removal is NonNullable<Fault['removal']> => removal !== null);
  return {
    ...first,
    reference: exact ? first.reference : (faults.find((fault) => !fault.reference.exact) ?? first).reference,
    received,
    received_per_thread: faults.flatMap((fault) => fault.received_per_thread),
    as_expected: faults.some((fault) => fault.as_expected === null) ? null : faults.every((fault) => fault.as_expected === true),
    removal: removals.length === 0 ? null : strongestRemoval(removals),
  };
}
