/**
 * A fault-matrix cell as a raw result (pure): per thread, when it noticed the fault (timed from
 * the fault's own moment on its connection when the proxy saw it, else from the injecting call:
 * an upper bound) and by what, when it was back (timed from the fault's removal as the broker or
 * the proxy saw it), and the class of every publish; for a silence, the heartbeat judged over the
 * phases its threads met; the cell's findings, each with its evidence, and its verdict: ⚠ (the
 * harness's own part failed), ❌ with what failed, or ✅.
 */
import { describeProxyServer } from '../faults';
import { actedConnections, faultMomentsByPort, faultReference, faultSpread, removalReference } from '../faults/moments';
import { faultRecord } from '../faults/record';
import { elapsedMs } from '../measure/clock';
import { round3 } from '../measure/round';
import type { Metric } from '../results/rawResult';
import type { FaultProxy, Fault as FaultRecord } from '../schemaTypes';
import { accountPublishes, sumAccounts } from './accounting';
import { findingsOf } from './findings';
import { judgeHeartbeat } from './heartbeat';
import { matrixMetrics } from './metrics';
import { matrixNotes } from './notes';
import type { MatrixOutcome } from './scenario';
import { threadDetail } from './threadDetail';
import { harnessProblemsOf, verdictOf } from './verdict';

/** A thread's record, the cell's verdict and its details: typed by schemas/matrix-details.schema.json. */
import type { MatrixDetails, MatrixThread as MatrixThreadDetail, MatrixVerdict } from '../schemaTypes';
export type { MatrixDetails, MatrixThreadDetail, MatrixVerdict };

export interface MatrixContext {
  /** The heartbeat interval the client was given (the normalised profile); undefined: its library's default, unknown here. */
  readonly heartbeatSeconds?: number;
  /** How the library notices a silent peer when that is not the protocol's heartbeat check (its adapter's words). */
  readonly silenceCheck?: string;
}

export interface MatrixResult {
  readonly metrics: Record<string, Metric>;
  readonly details: MatrixDetails;
  readonly notes: string[];
  readonly fault: FaultRecord;
  readonly faultProxy: FaultProxy;
  readonly verdict: MatrixVerdict;
}

/** The fault's moments, every publish's account and each thread's record. */
function threadsOf(outcome: MatrixOutcome) {
  const definition = outcome.fault.definition;
  const injectedNs = outcome.injection?.bracket.startedNs ?? outcome.startedNs;
  const acted = actedConnections(outcome.faultEvents, definition);
  const reference = faultReference(acted, definition, injectedNs);
  const faultByPort = faultMomentsByPort(acted);
  const removal = outcome.removal
    ? removalReference(outcome.faultEvents, definition, outcome.removal, { reference, byPort: faultByPort })
    : null;
  // Until the fault was undone (within its injection, or at its removal), what it destroyed is its own loss.
  const faultLossBeforeNs = definition.destroysMessages
    ? (outcome.removal?.completedNs ?? outcome.injection?.bracket.completedNs ?? null)
    : null;
  const accounts = outcome.threads.map((report, thread) =>
    accountPublishes({
      report,
      leftInQueue: outcome.leftInQueue[thread] ?? new Map(),
      injectionStartedNs: outcome.injection?.bracket.startedNs ?? null,
      faultLossBeforeNs,
    }),
  );
  const threads: MatrixThreadDetail[] = outcome.threads.map((report, thread) =>
    threadDetail({
      thread,
      report,
      account: accounts[thread]!,
      board: outcome.board,
      expected: definition.expected,
      reference,
      faultByPort,
      removal,
      removalCompletedNs: outcome.removal?.completedNs ?? null,
      injectedNs,
      events: outcome.faultEvents,
      heartbeatIntervalMs: outcome.options.heartbeatIntervalMs,
      messageBytes: outcome.options.messageBytes,
      leftInQueue: outcome.leftInQueue[thread] ?? new Map(),
    }),
  );
  return { injectedNs, acted, reference, removal, total: sumAccounts(accounts), threads };
}

/**
 * Connection attempts the broker side refused while the fault held (the proxy could not reach it),
 * from the proxy's connection list; absent when the proxy keeps none or there were none.
 */
function refusedAttempts(outcome: MatrixOutcome, referenceNs: bigint): Pick<MatrixDetails, 'refused_attempts'> {
  const fromNs = outcome.injection?.bracket.startedNs;
  const untilNs = outcome.removal?.completedNs ?? outcome.settleStartedNs;
  if (!outcome.proxyConnections || fromNs === undefined || untilNs === null) return {};
  const moments = outcome.proxyConnections
    .filter((connection) => connection.close_reason === 'upstream_unreachable' && connection.opened_at_ns !== undefined)
    .map((connection) => BigInt(connection.opened_at_ns!))
    .filter((openedNs) => openedNs >= fromNs && openedNs <= untilNs)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  if (moments.length === 0) return {};
  const at = (ns: bigint) => round3(elapsedMs(referenceNs, ns));
  return { refused_attempts: { count: moments.length, first_at_ms: at(moments[0]!), last_at_ms: at(moments.at(-1)!) } };
}

