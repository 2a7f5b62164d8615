/**
 * One thread of a fault-matrix cell as its result records it (pure): when it noticed the fault
 * (from the fault's moment on its own connection) and by what — the fault itself, the broker's
 * close of a silence it should have noticed itself, or the broker refusing something it retried
 * (a re-consume answered 404) — when it was back, timed from the fault's removal as the broker or
 * the proxy saw it (its own message published after that moment, delivered), what it sent and was
 * answered while the fault held (the proxy's timeline), and the class of each of its publishes.
 */
import { RECEIVED_KINDS } from '../client/faults';
import { clientPortOf, type FaultReference, type RemovalReference } from '../faults/moments';
import type { FaultEvent } from '../faults/toxiproxyClient';
import { elapsedMs } from '../measure/clock';
import { round3, round3OrNull, roundTo } from '../measure/round';
import type { MatrixThread as MatrixThreadDetail } from '../schemaTypes';
import type { PublishAccount } from './accounting';
import { MatrixInt, MatrixTime, type MatrixBoard } from './board';
import { phaseOf } from './phases';
import { stallDetail } from './stallFigures';
import { PublishState, type MatrixThreadReport } from './report';

export interface ThreadDetailInput {
  readonly thread: number;
  readonly report: MatrixThreadReport;
  readonly account: PublishAccount;
  readonly board: MatrixBoard;
  /** The kind a client that noticed the fault receives; null when several are legitimate. */
  readonly expected: string | null;
  readonly reference: FaultReference;
  /** Each client port's fault moment (the timeline's). */
  readonly faultByPort: ReadonlyMap<number, bigint>;
  readonly removal: RemovalReference | null;
  /** Once the undoing call returned, the fault was surely gone (a detection later came after it). */
  readonly removalCompletedNs: bigint | null;
  readonly injectedNs: bigint;
  readonly events: readonly FaultEvent[] | null;
  readonly heartbeatIntervalMs: number | null;
  /** Size of each published message (a stall's offered rate in MB/s). */
  readonly messageBytes: number;
  /** Its own messages left in its queue at the end: sequence number -> copies. */
  readonly leftInQueue: ReadonlyMap<number, number>;
}

/** Kinds a thread receives when the broker, not the client, ended a connection. */
const BROKER_ENDS = new Set(['closed', 'reset', 'broker_closed']);

