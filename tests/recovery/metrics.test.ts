import { computeRecoveryMetrics } from '../../src/recovery/metrics';
import type { RecoveryOutcome, ThreadRecord } from '../../src/recovery/scenario';

const MS = 1_000_000n;
const T0 = 10_000n * MS;

function thread(index: number, detectedMs: number | null, recoveredMs: number | null, extra: Partial<ThreadRecord> = {}): ThreadRecord {
  return {
    threadIndex: index,
    readyNs: T0 - 1000n * MS,
    detectedNs: detectedMs === null ? null : T0 + BigInt(Math.round(detectedMs * 1000)) * 1000n,
    detectionCause: detectedMs === null ? 'none' : 'reset',
    recoveryStartedNs: null,
    recoveredNs: recoveredMs === null ? null : T0 + BigInt(recoveredMs) * MS,
    faultedLocalPort: 40000 + index,
    reconnectAttempts: 1,
    deliveries: 10,
    falseAlarms: 0,
    ...extra,
  };
}

function outcome(threads: ThreadRecord[], events: RecoveryOutcome['faultEvents'] = null): RecoveryOutcome {
  return {
    threads,
    preFault: null,
    injection: { startedNs: T0, completedNs: T0 + 1n * MS },
    removal: { startedNs: T0 + 50n * MS, completedNs: T0 + 52n * MS },
    faultEvents: events,
    allDetected: true,
    allRecovered: true,
    trafficIntervalMs: 5,
    drainTimeoutMs: 1000,
  };
}

describe('computeRecoveryMetrics', () => {
  it('times from the injection call when the proxy has no timeline (real Toxiproxy)', () => {
    const result = computeRecoveryMetrics(outcome([thread(0, 3, 200), thread(1, 8, 300)]), 'reset_peer');
    expect(result.metrics.error_detection_latency_ms!.value).toBe(3);
    expect(result.metrics.error_propagation_latency_ms!.value).toBe(8);
    expect(result.metrics.full_recovery_latency_ms!.value).toBe(300);
    expect(result.metrics.recovery_after_removal_ms!.value).toBe(248);
    expect(result.metrics.threads_detected!.value).toBe(2);
    expect(result.metrics.threads_recovered!.value).toBe(2);
    expect(result.metrics.injection_to_fault_ms!.value).toBeNull();
    expect(result.targets).toEqual([
      { metric: 'error_detection_latency_ms', comparator: '<', threshold: 10, unit: 'ms', met: true },
      { metric: 'full_recovery_latency_ms', comparator: '<', threshold: 5000, unit: 'ms', met: true },
    ]);
    expect(result.notes[0]).toMatch(/start of the injecting API call/);
  });

  it('times from the RST the proxy really sent, per thread from its own connection', () => {
    const events = [
      { at_ns: String(T0 + 4n * MS), kind: 'reset_sent', client: '127.0.0.1:40000' },
      { at_ns: String(T0 + 6n * MS), kind: 'reset_sent', client: '127.0.0.1:40001' },
    ];
    const result = computeRecoveryMetrics(outcome([thread(0, 4.5, 100), thread(1, 7, 120)], events), 'reset_peer');
    expect(result.metrics.injection_to_fault_ms!.value).toBe(4);
    expect(result.details.injection_bracket_ns).toEqual({ started: String(T0), completed: String(T0 + 1n * MS) });
    expect(result.details.fault_acted_ns).toBe(String(T0 + 4n * MS));
    // First detection 0.5 ms after the first RST; last 3 ms after it.
    expect(result.metrics.error_detection_latency_ms!.value).toBe(0.5);
    expect(result.metrics.error_propagation_latency_ms!.value).toBe(3);
    // Per thread: 0.5 ms after its own RST, and 1 ms after its own.
    expect(result.samples.thread_detection_ms).toEqual([0.5, 1]);
    expect(result.metrics.thread_detection_max_ms!.value).toBe(1);
  });

  it('flags a detection earlier than its fault moment instead of reporting a negative latency', () => {
    const events = [{ at_ns: String(T0 + 5n * MS), kind: 'reset_sent', client: '127.0.0.1:40000' }];
    const result = computeRecoveryMetrics(outcome([thread(0, 2, 100), thread(1, 6, 100)], events), 'reset_peer');
    expect(result.samples.thread_detection_ms!.every((value) => value >= 0)).toBe(true);
    expect(result.metrics.threads_detected!.value).toBe(1);
    expect(result.details.clock_disagreements).toEqual(['thread 0 detected 3.000 ms before its fault moment']);
    expect(result.notes.some((note) => note.includes('clock disagreement'))).toBe(true);
  });

  it('counts threads that never detected or never recovered, and gives no full-recovery figure then', () => {
    const result = computeRecoveryMetrics(
      outcome([thread(0, 5, 100), thread(1, null, null, { error: 'toxic was never removed' })]),
      'network_partition',
    );
    expect(result.metrics.threads_detected!.value).toBe(1);
    expect(result.metrics.threads_recovered!.value).toBe(1);
    expect(result.metrics.full_recovery_latency_ms!.value).toBeNull();
    expect(result.targets[1]!.met).toBeNull();
    expect(result.targets[0]!.threshold).toBe(200);
  });
});
