/**
 * A recovery result's `details` (pure): the raw moments (monotonic ns as decimal strings, so every
 * figure can be re-derived), the proxy's per-connection fault timeline, the machine, and what each
 * thread went through in ms from the run's reference (for the timeline chart).
 */
import { elapsedMs } from '../measure/clock';
import { round3 } from '../measure/round';
import type { RecoveryDetails, RecoveryThread } from '../results/recoveryDetails';
import type { MachineBound } from './machineBound';
import type { RunMoments } from './runMoments';
import type { RecoveryOutcome, ThreadRecord } from './scenario';

export function recoveryDetailsOf(outcome: RecoveryOutcome, moments: RunMoments, bound: MachineBound): RecoveryDetails {
  const { spread, reference, removalNs } = moments;
  return {
    kind: 'recovery',
    reference: reference.description,
    injection_bracket_ns: {
      started: String(outcome.injection.bracket.startedNs),
      completed: String(outcome.injection.bracket.completedNs),
    },
    fault_acted_ns: spread === null ? null : String(spread.firstNs),
    removal_bracket_ns: outcome.removal
      ? { started: String(outcome.removal.startedNs), completed: String(outcome.removal.completedNs) }
      : null,
    detection_causes: countBy(outcome.threads.map((thread) => thread.detectionCause)),
    reference_exact: reference.exact,
    clock_disagreements: [...moments.clockDisagreements],
    traffic_interval_ms: outcome.trafficIntervalMs,
    drain_timeout_ms: outcome.drainTimeoutMs,
    proxy_timeline: outcome.faultEvents !== null,
    fault_spread: spread && {
      first_ns: String(spread.firstNs),
      last_ns: String(spread.lastNs),
      spread_ms: round3(spread.spreadMs),
      connections: spread.connections,
    },
    // Per connection, oldest first: what a packet capture of the proxy's listen port can be checked against.
    fault_timeline: moments.acted.map((one) => ({ client_port: one.clientPort, acted_ns: String(one.timeNs) })),
    clock_anchor: outcome.clockAnchor && { monotonic_ns: String(outcome.clockAnchor.monotonicNs), epoch_ms: outcome.clockAnchor.epochMs },
    machine: { threads: bound.threads, cpu_count: bound.cpuCount, machine_bound: bound.machineBound },
    removal_after_reference_ms: removalNs === null ? null : round3(elapsedMs(reference.ns, removalNs)),
    threads: outcome.threads.map((thread, index) => threadDetail(thread, index, moments)),
  };
}

/** What one thread went through, in ms: its fault moment, detection and recovery from the run's reference. */
function threadDetail(thread: ThreadRecord, index: number, moments: RunMoments): RecoveryThread {
  const referenceNs = moments.reference.ns;
  const { removalNs } = moments;
  const fromReference = (ns: bigint | null): number | null => (ns === null ? null : round3(elapsedMs(referenceNs, ns)));
  const detectionMs = moments.detectionMs[index] ?? null;
  return {
    thread: thread.threadIndex,
    detection_ms: detectionMs === null ? null : round3(detectionMs),
    detection_cause: thread.detectionCause,
    // null when the timeline did not name this thread's connection: its detection_ms is then from the run's reference.
    fault_after_reference_ms: fromReference(moments.ownFaultNs[index] ?? null),
    detected_after_reference_ms: fromReference(thread.detectedNs),
    recovered_after_reference_ms: fromReference(thread.recoveredNs),
    recovered_after_removal_ms: thread.recoveredNs === null || removalNs === null ? null : round3(elapsedMs(removalNs, thread.recoveredNs)),
    reconnect_attempts: thread.reconnectAttempts,
    deliveries_before_fault: thread.deliveries,
    ...(thread.error ? { error: thread.error } : {}),
  };
}

export function countBy(values: readonly string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const value of values) counts[value] = (counts[value] ?? 0) + 1;
  return counts;
}
