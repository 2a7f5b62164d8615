/** A recovery benchmark's progress line, in the report's words (src/report/metricNames.ts). */
import { formatValue } from './format';
import { RECOVERY_FIGURE_NAMES, spreadMs } from './metricNames';

export interface RecoveryProgressFigures {
  readonly threads: number;
  readonly detected: number | null;
  readonly recovered: number | null;
  readonly detectionMs: number | null;
  readonly propagationMs: number | null;
  /** Omitted where the benchmark does not print it. */
  readonly fullRecoveryMs?: number | null;
  readonly recoveryAfterRemovalMs: number | null;
}

/**
 * A benchmark's progress line for one recovery measurement, with the report's names:
 * `detected 10/10, recovered 10/10; detection (first thread) 1.41 ms, propagation (all threads) 6.87 ms, spread 5.46 ms, ...`.
 */
export function recoveryProgress(figures: RecoveryProgressFigures): string {
  const ms = (value: number | null | undefined) => formatValue(value ?? null, 'ms');
  const parts = [
    `${RECOVERY_FIGURE_NAMES.error_detection_latency_ms} ${ms(figures.detectionMs)}`,
    `${RECOVERY_FIGURE_NAMES.error_propagation_latency_ms} ${ms(figures.propagationMs)}`,
    `${RECOVERY_FIGURE_NAMES.spread_ms} ${ms(spreadMs(figures.detectionMs, figures.propagationMs))}`,
    ...(figures.fullRecoveryMs === undefined ? [] : [`${RECOVERY_FIGURE_NAMES.full_recovery_latency_ms} ${ms(figures.fullRecoveryMs)}`]),
    `${RECOVERY_FIGURE_NAMES.recovery_after_removal_ms} ${ms(figures.recoveryAfterRemovalMs)}`,
  ];
  const count = (value: number | null) => `${value ?? '?'}/${figures.threads}`;
  return `detected ${count(figures.detected)}, recovered ${count(figures.recovered)}; ${parts.join(', ')}`;
}