function refusedMetric({ refused_attempts: refused }: Pick<MatrixDetails, 'refused_attempts'>): Record<string, Metric> {
  return refused ? { refused_attempts: { value: refused.count, unit: 'count', direction: 'none' } } : {};
}

function refusedNote({ refused_attempts: refused }: Pick<MatrixDetails, 'refused_attempts'>): string[] {
  return refused
    ? [
        `${refused.count} connection attempt(s) refused on the broker side while the fault held, ${refused.first_at_ms} to ${refused.last_at_ms} ms after its moment (the proxy's connection list; counted for the cell, not per thread)`,
      ]
    : [];
}

/** A silence not every thread noticed by itself: why, in the library's own terms, where its adapter says how it notices. */
function silenceFindings(heartbeat: ReturnType<typeof judgeHeartbeat>): string[] {
  return heartbeat?.judgement === 'not_by_itself' && heartbeat.check ? [`how the library notices a silence: ${heartbeat.check}`] : [];
}

export function computeMatrixResult(outcome: MatrixOutcome, context: MatrixContext = {}): MatrixResult {
  const definition = outcome.fault.definition;
  const { injectedNs, acted, reference, removal, total, threads } = threadsOf(outcome);
  const refused = refusedAttempts(outcome, reference.ns);
  const metrics = { ...matrixMetrics(threads, total, outcome.threads[0]?.closeCheck ?? null), ...refusedMetric(refused) };
  const throughToxiproxy =
    definition.embeddedProxyOnly && outcome.proxyServer.kind !== 'embedded'
      ? `through ${describeProxyServer(outcome.proxyServer)}, which does not do what the embedded proxy does here: ${definition.embeddedProxyOnly}`
      : null;
  const heartbeat = judgeHeartbeat(definition.expected, context.heartbeatSeconds, threads, context.silenceCheck);
  const findings = [...findingsOf(outcome, threads, total, throughToxiproxy), ...silenceFindings(heartbeat)];
  const harnessProblems = harnessProblemsOf(outcome, definition, acted.length);
  const verdict = verdictOf(harnessProblems, findings, metrics, threads, outcome);
  const closeCheck = outcome.threads[0]?.closeCheck ?? null;
  const spread = faultSpread(acted);
  const { options } = outcome;
  return {
    metrics,
    details: {
      kind: 'fault_matrix',
      verdict,
      reference: reference.description,
      ...(removal ? { removal_reference: { description: removal.description, exact: removal.exact, source: removal.source } } : {}),
      bounds_ms: {
        detection: options.detectionBoundMs,
        hold: options.holdMs,
        recovery: options.recoveryBoundMs,
        settle: options.settleMs,
        close: options.closeBoundMs,
      },
      confirm_window: options.confirmWindow,
      publish_interval_ms: options.publishIntervalMs,
      in_flight_at_fault: total.inFlightAtFault,
      during_fault: total.duringFault,
      close_while_blocked: closeCheck
        ? {
            close_ms: closeCheck.closeMs,
            bound_ms: closeCheck.boundMs,
            cut_by_adapter_bound: closeCheck.hitAdapterBound,
            ...(closeCheck.error ? { error: closeCheck.error } : {}),
          }
        : null,
      probes: { ...outcome.probes },
      ...refused,
      threads,
      harness_problems: harnessProblems,
      ...(heartbeat ? { heartbeat } : {}),
    },
    notes: [
      ...matrixNotes({
        outcome,
        reference,
        removal,
        heartbeat,
        throughToxiproxy,
        threads,
        spread: spread
          ? `fault spread ${round3(spread.spreadMs)} ms over ${spread.connections} connection(s) (the proxy's timeline)`
          : null,
      }),
      ...refusedNote(refused),
    ],
    fault: faultRecord({
      fault: outcome.fault,
      injection: outcome.injection ?? { bracket: { startedNs: injectedNs, completedNs: injectedNs }, mode: 'broker_action' },
      reference,
      receivedPerThread: threads.map((thread) => thread.detected_by),
      removal: outcome.removal,
    }),
    faultProxy: { kind: outcome.proxyServer.kind, version: outcome.proxyServer.version, label: describeProxyServer(outcome.proxyServer) },
    verdict,
  };
}
