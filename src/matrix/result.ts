/**
 * A fault-matrix cell as a raw result (pure): per thread, when it noticed the fault (timed from
 * the fault's own moment on its connection when the proxy saw it, else from the injecting call:
 * an upper bound), when it was back (its own message, published after the removal, delivered),
 * and the fate of every publish; the cell's findings, each with its evidence (what a thread was
 * awaiting, the library's last event), and its verdict: ✅ with detection and recovery, or ❌ with
 * what failed.
 */
import { RECEIVED_KINDS } from '../client/faults';
import { unhandledFinding } from '../client/unhandledTrap';
import { describeProxyServer } from '../faults';
import { actedConnections, faultMomentsByPort, faultReference, faultSpread } from '../faults/moments';
import { faultRecord } from '../faults/record';
import { elapsedMs } from '../measure/clock';
import type { Metric } from '../results/rawResult';
import type { FaultProxy, Fault as FaultRecord } from '../schemaTypes';
import { accountPublishes, sumAccounts, type PublishAccount } from './accounting';
import { MatrixInt, MatrixTime } from './board';
import type { MatrixOutcome } from './scenario';

/** A thread's record, the cell's verdict and its details: typed by schemas/matrix-details.schema.json. */
import type { MatrixDetails, MatrixThread as MatrixThreadDetail, MatrixVerdict } from '../schemaTypes';
export type { MatrixDetails, MatrixThreadDetail, MatrixVerdict };

/** What "a little" past two heartbeat intervals is: a timer's tick, the socket's last read. */
export const HEARTBEAT_SLACK_MS = 1000;

export interface MatrixContext {
  /** The heartbeat interval the client was given (the normalised profile); undefined: its library's default, unknown here. */
  readonly heartbeatSeconds?: number;
}

export interface MatrixResult {
  readonly metrics: Record<string, Metric>;
  readonly details: MatrixDetails;
  readonly notes: string[];
  readonly fault: FaultRecord;
  readonly faultProxy: FaultProxy;
  readonly verdict: MatrixVerdict;
}

const round3 = (value: number): number => Math.round(value * 1000) / 1000;
const ms = (value: number | null, direction: Metric['direction'] = 'lower'): Metric => ({
  value: value === null ? null : round3(value),
  unit: 'ms',
  direction,
});
const count = (value: number, direction: Metric['direction'] = 'none'): Metric => ({ value, unit: 'count', direction });
const seconds = (valueMs: number) => `${Math.round(valueMs / 100) / 10} s`;

