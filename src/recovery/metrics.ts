/**
 * Turns what the threads recorded into the recovery metrics (pure; no I/O).
 *
 * Every latency is a difference of two `process.hrtime.bigint()` readings. The reference
 * ("fault moment") is the moment the proxy's timeline says the toxic first acted, when the
 * proxy has a timeline (exact); otherwise the start of the API call that injected it, which no
 * thread can precede except by a fault that was not ours, and which makes every latency timed
 * from it an upper bound. A detection earlier than its reference is therefore flagged and left
 * out of the figures, never reported as a negative number.
 *
 * A target about an exact moment is scored only against an exact figure, and a target about
 * a TCP RST only when the clients received an RST: otherwise `met` is null with the reason.
 */
import type { RecoveryDetails, RecoveryThread } from '../results/recoveryDetails';
import { describeProxyServer } from '../faults';
import { faultRecord } from '../faults/record';
import { elapsedMs } from '../measure/clock';
import { quantile, sortSamples } from '../measure/statistics';
import type { Metric, Target } from '../results/rawResult';
import { judgedTarget } from '../results/targetVerdict';
import type { Fault, FaultProxy } from '../schemaTypes';
import { actedConnections, faultMomentsByPort, faultReference, faultSpread, type FaultSpread } from '../faults/moments';
import { machineBound } from './machineBound';
import { describeReceived, RECEIVED_KIND_WORDS } from '../client/faults';
import type { RecoveryOutcome, ThreadRecord } from './scenario';

export { describeReceived } from '../client/faults';

/** Targets from the user's spec. */
export const RECOVERY_TARGETS_MS = {
  rstDetection: 10,
  partitionDetection: 200,
  fullRecovery: 5000,
} as const;

/** The spec's detection target of a fault, where it has one (a TCP reset, a partition). */
const DETECTION_TARGET_MS: Readonly<Record<string, number>> = {
  reset_peer: RECOVERY_TARGETS_MS.rstDetection,
  partition: RECOVERY_TARGETS_MS.partitionDetection,
};

export interface RecoveryMetrics {
  readonly metrics: Record<string, Metric>;
  readonly samples: Record<string, number[]>;
  readonly targets: Target[];
  readonly details: RecoveryDetails;
  readonly notes: string[];
  /** What was injected, what each client received, what figures are timed from. */
  readonly fault: Fault;
  /** The server that injected it. */
  readonly faultProxy: FaultProxy;
}

const ms = (value: number | null, direction: Metric['direction'] = 'lower'): Metric => ({
  value: value === null ? null : round3(value),
  unit: 'ms',
  direction,
});
const count = (value: number): Metric => ({ value, unit: 'count', direction: 'none' });
const round3 = (value: number): number => Math.round(value * 1000) / 1000;

