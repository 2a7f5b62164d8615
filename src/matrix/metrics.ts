/**
 * A fault-matrix cell's metrics (pure): detection and recovery of the slowest thread, how many
 * threads noticed and were back, and the class of every publish.
 */
import type { Metric } from '../results/rawResult';
import type { MatrixThread as MatrixThreadDetail } from '../schemaTypes';
import { round3 } from '../measure/round';
import type { PublishAccount } from './accounting';
import type { MatrixThreadReport } from './report';

const ms = (value: number | null, direction: Metric['direction'] = 'lower'): Metric => ({
  value: value === null ? null : round3(value),
  unit: 'ms',
  direction,
});
const count = (value: number, direction: Metric['direction'] = 'none'): Metric => ({ value, unit: 'count', direction });

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
  };
}
