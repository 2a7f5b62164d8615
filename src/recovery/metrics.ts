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
import type { RecoveryDetails } from '../results/recoveryDetails';
import { describeProxyServer } from '../faults';
import { faultRecord } from '../faults/record';
import { elapsedMs } from '../measure/clock';
import { quantile, sortSamples } from '../measure/statistics';
import { countMetric, msMetric } from '../results/metricValues';
import type { Metric, Target } from '../results/rawResult';
import { judgedTarget } from '../results/targetVerdict';
import type { Fault, FaultProxy } from '../schemaTypes';
import type { FaultSpread } from '../faults/moments';
import { PUBLISHED_TARGETS } from '../scenarios/targets';
import { machineBound } from './machineBound';
import { countBy, recoveryDetailsOf } from './metricsDetails';
import { runMoments, type RunMoments } from './runMoments';
import { describeReceived, RECEIVED_KIND_WORDS, type ReceivedKind } from '../client/faults';
import type { RecoveryOutcome } from './scenario';

export { describeReceived } from '../client/faults';

/** The published recovery targets in ms (src/scenarios/targets.ts: the one place they are written). */
const RECOVERY_TARGETS_MS = {
  rstDetection: PUBLISHED_TARGETS.rstDetection.threshold,
  partitionDetection: PUBLISHED_TARGETS.partitionDetection.threshold,
  fullRecovery: PUBLISHED_TARGETS.fullRecovery.threshold,
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

const ms = msMetric;
const count = countMetric;

export function computeRecoveryMetrics(outcome: RecoveryOutcome): RecoveryMetrics {
  const moments = runMoments(outcome);
  const { figures, samples, firstDetectionMs, fullRecoveryMs } = recoveryFigures(outcome, moments);
  const bound = machineBound(outcome.threads.length, outcome.cpuCount, moments.spread?.spreadMs ?? null);
  const receivedPerThread = outcome.threads.map((thread) => thread.detectionCause);
  const notTheFault = notTheFaultWords(outcome.fault.definition, receivedPerThread);
  const notes = [
    `detection timed from the ${moments.reference.description}${moments.reference.exact ? ' (exact)' : ' (every latency from it is an upper bound)'}${moments.actedByPort.size > 0 ? "; per-thread detection from the moment the fault acted on that thread's own connection" : ''}`,
    `fault: ${faultWords(outcome)}; the clients received ${describeReceived(countBy(receivedPerThread))}`,
    `recovery proved by a message round trip on the new connection; timed from the completed removal of the fault${outcome.removal?.method === 'entry_recreated' ? ' (the proxy entry was re-created: its removal got no answer)' : ''}`,
    spreadNote(moments.spread, moments.acted.length, outcome.threads.length, moments.ownFaultNs),
    bound.note,
    ...(notTheFault ? [notTheFault] : []),
    ...(moments.clockDisagreements.length > 0
      ? [`clock disagreement flagged, excluded from figures: ${moments.clockDisagreements.join('; ')}`]
      : []),
  ];
  return {
    metrics: figures,
    samples,
    targets: recoveryTargets(outcome.fault.definition, moments.reference.exact, { firstDetectionMs, fullRecoveryMs }, notTheFault),
    details: recoveryDetailsOf(outcome, moments, bound),
    notes,
    fault: faultRecord({
      fault: outcome.fault,
      preFaults: outcome.preFault ? [outcome.preFault.fault] : [],
      injection: outcome.injection,
      reference: moments.reference,
      receivedPerThread,
      removal: outcome.removal,
    }),
    faultProxy: {
      kind: outcome.proxyServer.kind,
      version: outcome.proxyServer.version,
      label: describeProxyServer(outcome.proxyServer),
    },
  };
}

/** The run's figures: first detection, propagation, full recovery and recovery after removal, each thread's own delays, counts. */
function recoveryFigures(outcome: RecoveryOutcome, moments: RunMoments) {
  const { threads, injection } = outcome;
  const { reference, removalNs, spread } = moments;
  const detectedAfter = threads.filter((thread, index) => thread.detectedNs !== null && moments.detectionMs[index] !== null);
  const detectionTimes = detectedAfter.map((thread) => thread.detectedNs!);
  const recovered = threads.filter((thread) => thread.recoveredNs !== null);
  const everyRecovered = recovered.length === threads.length && recovered.length > 0;
  const recoveryAfterRemovalMs = recovered.map((thread) => (removalNs === null ? null : elapsedMs(removalNs, thread.recoveredNs!)));
  const fromReference = (ns: bigint): number => elapsedMs(reference.ns, ns);
  const detection = sortSamples(moments.detectionMs);
  const recovery = sortSamples(recoveryAfterRemovalMs);
  const firstDetectionMs = detectionTimes.length > 0 ? fromReference(minNs(detectionTimes)) : null;
  const fullRecoveryMs = everyRecovered ? fromReference(maxNs(recovered.map((thread) => thread.recoveredNs!))) : null;
  const figures: Record<string, Metric> = {
    error_detection_latency_ms: ms(firstDetectionMs),
    error_propagation_latency_ms: ms(detectionTimes.length > 0 ? fromReference(maxNs(detectionTimes)) : null),
    full_recovery_latency_ms: ms(fullRecoveryMs),
    recovery_after_removal_ms: ms(recovered.length === threads.length && recovery ? quantile(recovery, 1) : null),
    thread_detection_p50_ms: ms(detection && quantile(detection, 0.5)),
    thread_detection_p95_ms: ms(detection && quantile(detection, 0.95)),
    thread_detection_max_ms: ms(detection && quantile(detection, 1)),
    thread_recovery_p50_ms: ms(recovery && quantile(recovery, 0.5)),
    thread_recovery_p95_ms: ms(recovery && quantile(recovery, 0.95)),
    thread_recovery_max_ms: ms(recovery && quantile(recovery, 1)),
    injection_api_ms: ms(elapsedMs(injection.bracket.startedNs, injection.bracket.completedNs), 'none'),
    injection_to_fault_ms: ms(spread === null ? null : elapsedMs(injection.bracket.startedNs, spread.firstNs), 'none'),
    // The proxy's, not the client's: first to last moment the fault acted, over every connection.
    fault_spread_ms: ms(spread?.spreadMs ?? null, 'none'),
    threads_timed_from_own_fault: count(moments.ownFaultNs.filter((ns) => ns !== null).length),
    threads_total: count(threads.length),
    threads_detected: count(detectedAfter.length),
    threads_recovered: count(recovered.length),
    reconnect_attempts_max: count(Math.max(0, ...threads.map((thread) => thread.reconnectAttempts))),
    false_alarms: count(threads.reduce((sum, thread) => sum + thread.falseAlarms, 0)),
  };
  return {
    figures,
    samples: { thread_detection_ms: detection ? [...detection] : [], thread_recovery_ms: recovery ? [...recovery] : [] },
    firstDetectionMs,
    fullRecoveryMs,
  };
}

/** Why a detection target is not scored: the clients received something else than the fault's own signal (null when they did not). */
function notTheFaultWords(definition: RecoveryOutcome['fault']['definition'], receivedPerThread: readonly ReceivedKind[]): string | null {
  const expected = definition.expected;
  if (expected === null || receivedPerThread.every((cause) => cause === expected)) return null;
  return `the clients received ${describeReceived(countBy(receivedPerThread))}, not ${RECEIVED_KIND_WORDS[expected]} only: not scored as ${definition.label} detection`;
}

const UPPER_BOUND = 'an upper bound: timed from the start of the injecting call (no fault moment on the proxy timeline)';

/** The specification's targets of the run: its fault's detection target, where it has one, and full recovery. */
function recoveryTargets(
  definition: RecoveryOutcome['fault']['definition'],
  exact: boolean,
  { firstDetectionMs, fullRecoveryMs }: { firstDetectionMs: number | null; fullRecoveryMs: number | null },
  notTheFault: string | null,
): Target[] {
  const detectionTarget = DETECTION_TARGET_MS[definition.kind] ?? null;
  const notExact = `${UPPER_BOUND}, not scored against the exact-moment target`;
  return [
    ...(detectionTarget === null
      ? []
      : [target('error_detection_latency_ms', detectionTarget, firstDetectionMs, notTheFault ?? (exact ? null : notExact))]),
    target(
      'full_recovery_latency_ms',
      RECOVERY_TARGETS_MS.fullRecovery,
      fullRecoveryMs,
      exact
        ? null
        : `${notExact}${fullRecoveryMs !== null && fullRecoveryMs < RECOVERY_TARGETS_MS.fullRecovery ? ` (being below ${RECOVERY_TARGETS_MS.fullRecovery} ms, so is the exact figure)` : ''}`,
    ),
  ];
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