export function computeRecoveryMetrics(outcome: RecoveryOutcome): RecoveryMetrics {
  const definition = outcome.fault.definition;
  const acted = actedConnections(outcome.faultEvents, definition);
  const spread = faultSpread(acted);
  const firstActedNs = spread?.firstNs ?? null;
  const reference = faultReference(acted, definition, outcome.injection.bracket.startedNs);
  const referenceNs = reference.ns;
  const exact = reference.exact;
  const referenceSource = reference.description;
  const actedByPort = faultMomentsByPort(acted);

  const clockDisagreements: string[] = [];
  // Each thread's own fault moment: the fault on its own connection, or the run's when the timeline did not name it.
  const ownFaultNs = outcome.threads.map((thread) => actedByPort.get(thread.faultedLocalPort) ?? null);
  const perThreadDetectionMs: (number | null)[] = outcome.threads.map((thread, index) => {
    if (thread.detectedNs === null) return null;
    const ownReferenceNs = ownFaultNs[index] ?? referenceNs;
    if (thread.detectedNs < ownReferenceNs) {
      clockDisagreements.push(
        `thread ${thread.threadIndex} detected ${elapsedMs(thread.detectedNs, ownReferenceNs).toFixed(3)} ms before its fault moment`,
      );
      return null;
    }
    return elapsedMs(ownReferenceNs, thread.detectedNs);
  });
  const detectedAfter = outcome.threads.filter((thread, index) => thread.detectedNs !== null && perThreadDetectionMs[index] !== null);
  const detectionTimes = detectedAfter.map((thread) => thread.detectedNs!);
  const recovered = outcome.threads.filter((thread) => thread.recoveredNs !== null);
  const removalNs = outcome.removal?.completedNs ?? null;
  const recoveryAfterRemovalMs = recovered.map((thread) => (removalNs === null ? null : elapsedMs(removalNs, thread.recoveredNs!)));
  const fromReference = (ns: bigint | null): number | null => (ns === null ? null : elapsedMs(referenceNs, ns));

  const firstDetectionMs = detectionTimes.length > 0 ? fromReference(minNs(detectionTimes)) : null;
  const propagationMs = detectionTimes.length > 0 ? fromReference(maxNs(detectionTimes)) : null;
  const fullRecoveryMs =
    recovered.length === outcome.threads.length && recovered.length > 0 ? fromReference(maxNs(recovered.map((t) => t.recoveredNs!))) : null;
  const lastRecoveryAfterRemovalMs = recovered.length === outcome.threads.length ? maxOf(recoveryAfterRemovalMs) : null;

  const detection = sortSamples(perThreadDetectionMs);
  const recovery = sortSamples(recoveryAfterRemovalMs);
  const causes = countBy(outcome.threads.map((thread) => thread.detectionCause));
  const metrics: Record<string, Metric> = {
    error_detection_latency_ms: ms(firstDetectionMs),
    error_propagation_latency_ms: ms(propagationMs),
    full_recovery_latency_ms: ms(fullRecoveryMs),
    recovery_after_removal_ms: ms(lastRecoveryAfterRemovalMs),
    thread_detection_p50_ms: ms(detection && quantile(detection, 0.5)),
    thread_detection_p95_ms: ms(detection && quantile(detection, 0.95)),
    thread_detection_max_ms: ms(detection && quantile(detection, 1)),
    thread_recovery_p50_ms: ms(recovery && quantile(recovery, 0.5)),
    thread_recovery_p95_ms: ms(recovery && quantile(recovery, 0.95)),
    thread_recovery_max_ms: ms(recovery && quantile(recovery, 1)),
    injection_api_ms: ms(elapsedMs(outcome.injection.bracket.startedNs, outcome.injection.bracket.completedNs), 'none'),
    injection_to_fault_ms: ms(firstActedNs === null ? null : elapsedMs(outcome.injection.bracket.startedNs, firstActedNs), 'none'),
    // The proxy's, not the client's: first to last moment the fault acted, over every connection.
    fault_spread_ms: ms(spread?.spreadMs ?? null, 'none'),
    threads_timed_from_own_fault: count(ownFaultNs.filter((ns) => ns !== null).length),
    threads_total: count(outcome.threads.length),
    threads_detected: count(detectedAfter.length),
    threads_recovered: count(recovered.length),
    reconnect_attempts_max: count(Math.max(0, ...outcome.threads.map((thread) => thread.reconnectAttempts))),
    false_alarms: count(outcome.threads.reduce((sum, thread) => sum + thread.falseAlarms, 0)),
  };

  const bound = machineBound(outcome.threads.length, outcome.cpuCount, spread?.spreadMs ?? null);
  const receivedPerThread = outcome.threads.map((thread) => thread.detectionCause);
  const received = countBy(receivedPerThread);
  const expected = definition.expected;
  const asExpected = expected === null ? null : receivedPerThread.every((cause) => cause === expected);
  const upperBound = 'an upper bound: timed from the start of the injecting call (no fault moment on the proxy timeline)';
  const notTheFault =
    asExpected === false
      ? `the clients received ${describeReceived(received)}, not ${RECEIVED_KIND_WORDS[expected!]} only: not scored as ${definition.label} detection`
      : null;

  const detectionTarget = DETECTION_TARGET_MS[definition.kind] ?? null;
  const targets: Target[] = [
    ...(detectionTarget === null
      ? []
      : [
          target(
            'error_detection_latency_ms',
            detectionTarget,
            firstDetectionMs,
            notTheFault ?? (exact ? null : `${upperBound}, not scored against the exact-moment target`),
          ),
        ]),
    target(
      'full_recovery_latency_ms',
      RECOVERY_TARGETS_MS.fullRecovery,
      fullRecoveryMs,
      exact
        ? null
        : `${upperBound}, not scored against the exact-moment target${fullRecoveryMs !== null && fullRecoveryMs < RECOVERY_TARGETS_MS.fullRecovery ? ` (being below ${RECOVERY_TARGETS_MS.fullRecovery} ms, so is the exact figure)` : ''}`,
    ),
  ];

  const notes = [
    `detection timed from the ${referenceSource}${exact ? ' (exact)' : ' (every latency from it is an upper bound)'}${actedByPort.size > 0 ? "; per-thread detection from the moment the fault acted on that thread's own connection" : ''}`,
    `fault: ${faultWords(outcome)}; the clients received ${describeReceived(received)}`,
    `recovery proved by a message round trip on the new connection; timed from the completed removal of the fault${outcome.removal?.method === 'entry_recreated' ? ' (the proxy entry was re-created: its removal got no answer)' : ''}`,
  ];
  notes.push(spreadNote(spread, acted.length, outcome.threads.length, ownFaultNs));
  notes.push(bound.note);
  if (notTheFault) notes.push(notTheFault);
  if (clockDisagreements.length > 0) notes.push(`clock disagreement flagged, excluded from figures: ${clockDisagreements.join('; ')}`);

  const fault = faultRecord({
    fault: outcome.fault,
    preFaults: outcome.preFault ? [outcome.preFault.fault] : [],
    injection: outcome.injection,
    reference,
    receivedPerThread,
    removal: outcome.removal,
  });
  const faultProxy: FaultProxy = {
    kind: outcome.proxyServer.kind,
    version: outcome.proxyServer.version,
    label: describeProxyServer(outcome.proxyServer),
  };

  return {
    metrics,
    samples: {
      thread_detection_ms: detection ? [...detection] : [],
      thread_recovery_ms: recovery ? [...recovery] : [],
    },
    targets,
    details: {
      kind: 'recovery',
      reference: referenceSource,
      // The raw brackets, monotonic ns as decimal strings: every figure above can be re-derived.
      injection_bracket_ns: {
        started: String(outcome.injection.bracket.startedNs),
        completed: String(outcome.injection.bracket.completedNs),
      },
      fault_acted_ns: firstActedNs === null ? null : String(firstActedNs),
      removal_bracket_ns: outcome.removal
        ? { started: String(outcome.removal.startedNs), completed: String(outcome.removal.completedNs) }
        : null,
      detection_causes: causes,
      reference_exact: exact,
      clock_disagreements: clockDisagreements,
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
      fault_timeline: acted.map((one) => ({ client_port: one.clientPort, acted_ns: String(one.timeNs) })),
      clock_anchor: outcome.clockAnchor && { monotonic_ns: String(outcome.clockAnchor.monotonicNs), epoch_ms: outcome.clockAnchor.epochMs },
      machine: { threads: bound.threads, cpu_count: bound.cpuCount, machine_bound: bound.machineBound },
      removal_after_reference_ms: removalNs === null ? null : round3(elapsedMs(referenceNs, removalNs)),
      threads: outcome.threads.map((thread, index) =>
        threadDetail(thread, {
          detectionMs: perThreadDetectionMs[index] ?? null,
          ownFaultNs: ownFaultNs[index] ?? null,
          referenceNs,
          removalNs,
        }),
      ),
    },
    notes,
    fault,
    faultProxy,
  };
}