export function threadDetail(input: ThreadDetailInput): MatrixThreadDetail {
  const { thread, report, account, board } = input;
  const port = board.int(thread, MatrixInt.LOCAL_PORT);
  const faultNs = input.faultByPort.get(port) ?? input.reference.ns;
  const detectedNs = board.time(thread, MatrixTime.DETECTED);
  const detectedBy = detectedNs === 0n ? 'none' : (RECEIVED_KINDS[board.int(thread, MatrixInt.DETECTED_KIND)] ?? 'error');
  const removedNs = input.removal ? (input.removal.byPort.get(port) ?? input.removal.ns) : null;
  // A detection after the removal reached its connection (the timeline's), or after the undoing call returned.
  const surelyRemovedNs = input.removal?.source === 'proxy_timeline' ? removedNs : input.removalCompletedNs;
  const frames = framesDuringFault(input, new Set([port, ...report.ports]), removedNs);
  const detectionMs = detectedNs === 0n ? null : Math.max(0, elapsedMs(faultNs, detectedNs));
  const back = backAfter(report, board.time(thread, MatrixTime.CONSUMER_BACK), removedNs);
  // Back is both (as the recovery wait's isBack): its own message published after the removal
  // delivered, and one of its publishes after the removal confirmed; the later of the two. A
  // delivery alone read kombu's publisher, stuck 12.9 s behind a confirm py-amqp never sends,
  // as back in 4.8 ms.
  const backNs = back.recoveredNs === null || back.publisherNs === null ? null : maxNs(back.recoveredNs, back.publisherNs);
  const openedNs = board.time(thread, MatrixTime.OPENED);
  const stall = stallDetail(report, input.injectedNs, removedNs, input.messageBytes);
  return {
    thread,
    detection_ms: round3OrNull(detectionMs),
    detected_by: detectedBy,
    detected_after_removal: detectedNs !== 0n && surelyRemovedNs !== null && detectedNs > surelyRemovedNs,
    ...(detectedNs === 0n ? {} : { noticed_as: noticedAs(input.expected, detectedBy, frames, elapsedMs(input.reference.ns, detectedNs)) }),
    ...(input.heartbeatIntervalMs !== null && openedNs !== 0n
      ? { heartbeat_phase: roundTo(phaseOf(faultNs, openedNs, input.heartbeatIntervalMs), 3) }
      : {}),
    recovered_ms: since(backNs, input.reference.ns),
    recovered_after_removal_ms: since(backNs, removedNs),
    publisher_back_after_removal_ms: since(back.publisherNs, removedNs),
    consumer_back_after_removal_ms: since(back.consumerNs, removedNs),
    published: account.total,
    confirmed: account.confirmed,
    nacked: account.nacked,
    rejected: account.rejected,
    hung: account.hung,
    settled_only_by_close: report.settledOnlyByClose,
    confirmed_lost: account.confirmedLost,
    ...keptThrough(report, faultNs, removedNs),
    ...heldDelivery(input),
    duplicates: account.duplicates,
    rejections: report.rejections.map(({ message, count }) => ({ message, count })),
    ...(frames.length > 0 ? { frames_during_fault: frames } : {}),
    events: report.events.map((event) => ({
      source: event.source,
      kind: event.kind,
      message: event.message,
      at_ms: round3(elapsedMs(input.reference.ns, BigInt(event.atNs))),
    })),
    unhandled: [...report.unhandled],
    close_ms: round3OrNull(report.closeMs),
    ...(stall ? { stall } : {}),
    ...(report.error ? { error: report.error } : {}),
  };
}

/** Its messages confirmed before the fault's moment and first delivered after the removal (shown only when there are any). */
function keptThrough(report: MatrixThreadReport, faultNs: bigint, removedNs: bigint | null): { confirmed_before_delivered_after?: number } {
  if (removedNs === null) return {};
  let kept = 0;
  for (let seq = 0; seq < report.state.length; seq += 1)
    if (report.state[seq] === PublishState.CONFIRMED && report.settledAtNs[seq]! < faultNs && report.deliveredAtNs[seq]! > removedNs)
      kept += 1;
  return kept > 0 ? { confirmed_before_delivered_after: kept } : {};
}

/** What became of the first delivery its stuck consumer held unacked: delivered again to it, left in its queue, or neither. */
function heldDelivery({ report, leftInQueue, reference }: ThreadDetailInput): Pick<MatrixThreadDetail, 'held_delivery'> {
  if (!report.held) return {};
  const { seq, redeliveredNs, count } = report.held;
  return {
    held_delivery: {
      seq,
      held: count,
      deliveries: report.deliveries[seq] ?? 0,
      left_in_queue: leftInQueue.get(seq) ?? 0,
      redelivered_after_ms: redeliveredNs === null ? null : round3(elapsedMs(reference.ns, BigInt(redeliveredNs))),
    },
  };
}

function since(ns: bigint | null, from: bigint | null): number | null {
  return ns === null || from === null ? null : round3(Math.max(0, elapsedMs(from, ns)));
}

/**
 * When it was back after `removedNs`: its first own message published after that moment and
 * delivered (recovered), its first confirm of such a publish (publisher back), its first delivery
 * of anything after that moment, its own message or the harness's probe (consumer back). Its own
 * messages count by their moments, not by the board's flag (`probeNs`: the first delivery the
 * thread saw after the main thread raised "removed"): that flag is raised once the harness's
 * undoing call returned, so a consumer back before then (a fault with nothing to undo, whose
 * removal is its own moment: a library that reconnects and subscribes at once) would be read as
 * not back or back depending on how long the harness took. A message delivered again after the
 * moment counts as much as a first delivery: a new channel hands out what the old one left
 * unacked before anything new.
 */
