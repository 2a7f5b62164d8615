/**
 * The moments of one recovery run that every figure is timed from (pure): where the fault acted
 * (the proxy's timeline), the run's reference, each thread's own fault moment, and each thread's
 * detection timed from it.
 *
 * A thread's own fault moment is the fault on its own connection (by its client port); a thread
 * the timeline did not name is timed from the run's reference instead. A detection earlier than
 * the moment it is timed from is a clock disagreement: flagged, left out, never a negative figure.
 */
import { actedConnections, faultMomentsByPort, faultReference, faultSpread, type ActedConnection } from '../faults/moments';
import type { FaultReference, FaultSpread } from '../faults/moments';
import { elapsedMs } from '../measure/clock';
import type { RecoveryOutcome } from './scenario';

export interface RunMoments {
  /** The first moment the fault acted on each connection, oldest first. */
  readonly acted: readonly ActedConnection[];
  readonly spread: FaultSpread | null;
  readonly reference: FaultReference;
  /** Each client port's fault moment. */
  readonly actedByPort: ReadonlyMap<number, bigint>;
  /** Per thread: the fault on its own connection (null when the timeline did not name it). */
  readonly ownFaultNs: readonly (bigint | null)[];
  /** Per thread: detection from its own fault moment, else the run's reference (null: no detection, or before it). */
  readonly detectionMs: readonly (number | null)[];
  readonly clockDisagreements: readonly string[];
  /** The end of the fault's removal (null: not removed). */
  readonly removalNs: bigint | null;
}

export function runMoments(outcome: Pick<RecoveryOutcome, 'threads' | 'faultEvents' | 'fault' | 'injection' | 'removal'>): RunMoments {
  const definition = outcome.fault.definition;
  const acted = actedConnections(outcome.faultEvents, definition);
  const reference = faultReference(acted, definition, outcome.injection.bracket.startedNs);
  const actedByPort = faultMomentsByPort(acted);
  const ownFaultNs = outcome.threads.map((thread) => actedByPort.get(thread.faultedLocalPort) ?? null);
  const clockDisagreements: string[] = [];
  const detectionMs = outcome.threads.map((thread, index) => {
    if (thread.detectedNs === null) return null;
    const fromNs = ownFaultNs[index] ?? reference.ns;
    if (thread.detectedNs < fromNs) {
      clockDisagreements.push(
        `thread ${thread.threadIndex} detected ${elapsedMs(thread.detectedNs, fromNs).toFixed(3)} ms before its fault moment`,
      );
      return null;
    }
    return elapsedMs(fromNs, thread.detectedNs);
  });
  return {
    acted,
    spread: faultSpread(acted),
    reference,
    actedByPort,
    ownFaultNs,
    detectionMs,
    clockDisagreements,
    removalNs: outcome.removal?.completedNs ?? null,
  };
}
