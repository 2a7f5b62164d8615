/**
 * What a fault-matrix cell found about the client (pure), each finding with its evidence: not
 * noticed, or told by the broker instead of noticing by itself; not back (consumer, publisher or
 * both); publishes hung (classed at the end of the settle bound, before anything was closed);
 * confirmed messages lost; errors nobody handled; close() that hung.
 */
import { FAULT_KIND_LABELS, type FaultKind } from '../client/faults';
import { unhandledFinding } from '../client/unhandledTrap';
import { elapsedMs } from '../measure/clock';
import { round3 } from '../measure/round';
import type { MatrixThread as MatrixThreadDetail } from '../schemaTypes';
import type { PublishAccount } from './accounting';
import type { MatrixOutcome } from './scenario';

export const seconds = (valueMs: number): string => `${Math.round(valueMs / 100) / 10} s`;

/** The library's last event of a thread, as evidence: `broker_closed "CONNECTION_FORCED ..." at +3.1 ms`. */
function lastEvent(thread: MatrixThreadDetail): string {
  const event = thread.events.at(-1);
  return event ? `its last event: ${event.kind} "${event.message.slice(0, 120)}" at ${event.at_ms} ms` : 'the library gave no event at all';
}

/** How each thread noticed, or did not, and whether it was back. */
function threadFindings(outcome: MatrixOutcome, thread: MatrixThreadDetail, throughToxiproxy: string | null): string[] {
  const findings: string[] = [];
  const { options } = outcome;
  const who = `thread ${thread.thread}`;
  if (thread.error && thread.error !== 'abandoned') findings.push(`${who}: ${thread.error}`);
  if (thread.detected_after_removal)
    findings.push(
      `${who}: not noticed within ${seconds(options.detectionBoundMs)}: it learned of the fault only after the harness removed it (${thread.detected_by})`,
    );
  else if (thread.noticed_as === 'told_by_broker')
    findings.push(
      `${who}: told by the broker at ${seconds(thread.detection_ms ?? 0)} (${FAULT_KIND_LABELS[thread.detected_by as FaultKind] ?? thread.detected_by}), not by its own heartbeat check${throughToxiproxy ? ` (${throughToxiproxy})` : ''}`,
    );
  // A silence the fault held for the whole bound: only the client's own heartbeat could tell it,
  // so carrying on once the silence ended is not noticing it (the dead peer's cell says the same
  // of a client that learned of it only at the removal).
  if (thread.recovered_ms !== null) {
    if (thread.detection_ms === null && outcome.fault.definition.expected === 'heartbeat')
      findings.push(
        `${who}: not noticed within ${seconds(options.detectionBoundMs)}: the library gave no event during a silence only its own heartbeat could tell; it carried on once the silence ended`,
      );
    return findings;
  }
  if (thread.detection_ms === null)
    findings.push(`${who}: not noticed within ${seconds(options.detectionBoundMs)} and not back (${lastEvent(thread)})`);
  if (thread.consumer_back_after_removal_ms === null)
    findings.push(
      `${who}: stopped consuming: nothing delivered (not even the harness's probes) within ${seconds(options.recoveryBoundMs)} of the removal (${lastEvent(thread)})`,
    );
  // Its consumer back is not its publisher back when no publish after the removal was confirmed:
  // py-amqp's re-opened channel routes a publish and never confirms it (a channel out of confirm
  // mode), and whether that first publish met the exchange before or after its binding came back
  // decided the cell run by run while a delivery alone counted.
  else if (thread.publisher_back_after_removal_ms === null)
    findings.push(publisherNotBack(who, thread, options.recoveryBoundMs, 'deliveries after the removal'));
  else findings.push(`${who}: not back within ${seconds(options.recoveryBoundMs)} of the removal (${lastEvent(thread)})`);
  return findings;
}

/** A consumer back (it got `got`) beside a publisher none of whose publishes after the removal was confirmed, with its last rejection. */
function publisherNotBack(who: string, thread: MatrixThreadDetail, recoveryBoundMs: number, got: string): string {
  const rejection = thread.rejections.at(-1);
  return `${who}: publisher never came back: its consumer got ${got}, but none of its own publishes after the removal was confirmed within ${seconds(recoveryBoundMs)}${rejection ? ` (rejected ${rejection.count}×: "${rejection.message}")` : ''}`;
}