export function computeMatrixResult(outcome: MatrixOutcome, context: MatrixContext = {}): MatrixResult {
  const definition = outcome.fault.definition;
  const injectedNs = outcome.injection?.bracket.startedNs ?? outcome.startedNs;
  const acted = actedConnections(outcome.faultEvents, definition);
  const reference = faultReference(acted, definition, injectedNs);
  const ownMoment = faultMomentsByPort(acted);
  const { board } = outcome;
  const removedNs = outcome.removedNs;
  const since = (ns: bigint, from: bigint | null) => (ns === 0n || from === null ? null : elapsedMs(from, ns));
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
  const total = sumAccounts(accounts);
  const threads: MatrixThreadDetail[] = outcome.threads.map((report, thread) => {
    const account = accounts[thread]!;
    const own = ownMoment.get(board.int(thread, MatrixInt.LOCAL_PORT)) ?? reference.ns;
    const detectedNs = board.time(thread, MatrixTime.DETECTED);
    const detectionMs = detectedNs === 0n ? null : Math.max(0, elapsedMs(own, detectedNs));
    return {
      thread,
      detection_ms: detectionMs === null ? null : round3(detectionMs),
      detected_by: detectedNs === 0n ? 'none' : (RECEIVED_KINDS[board.int(thread, MatrixInt.DETECTED_KIND)] ?? 'error'),
      detected_after_removal: detectedNs !== 0n && removedNs !== null && detectedNs > removedNs,
      recovered_ms: rounded(since(board.time(thread, MatrixTime.RECOVERED), reference.ns)),
      recovered_after_removal_ms: rounded(since(board.time(thread, MatrixTime.RECOVERED), removedNs)),
      publisher_back_after_removal_ms: rounded(since(board.time(thread, MatrixTime.PUBLISHER_BACK), removedNs)),
      consumer_back_after_removal_ms: rounded(since(board.time(thread, MatrixTime.CONSUMER_BACK), removedNs)),
      published: account.total,
      confirmed: account.confirmed,
      nacked: account.nacked,
      rejected: account.rejected,
      hung: account.hung,
      confirmed_lost: account.confirmedLost,
      duplicates: account.duplicates,
      rejections: report.rejections.map(({ message, count: times }) => ({ message, count: times })),
      events: report.events.map((event) => ({
        source: event.source,
        kind: event.kind,
        message: event.message,
        at_ms: round3(elapsedMs(reference.ns, BigInt(event.atNs))),
      })),
      unhandled: [...report.unhandled],
      close_ms: report.closeMs === null ? null : round3(report.closeMs),
      ...(report.error ? { error: report.error } : {}),
    };
  });

  const detections = threads.map((thread) => thread.detection_ms).filter((value): value is number => value !== null);
  const recoveries = threads.map((thread) => thread.recovered_ms);
  const afterRemoval = threads.map((thread) => thread.recovered_after_removal_ms);
  const allRecovered = threads.length > 0 && recoveries.every((value) => value !== null);
  const closeCheck = outcome.threads[0]?.closeCheck ?? null;
  const metrics: Record<string, Metric> = {
    error_detection_latency_ms: ms(detections.length > 0 ? Math.min(...detections) : null),
    error_propagation_latency_ms: ms(detections.length === threads.length && threads.length > 0 ? Math.max(...detections) : null),
    full_recovery_latency_ms: ms(allRecovered ? Math.max(...recoveries) : null),
    recovery_after_removal_ms: ms(allRecovered ? Math.max(...(afterRemoval as number[])) : null),
    threads_total: count(threads.length),
    threads_detected: count(detections.length),
    threads_recovered: count(recoveries.filter((value) => value !== null).length),
    publishers_back: count(threads.filter((thread) => thread.publisher_back_after_removal_ms !== null).length),
    consumers_back: count(threads.filter((thread) => thread.consumer_back_after_removal_ms !== null).length),
    messages_published: count(total.total),
    messages_confirmed: count(total.confirmed),
    publishes_nacked: count(total.nacked),
    publishes_rejected: count(total.rejected),
    publishes_hung: count(total.hung, 'lower'),
    messages_lost: count(total.confirmedLost, 'lower'),
    confirmed_still_queued: count(total.confirmedQueued),
    lost_to_fault: count(total.lostToFault),
    rejected_delivered_anyway: count(total.rejectedDeliveredAnyway),
    duplicates: count(total.duplicates),
    in_flight_at_fault: count(total.inFlightAtFault.total),
    max_settle_ms: ms(total.maxSettleMs, 'none'),
    unhandled_errors: count(
      threads.reduce((sum, thread) => sum + thread.unhandled.length, 0),
      'lower',
    ),
    ...(closeCheck ? { close_while_blocked_ms: ms(closeCheck.closeMs) } : {}),
  };

  const findings = findingsOf(outcome, threads, total, closeCheck);
  const verdict = verdictOf(findings, metrics, outcome);
  const fault = faultRecord({
    fault: outcome.fault,
    injection: outcome.injection ?? { bracket: { startedNs: injectedNs, completedNs: injectedNs }, mode: 'broker_action' },
    reference,
    receivedPerThread: threads.map((thread) => thread.detected_by),
    removal: outcome.removal,
  });
  const spread = faultSpread(acted);
  const heartbeat = heartbeatWindow(definition.expected, context.heartbeatSeconds, metrics.error_propagation_latency_ms?.value ?? null);
  const notes = [
    `detection timed from the ${reference.description}${reference.exact ? ' (exact), per thread from the moment the fault acted on its own connection' : ' (an upper bound)'}; recovery: the first of the thread's own messages published after the fault's removal delivered to its own consumer`,
    `${outcome.options.threads} threads, each one connection of the client publishing with confirms (window ${outcome.options.confirmWindow}, one publish every ${outcome.options.publishIntervalMs} ms) into its own queue and consuming it (manual ack, prefetch ${outcome.options.prefetch}); the harness's probes (straight to each queue after the removal) tell a consumer that works from a publisher that does not`,
    `every publish ends in one class: confirmed, nacked, rejected (the library's error), or hung (not settled ${seconds(outcome.options.settleMs)} after publishing stopped); confirmed ones are then delivered, still queued, or lost${definition.destroysMessages ? ` (the fault's own loss counted apart: ${definition.destroysMessages})` : ''}`,
    ...(spread ? [`fault spread ${round3(spread.spreadMs)} ms over ${spread.connections} connection(s) (the proxy's timeline)`] : []),
    ...(heartbeat
      ? [
          `heartbeat ${heartbeat.interval_s} s: the protocol's window is ${seconds(heartbeat.window_ms.low)} to ${seconds(heartbeat.window_ms.high)} (one to two intervals, plus ${seconds(HEARTBEAT_SLACK_MS)}); the slowest thread noticed ${heartbeat.slowest_detection_ms === null ? 'never' : `after ${seconds(heartbeat.slowest_detection_ms)}`}: ${heartbeat.within ? 'within it' : 'the client does not honour the heartbeat it was given'}`,
        ]
      : []),
  ];
  return {
    metrics,
    details: {
      kind: 'fault_matrix',
      verdict,
      reference: reference.description,
      bounds_ms: {
        detection: outcome.options.detectionBoundMs,
        hold: outcome.options.holdMs,
        recovery: outcome.options.recoveryBoundMs,
        settle: outcome.options.settleMs,
        close: outcome.options.closeBoundMs,
      },
      confirm_window: outcome.options.confirmWindow,
      publish_interval_ms: outcome.options.publishIntervalMs,
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
      threads,
      harness_problems: [...outcome.harnessProblems],
      ...(heartbeat ? { heartbeat } : {}),
    },
    notes,
    fault,
    faultProxy: { kind: outcome.proxyServer.kind, version: outcome.proxyServer.version, label: describeProxyServer(outcome.proxyServer) },
    verdict,
  };
}

/** The heartbeat window of a silent fault on a client with a known interval; undefined otherwise. */
function heartbeatWindow(
  expected: string | null,
  intervalSeconds: number | undefined,
  slowestMs: number | null,
): MatrixDetails['heartbeat'] {
  if (expected !== 'heartbeat' || intervalSeconds === undefined) return undefined;
  const low = intervalSeconds * 1000;
  const high = 2 * intervalSeconds * 1000 + HEARTBEAT_SLACK_MS;
  return {
    interval_s: intervalSeconds,
    window_ms: { low, high },
    slowest_detection_ms: slowestMs,
    within: slowestMs !== null && slowestMs <= high,
  };
}

function rounded(value: number | null): number | null {
  return value === null ? null : round3(value);
}

/** The library's last event of a thread, as evidence: `broker_closed "CONNECTION_FORCED ..." at +3.1 ms`. */
function lastEvent(thread: MatrixThreadDetail): string {
  const event = thread.events.at(-1);
  return event ? `its last event: ${event.kind} "${event.message.slice(0, 120)}" at ${event.at_ms} ms` : 'the library gave no event at all';
}

/** Every finding of the cell, each with its evidence. */
function findingsOf(
  outcome: MatrixOutcome,
  threads: readonly MatrixThreadDetail[],
  total: PublishAccount,
  closeCheck: MatrixOutcome['threads'][number]['closeCheck'] | null,
): string[] {
  const findings: string[] = [];
  const { options } = outcome;
  for (const thread of threads) {
    const who = `thread ${thread.thread}`;
    if (thread.error) findings.push(`${who}: ${thread.error}`);
    if (thread.detected_after_removal && !/not noticed/.test(findings.at(-1) ?? ''))
      findings.push(
        `${who}: not noticed within ${seconds(options.detectionBoundMs)}: it learned of the fault only after the harness removed it (${thread.detected_by})`,
      );
    if (thread.recovered_ms !== null) continue;
    if (thread.detection_ms === null)
      findings.push(`${who}: not noticed within ${seconds(options.detectionBoundMs)} and not back (${lastEvent(thread)})`);
    if (thread.consumer_back_after_removal_ms === null)
      findings.push(
        `${who}: stopped consuming: nothing delivered (not even the harness's probes) within ${seconds(options.recoveryBoundMs)} of the removal (${lastEvent(thread)})`,
      );
    else if (thread.publisher_back_after_removal_ms === null) {
      const rejection = thread.rejections.at(-1);
      findings.push(
        `${who}: publisher never came back: its consumer got the probes, but none of its own publishes after the removal was confirmed within ${seconds(options.recoveryBoundMs)}${rejection ? ` (rejected ${rejection.count}×: "${rejection.message}")` : ''}`,
      );
    } else findings.push(`${who}: not back within ${seconds(options.recoveryBoundMs)} of the removal (${lastEvent(thread)})`);
  }
  if (total.hung > 0) {
    const oldest = total.oldestHung;
    const start = outcome.injection?.bracket.startedNs ?? outcome.startedNs;
    findings.push(
      `${total.hung} publish(es) hung: not settled ${seconds(options.settleMs)} after publishing stopped (awaiting their confirm${oldest ? `; the oldest, #${oldest.seq}, published ${round3(elapsedMs(start, oldest.publishedNs))} ms after the injection` : ''})`,
    );
  }
  if (total.confirmedLost > 0) findings.push(`${total.confirmedLost} confirmed message(s) lost: never delivered and not in the queue`);
  for (const thread of threads) {
    const trapped = unhandledFinding(`thread ${thread.thread}`, thread.unhandled);
    if (trapped) findings.push(trapped);
    if (thread.close_ms === null && !thread.error)
      findings.push(`thread ${thread.thread}: close() did not return within ${seconds(options.closeBoundMs)}`);
  }
  if (closeCheck && closeCheck.closeMs === null)
    findings.push(
      `close() of a blocked connection did not return within ${seconds(closeCheck.boundMs)}${closeCheck.error ? ` (${closeCheck.error})` : ''}`,
    );
  else if (closeCheck?.hitAdapterBound)
    findings.push(
      `close() of a blocked connection hung in the library: it returned after ${Math.round(closeCheck.closeMs ?? 0)} ms only because the adapter's own close bound cut it short (an application without one would wait for the unblock)`,
    );
  for (const report of outcome.threads)
    if (report.closeHitBound)
      findings.push(`thread ${report.threadIndex}: close() did not end by itself: the adapter's own bound cut the library's close short`);
  return findings;
}

/** ✅ `4.2 / 120 ms` (detection / recovery after removal), or ❌ and the first finding's gist. */
function verdictOf(findings: readonly string[], metrics: Readonly<Record<string, Metric>>, outcome: MatrixOutcome): MatrixVerdict {
  const number = (metric: string) => metrics[metric]?.value ?? null;
  if (findings.length > 0) return { ok: false, cell: `❌ ${gist(findings, outcome)}`, findings: [...findings] };
  const detection = number('error_propagation_latency_ms');
  const recovery = number('recovery_after_removal_ms');
  const noticed = detection === null ? 'not told' : `${formatMs(detection)}`;
  return { ok: true, cell: `✅ ${noticed} / ${recovery === null ? '—' : formatMs(recovery)} ms`, findings: [] };
}

function formatMs(value: number): string {
  return value >= 100 ? String(Math.round(value)) : String(Math.round(value * 10) / 10);
}

/** A few words for the cell: what failed, counted. */
function gist(findings: readonly string[], outcome: MatrixOutcome): string {
  const parts: string[] = [];
  const counted = (pattern: RegExp) => findings.filter((finding) => pattern.test(finding)).length;
  const stopped = counted(/stopped consuming/);
  const publisher = counted(/publisher never came back/);
  const unnoticed = counted(/not noticed within/);
  if (unnoticed > 0) parts.push(`not noticed within ${seconds(outcome.options.detectionBoundMs)}`);
  if (stopped > 0) parts.push('stopped consuming');
  if (publisher > 0) parts.push('publisher not back');
  const hung = /^(\d+) publish\(es\) hung/.exec(findings.find((finding) => /publish\(es\) hung/.test(finding)) ?? '');
  if (hung) parts.push(`${hung[1]} publishes hung`);
  const lost = /^(\d+) confirmed message\(s\) lost/.exec(findings.find((finding) => /confirmed message\(s\) lost/.test(finding)) ?? '');
  if (lost) parts.push(`${lost[1]} confirmed lost`);
  if (counted(/nobody handled/) > 0) parts.push('unhandled error');
  if (counted(/close\(\).*did not return/) > 0) parts.push('close() hung');
  else if (counted(/close\(\) of a blocked connection hung in the library/) > 0) parts.push('close() hangs while blocked');
  else if (counted(/close\(\) did not end by itself/) > 0) parts.push('close() cut short');
  if (counted(/thread failed|could not|never came|did not finish/) > 0 && parts.length === 0) parts.push('thread failed');
  return parts.length > 0 ? parts.join(', ') : findings[0]!.slice(0, 60);
}
