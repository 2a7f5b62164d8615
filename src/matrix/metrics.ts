/**
 * A fault-matrix cell's metrics (pure): detection and recovery of the slowest thread, how many
 * threads noticed and were back, and the class of every publish.
 */
import { countMetric, msMetric } from '../results/metricValues';
import type { Metric } from '../results/rawResult';
import type { MatrixThread as MatrixThreadDetail } from '../schemaTypes';
import { round3 } from '../measure/round';
import type { PublishAccount } from './accounting';
import type { MatrixThreadReport } from './report';

const ms = msMetric;
const count = countMetric;

export function matrixMetrics(
  threads: readonly MatrixThreadDetail[],
  total: PublishAccount,
  closeCheck: MatrixThreadReport['closeCheck'] | null,
): Record<string, Metric> {
  const detections = threads.map((thread) => thread.detection_ms).filter((value): value is number => value !== null);
  const measured = (values: readonly (number | null)[]) => values.filter((value): value is number => value !== null);
  const recoveries = measured(threads.map((thread) => thread.recovered_ms));
  const afterRemoval = measured(threads.map((thread) => thread.recovered_after_removal_ms));
  const allRecovered = threads.length > 0 && recoveries.length === threads.length;
  const allBackAfterRemoval = threads.length > 0 && afterRemoval.length === threads.length;
  return {
    error_detection_latency_ms: ms(detections.length > 0 ? Math.min(...detections) : null),
    error_propagation_latency_ms: ms(detections.length === threads.length && threads.length > 0 ? Math.max(...detections) : null),
    full_recovery_latency_ms: ms(allRecovered ? Math.max(...recoveries) : null),
    recovery_after_removal_ms: ms(allBackAfterRemoval ? Math.max(...afterRemoval) : null),
    threads_total: count(threads.length),
    threads_detected: count(detections.length),
    threads_recovered: count(recoveries.length),
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
    confirmed_before_delivered_after: count(threads.reduce((sum, thread) => sum + (thread.confirmed_before_delivered_after ?? 0), 0)),
    in_flight_at_fault: count(total.inFlightAtFault.total),
    max_settle_ms: ms(total.maxSettleMs, 'none'),
    unhandled_errors: count(
      threads.reduce((sum, thread) => sum + thread.unhandled.length, 0),
      'lower',
    ),
    ...(closeCheck ? { close_while_blocked_ms: ms(closeCheck.closeMs) } : {}),
    ...stallMetrics(threads),
  };
}

const perSecond = (value: number | null, unit: string, direction: Metric['direction']): Metric => ({
  value: value === null ? null : round3(value),
  unit,
  direction,
});

/** A stall's figures for the cell: the median thread's offered rate and memory growth, the most outstanding, the slowest drain. */
function stallMetrics(threads: readonly MatrixThreadDetail[]): Record<string, Metric> {
  const stalls = threads.flatMap((thread) => (thread.stall ? [thread.stall] : []));
  if (stalls.length === 0) return {};
  const middle = (values: readonly (number | null)[]): number | null => {
    const known = values.filter((value): value is number => value !== null).sort((a, b) => a - b);
    if (known.length === 0) return null;
    const half = Math.floor(known.length / 2);
    return known.length % 2 === 1 ? known[half]! : (known[half - 1]! + known[half]!) / 2;
  };
  const drains = stalls.map((stall) => stall.drain_ms);
  return {
    stall_offered_mb_per_s: perSecond(middle(stalls.map((stall) => stall.offered_mb_per_s)), 'MB/s', 'none'),
    stall_worker_memory_mb_per_s: perSecond(middle(stalls.map((stall) => stall.worker_memory_mb_per_s)), 'MB/s', 'lower'),
    stall_rss_mb_per_s: perSecond(middle(stalls.map((stall) => stall.rss_mb_per_s)), 'MB/s', 'lower'),
    stall_program_rss_mb_per_s: perSecond(middle(stalls.map((stall) => stall.program_rss_mb_per_s ?? null)), 'MB/s', 'lower'),
    stall_outstanding_max: count(Math.max(...stalls.map((stall) => stall.outstanding_max))),
    stall_drain_ms: ms(drains.some((drain) => drain === null) ? null : Math.max(...(drains as number[]))),
  };
}