/** Every finding of the cell, each with its evidence. */
export function findingsOf(
  outcome: MatrixOutcome,
  threads: readonly MatrixThreadDetail[],
  total: PublishAccount,
  throughToxiproxy: string | null,
): string[] {
  const { options } = outcome;
  const findings = threads.flatMap((thread) => [...threadFindings(outcome, thread, throughToxiproxy), ...stallFindings(thread)]);
  if (total.hung > 0) {
    const oldest = total.oldestHung;
    const start = outcome.injection?.bracket.startedNs ?? outcome.startedNs;
    const byClose = threads.reduce((sum, thread) => sum + (thread.settled_only_by_close ?? 0), 0);
    findings.push(
      `${total.hung} publish(es) hung: not settled ${seconds(options.settleMs)} after publishing stopped, classed before anything was closed (awaiting their confirm${oldest ? `; the oldest, #${oldest.seq}, published ${round3(elapsedMs(start, oldest.publishedNs))} ms after the injection` : ''}${byClose > 0 ? `; ${byClose} settled only when close() rejected them` : ''})`,
    );
  }
  for (const thread of threads) {
    const held = thread.held_delivery;
    if (held && held.deliveries < 2 && held.left_in_queue === 0)
      findings.push(
        `thread ${thread.thread}: the first delivery it held unacked (#${held.seq}) was neither delivered to it again nor left in its queue`,
      );
  }
  if (total.confirmedLost > 0) findings.push(`${total.confirmedLost} confirmed message(s) lost: never delivered and not in the queue`);
  for (const thread of threads) {
    const trapped = unhandledFinding(`thread ${thread.thread}`, thread.unhandled);
    if (trapped) findings.push(trapped);
    if (thread.close_ms === null && !thread.error)
      findings.push(`thread ${thread.thread}: close() did not return within ${seconds(options.closeBoundMs)}`);
  }
  return [...findings, ...closeFindings(outcome)];
}

const mb = (value: number | null): string => (value === null ? '?' : `${value >= 0 ? '+' : ''}${Math.round(value * 100) / 100}`);

const percent = (share: number | null | undefined): string => (share === null || share === undefined ? '?' : `${Math.round(share * 100)}%`);

/**
 * What the library's signal said of the stall: nothing (it has none, or it stayed off), or
 * nothing new (on already under the ordinary load, before the fault was in place, and on at every
 * poll until the removal: an application checking it would have held its writes, but it held them
 * under the ordinary load too), with the states that tell these apart.
 */
function signalWords(stall: NonNullable<MatrixThreadDetail['stall']>): string {
  const polled = `polled at least every ${stall.longest_poll_gap_ms ?? '?'} ms while the stall held`;
  if (stall.signal === 'none') return 'no back-pressure signal: the library has none';
  if (stall.signal === 'on_already')
    return `back-pressure signal already on under the ordinary load: on at the injection (before the fault was in place; on at ${percent(stall.signal_on_share_before)} of its ${stall.polls_before_injection ?? '?'} polls before it) and at every poll until the removal (${polled}), so it never turned on for the stall: an application checking it would have held its writes, as it would under the ordinary load`;
  return `no back-pressure signal: the library's own never turned on during the stall (${stall.signal_at_injection ? 'on' : 'off'} at the injection, ${stall.signal_at_removal ? 'on' : 'off'} at the removal, on in ${percent(stall.signal_on_share)} of the stall's samples; ${polled})`;
}

/** A library that took every publish while the broker read nothing, and said nothing (or nothing new): its memory is the only sign. */
function stallFindings(thread: MatrixThreadDetail): string[] {
  const stall = thread.stall;
  if (!stall || stall.signal === 'given') return [];
  const what = signalWords(stall);
  const offered = `${stall.published_during_stall} publishes (${stall.offered_mb_per_s ?? '?'} MB/s offered) during the ${stall.stall_s} s stall, ${stall.outstanding_at_removal ?? '?'} outstanding at the removal`;
  // A client program's publishes are commands over its pipe: what the library did not take waits in the
  // program's own process (behind a publish call that blocks, in the programs of adapters/), not in the library.
  return [
    stall.memory_measured
      ? `thread ${thread.thread}: ${what}; it took ${offered}; worker memory ${mb(stall.worker_memory_mb_per_s)} MB/s, process RSS ${mb(stall.rss_mb_per_s)} MB/s`
      : `thread ${thread.thread}: ${what}; its client program was handed ${offered}, which waited in the program's own process behind the library's calls (a library whose publish blocks holds its caller instead of saying so); the program's RSS ${stall.program_rss_mb_per_s === null || stall.program_rss_mb_per_s === undefined ? 'not read' : `${mb(stall.program_rss_mb_per_s)} MB/s`}`,
  ];
}

/** close() while blocked, and close() cut short by the adapter's bound. */
function closeFindings(outcome: MatrixOutcome): string[] {
  const findings: string[] = [];
  const closeCheck = outcome.threads[0]?.closeCheck;
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
