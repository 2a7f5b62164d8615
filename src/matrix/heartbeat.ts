/**
 * A silence judged as the protocol says (pure). AMQP 0-9-1: a peer that receives no traffic for
 * "two heartbeat intervals or longer" should close the connection; RabbitMQ itself gives up after
 * two to three. So a client honours the heartbeat it was given when each thread notices the
 * silence by itself after two intervals at least and three at most (plus a little: a timer's
 * tick), whatever phase of its interval the silence met. Earlier is not better: a client that
 * closes after one interval drops a healthy connection on a pause of one interval (a GC, a busy
 * event loop). A thread told by the broker's close, or not at all, did not notice by itself.
 */
import { isNonEmpty, median } from '../measure/statistics';
import { round3, roundTo } from '../measure/round';
import type { MatrixDetails, MatrixThread as MatrixThreadDetail } from '../schemaTypes';

/** Past three intervals: a timer's tick, the socket's last read. */
export const HEARTBEAT_SLACK_MS = 1000;
/**
 * Before two intervals: the fault's moment is the first data dropped on the connection, a few ms
 * after the client last heard anything, so a detection at two intervals reads a little less.
 */
export const HEARTBEAT_EARLY_SLACK_MS = 100;

export type HeartbeatJudgement = NonNullable<MatrixDetails['heartbeat']>;

/**
 * The judgement of a silent fault's cell; undefined when the fault is not a silence or the
 * interval is not known (a library's own default).
 * @param check how the library notices a silence when it is not the protocol's check (its adapter's words)
 */
export function judgeHeartbeat(
  expected: string | null,
  intervalSeconds: number | undefined,
  threads: readonly MatrixThreadDetail[],
  check?: string,
): HeartbeatJudgement | undefined {
  if (expected !== 'heartbeat' || intervalSeconds === undefined) return undefined;
  const intervalMs = intervalSeconds * 1000;
  const low = 2 * intervalMs - HEARTBEAT_EARLY_SLACK_MS;
  const high = 3 * intervalMs + HEARTBEAT_SLACK_MS;
  const ownDetection = (thread: MatrixThreadDetail) =>
    thread.noticed_as === 'fault' && !thread.detected_after_removal ? thread.detection_ms : null;
  const own = threads.map(ownDetection).filter((value): value is number => value !== null);
  const judgement: HeartbeatJudgement['judgement'] =
    own.length < threads.length
      ? 'not_by_itself'
      : own.some((value) => value < low)
        ? 'early'
        : own.some((value) => value > high)
          ? 'late'
          : 'within';
  const phases = threads.map((thread) => {
    const detection = ownDetection(thread);
    return {
      thread: thread.thread,
      phase: thread.heartbeat_phase ?? null,
      detection_ms: detection,
      intervals: detection === null ? null : roundTo(detection / intervalMs, 2),
    };
  });
  const summary = (scale: (value: number) => number) =>
    isNonEmpty(own) ? { min: scale(Math.min(...own)), median: scale(median(own)), max: scale(Math.max(...own)) } : undefined;
  const detectionMs = summary(round3);
  const intervals = summary((value) => roundTo(value / intervalMs, 2));
  const judged: HeartbeatJudgement = {
    interval_s: intervalSeconds,
    window_ms: { low, high },
    slowest_detection_ms: own.length > 0 ? Math.max(...own) : null,
    within: judgement === 'within',
    judgement,
    phases,
    ...(detectionMs && intervals ? { detection_ms: detectionMs, intervals } : {}),
    ...(check ? { check } : {}),
  };
  return { ...judged, summary: describeHeartbeat(judged) };
}

/** `noticed after 2.04–2.92 intervals (10.2–14.6 s, median 12.3 s) over 5 phases` — or why not. */
export function describeHeartbeat(heartbeat: HeartbeatJudgement): string {
  const { intervals, detection_ms: detection } = heartbeat;
  const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  const range =
    intervals && detection
      ? `noticed after ${intervals.min}–${intervals.max} intervals (${s(detection.min)}–${s(detection.max)}, median ${s(detection.median)}) over ${heartbeat.phases?.length ?? 0} phase(s)`
      : 'never noticed by itself';
  const window = `the protocol's window at ${heartbeat.interval_s} s is ${s(heartbeat.window_ms.low)}–${s(heartbeat.window_ms.high)} (two to three intervals)`;
  const verdict: Record<NonNullable<HeartbeatJudgement['judgement']>, string> = {
    within: 'within it',
    early: 'earlier than two intervals: a pause of one interval would drop a healthy connection',
    late: 'later than three intervals',
    not_by_itself: 'not every thread noticed by itself (told by the broker, or not at all)',
  };
  const perPhase = (heartbeat.phases ?? [])
    .filter((entry) => entry.phase !== null)
    .sort((a, b) => a.phase! - b.phase!)
    .map((entry) => `${entry.phase!.toFixed(2)} → ${entry.intervals === null ? 'not by itself' : `${entry.intervals.toFixed(2)}`}`);
  const phases = perPhase.length > 0 ? ` (phase of the interval → intervals until noticed: ${perPhase.join(', ')})` : '';
  return `${range}${phases}; ${window}: ${verdict[heartbeat.judgement ?? (heartbeat.within ? 'within' : 'late')]}${heartbeat.check ? `. How it notices: ${heartbeat.check}` : ''}`;
}
