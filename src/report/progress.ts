/** A recovery benchmark's progress line, in the report's words (src/report/metricNames.ts). */
import { formatValue } from './format';
import { detectionSpreadMs, RECOVERY_FIGURE_NAMES } from './metricNames';

export interface RecoveryProgressFigures {
  readonly threads: number;
  readonly detected: number | null;
  readonly recovered: number | null;
  readonly detectionMs: number | null;
  readonly propagationMs: number | null;
  /** Omitted where the benchmark does not print it. */
  readonly fullRecoveryMs?: number | null;
  readonly recoveryAfterRemovalMs: number | null;
  /** First to last moment the fault acted (the proxy's timeline); omitted where the benchmark does not print it. */
  readonly faultSpreadMs?: number | null;
  /** What the threads received, e.g. `RST ×10` (src/recovery/received.ts). */
  readonly received?: string;
  /** The figures are timed from the injecting API call, not from the fault's own moment. */
  readonly upperBound?: boolean;
  /** How the toxic was removed (e.g. `deleted`, `passed through, then deleted`). */
  readonly removal?: string;
}

/**
 * The figures a recovery result's metrics give its progress line (`threads_detected`,
 * `error_detection_latency_ms`, ...); the caller adds what its benchmark knows besides.
 */
export function recoveryProgressFigures(
  metrics: Readonly<Record<string, { readonly value: number | null } | undefined>>,
  threads: number,
): RecoveryProgressFigures {
  const value = (name: string) => metrics[name]?.value ?? null;
  return {
    threads,
    detected: value('threads_detected'),
    recovered: value('threads_recovered'),
    detectionMs: value('error_detection_latency_ms'),
    propagationMs: value('error_propagation_latency_ms'),
    fullRecoveryMs: value('full_recovery_latency_ms'),
    recoveryAfterRemovalMs: value('recovery_after_removal_ms'),
  };
}

/**
 * A benchmark's progress line for one recovery measurement, with the report's names:
 * `detected 10/10, recovered 10/10; detection (first thread) 1.41 ms, propagation (all threads) 6.87 ms, detection spread 5.46 ms, ...`.
 */
export function recoveryProgress(figures: RecoveryProgressFigures): string {
  const ms = (value: number | null | undefined) => formatValue(value ?? null, 'ms');
  const parts = [
    `${RECOVERY_FIGURE_NAMES.error_detection_latency_ms} ${ms(figures.detectionMs)}`,
    `${RECOVERY_FIGURE_NAMES.error_propagation_latency_ms} ${ms(figures.propagationMs)}`,
    `${RECOVERY_FIGURE_NAMES.detection_spread_ms} ${ms(detectionSpreadMs(figures.detectionMs, figures.propagationMs))}`,
    ...(figures.faultSpreadMs === undefined ? [] : [`${RECOVERY_FIGURE_NAMES.fault_spread_ms} ${ms(figures.faultSpreadMs)}`]),
    ...(figures.fullRecoveryMs === undefined ? [] : [`${RECOVERY_FIGURE_NAMES.full_recovery_latency_ms} ${ms(figures.fullRecoveryMs)}`]),
    `${RECOVERY_FIGURE_NAMES.recovery_after_removal_ms} ${ms(figures.recoveryAfterRemovalMs)}`,
  ];
  const count = (value: number | null) => `${value ?? '?'}/${figures.threads}`;
  const received = figures.received ? ` (${figures.received})` : '';
  const bound = figures.upperBound ? ' [upper bounds: timed from the injecting API call]' : '';
  const removal = figures.removal ? `; toxic ${figures.removal}` : '';
  return `detected ${count(figures.detected)}${received}, recovered ${count(figures.recovered)}; ${parts.join(', ')}${bound}${removal}`;
}