/**
 * What BENCH_STRICT_TARGETS fails a test on: a missed target, or one without a value. A target
 * left unscored on purpose (an upper bound; not the fault it is about) is neither.
 */
export function missedOrUnmeasured(target: Target): boolean {
  return target.met === false || (target.met === null && target.reason === undefined);
}

/**
 * A `<` target in ms on one measurement (replicates judge it again on their interval);
 * `notScoredBecause` makes `met` null (with the reason) whatever the value.
 */
function target(metric: string, thresholdMs: number, value: number | null, notScoredBecause: string | null = null): Target {
  return judgedTarget({ metric, comparator: '<', threshold: thresholdMs, unit: 'ms' }, [value], notScoredBecause ?? undefined);
}

/** What one thread went through, in ms: its fault moment, detection and recovery from the run's reference (for the timeline chart). */
function threadDetail(
  thread: ThreadRecord,
  moments: { detectionMs: number | null; ownFaultNs: bigint | null; referenceNs: bigint; removalNs: bigint | null },
): RecoveryThread {
  const { referenceNs, removalNs } = moments;
  const fromReference = (ns: bigint | null): number | null => (ns === null ? null : round3(elapsedMs(referenceNs, ns)));
  return {
    thread: thread.threadIndex,
    detection_ms: moments.detectionMs === null ? null : round3(moments.detectionMs),
    detection_cause: thread.detectionCause,
    // null when the timeline did not name this thread's connection: its detection_ms is then from the run's reference.
    fault_after_reference_ms: fromReference(moments.ownFaultNs),
    detected_after_reference_ms: fromReference(thread.detectedNs),
    recovered_after_reference_ms: fromReference(thread.recoveredNs),
    recovered_after_removal_ms: thread.recoveredNs === null || removalNs === null ? null : round3(elapsedMs(removalNs, thread.recoveredNs)),
    reconnect_attempts: thread.reconnectAttempts,
    deliveries_before_fault: thread.deliveries,
    ...(thread.error ? { error: thread.error } : {}),
  };
}