export function backAfter(report: MatrixThreadReport, probeNs: bigint, removedNs: bigint | null) {
  let recoveredNs: bigint | null = null;
  let publisherNs: bigint | null = null;
  let consumerNs: bigint | null = probeNs === 0n ? null : probeNs;
  if (removedNs === null) return { recoveredNs, publisherNs, consumerNs };
  const earliest = (current: bigint | null, candidate: bigint) => (current === null || candidate < current ? candidate : current);
  for (let seq = 0; seq < report.state.length; seq += 1) {
    const deliveredNs = report.deliveredAtNs[seq] ?? 0n;
    const lastDeliveredNs = report.lastDeliveredAtNs[seq] ?? 0n;
    if (deliveredNs > removedNs) consumerNs = earliest(consumerNs, deliveredNs);
    else if (lastDeliveredNs > removedNs) consumerNs = earliest(consumerNs, lastDeliveredNs);
    if ((report.publishedAtNs[seq] ?? 0n) <= removedNs) continue;
    if (deliveredNs !== 0n) recoveredNs = earliest(recoveredNs, deliveredNs);
    if (report.state[seq] === PublishState.CONFIRMED) publisherNs = earliest(publisherNs, report.settledAtNs[seq]!);
  }
  return { recoveredNs, publisherNs, consumerNs };
}

type Frame = NonNullable<MatrixThreadDetail['frames_during_fault']>[number];

/** The AMQP frames on its connections while the fault held (from the injection to the removal), counted by method and answer. */
function framesDuringFault(input: ThreadDetailInput, ports: ReadonlySet<number>, removedNs: bigint | null): Frame[] {
  const counted = new Map<string, Frame>();
  for (const event of input.events ?? []) {
    if (event.kind !== 'amqp_frame' || !ports.has(clientPortOf(event) ?? -1)) continue;
    const atNs = BigInt(event.at_ns);
    if (atNs < input.injectedNs || (removedNs !== null && atNs > removedNs)) continue;
    const method = String(event.detail?.method ?? '?');
    const from = event.stream === 'upstream' ? 'client' : 'broker';
    const replyCode = typeof event.detail?.reply_code === 'number' ? event.detail.reply_code : undefined;
    const key = `${from} ${method} ${replyCode ?? ''}`;
    const known = counted.get(key);
    if (known) {
      counted.set(key, { ...known, count: known.count + 1 });
      continue;
    }
    counted.set(key, {
      from,
      method,
      count: 1,
      first_at_ms: round3(elapsedMs(input.reference.ns, atNs)),
      ...(replyCode === undefined ? {} : { reply_code: replyCode }),
      ...(typeof event.detail?.reply_text === 'string' ? { reply_text: event.detail.reply_text.slice(0, 160) } : {}),
    });
  }
  return [...counted.values()].sort((a, b) => a.first_at_ms - b.first_at_ms);
}

/**
 * What told the thread: the fault itself (the kind it models), the broker's close of a silence
 * (a client that should have noticed by its own heartbeat), the broker refusing a request of the
 * client's own made after the fault (a re-consume answered 404, before it noticed), or another kind.
 */
function noticedAs(
  expected: string | null,
  detectedBy: string,
  frames: readonly Frame[],
  /** When it noticed, ms from the cell's reference (as the frames' moments are). */
  detectedAtMs: number,
): NonNullable<MatrixThreadDetail['noticed_as']> {
  if (expected === null || detectedBy === expected) return 'fault';
  if (expected === 'heartbeat' && BROKER_ENDS.has(detectedBy)) return 'told_by_broker';
  const request = frames.find((frame) => frame.from === 'client');
  const refusal = frames.find(
    (frame) =>
      frame.from === 'broker' && (frame.reply_code ?? 0) >= 400 && request !== undefined && frame.first_at_ms >= request.first_at_ms,
  );
  // The refusal came before the thread noticed (its first event is the refusal itself, or later).
  return refusal && refusal.first_at_ms <= detectedAtMs + 1 ? 'refused_retry' : 'other';
}

const maxNs = (a: bigint, b: bigint): bigint => (a > b ? a : b);