/** What the fault spread is, or why there is none, and how many threads were timed from their own fault moment. */
function spreadNote(spread: FaultSpread | null, actedConnections: number, threads: number, ownFaultNs: readonly (bigint | null)[]): string {
  if (spread === null)
    return 'fault_spread_ms: not measured — this proxy has no fault timeline (real Toxiproxy); a packet capture of its listen port can give it (docs: methodology)';
  const own = ownFaultNs.filter((ns) => ns !== null).length;
  return `fault_spread_ms: the proxy's timeline puts the fault on ${actedConnections} connection(s) over ${spread.spreadMs.toFixed(3)} ms (first to last); ${own} of ${threads} thread(s) timed from the fault on their own connection${own < threads ? ', the others from the first' : ''}`;
}

function minNs(values: readonly bigint[]): bigint {
  return values.reduce((min, value) => (value < min ? value : min));
}

function maxNs(values: readonly bigint[]): bigint {
  return values.reduce((max, value) => (value > max ? value : max));
}

function maxOf(values: readonly (number | null)[]): number | null {
  const finite = values.filter((value): value is number => value !== null);
  return finite.length === 0 ? null : Math.max(...finite);
}

function countBy(values: readonly string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const value of values) counts[value] = (counts[value] ?? 0) + 1;
  return counts;
}

/** `reset_peer (timeout_ms=0) armed at toxicity 0 before the threads connected, then raised to 1, through <proxy>`. */
function faultWords(outcome: RecoveryOutcome): string {
  const how: Readonly<Record<string, string>> = {
    armed: 'armed at toxicity 0 before the threads connected, then raised to 1',
    added: 'added while the threads were connected',
    broker_action: "by a broker action on the threads' own connections",
    node_action: 'by a node action',
  };
  const kinds = [...(outcome.preFault ? [outcome.preFault.fault.kind] : []), outcome.fault.kind].join(' then ');
  const through = outcome.fault.definition.layer === 'network' ? `, through ${describeProxyServer(outcome.proxyServer)}` : '';
  return `${kinds} ${how[outcome.injection.mode] ?? outcome.injection.mode}${through}`;
}
