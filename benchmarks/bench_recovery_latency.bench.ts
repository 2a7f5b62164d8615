/**
 * @benchmark
 *
 * Recovery latency: how fast every consumer thread notices a network fault injected through
 * the fault proxy, and how fast every thread recovers (reconnects, re-consumes and proves it
 * with a message round trip). Client mode from BENCH_CLIENT_MODE (manual | amqplib-recovery).
 */
import { getConfig } from '../src/config';
import { armLatency, armResetPeer, toxicTimeout } from '../src/faults';
import { computeRecoveryMetrics, describeReceived, missedOrUnmeasured, type RecoveryScenarioKind } from '../src/recovery/metrics';
import { runRecoveryScenario, type RecoveryScenarioOptions } from '../src/recovery/scenario';
import { benchContext } from '../fixtures/context';
import { recordResult } from '../fixtures/record';
import { recoveryProgress } from '../src/report/progress';

const TEST_TIMEOUT_MS = 180_000;

async function measureRecovery(
  name: string,
  kind: RecoveryScenarioKind,
  threads: number,
  scenario: Pick<RecoveryScenarioOptions, 'fault' | 'preFault' | 'preFaultMs' | 'drainTimeoutMs'>,
  parameters: Record<string, string | number>,
): Promise<void> {
  const context = benchContext();
  const mode = getConfig().clientMode;
  const outcome = await runRecoveryScenario({
    threads,
    mode,
    proxy: context.proxy,
    proxiedUrl: context.proxiedUrl,
    directUrl: context.directUrl,
    ...scenario,
  });
  const computed = computeRecoveryMetrics(outcome, kind);
  const metric = (key: string) => computed.metrics[key]?.value ?? null;
  recordResult(
    {
      name,
      category: 'recovery',
      parameters: { threads, mode, ...parameters },
      metrics: computed.metrics,
      samples: computed.samples,
      targets: computed.targets,
      notes: computed.notes,
      details: computed.details,
      fault_proxy: computed.faultProxy,
      fault: computed.fault,
    },
    `${recoveryProgress({
      threads,
      detected: metric('threads_detected'),
      recovered: metric('threads_recovered'),
      detectionMs: metric('error_detection_latency_ms'),
      propagationMs: metric('error_propagation_latency_ms'),
      fullRecoveryMs: metric('full_recovery_latency_ms'),
      recoveryAfterRemovalMs: metric('recovery_after_removal_ms'),
      received: describeReceived(computed.fault.received),
      upperBound: !computed.fault.reference.exact,
    })}; ${computed.faultProxy.label}`,
  );

  // Correctness is asserted; speed is recorded (targets fail the test only when asked for).
  const failures = (computed.details.threads as { thread: number; error?: string }[]).filter((thread) => thread.error);
  expect(failures).toEqual([]);
  expect(metric('threads_detected')).toBe(threads);
  expect(metric('threads_recovered')).toBe(threads);
  if (context.strictTargets) {
    expect(computed.targets.filter(missedOrUnmeasured)).toEqual([]);
  }
}

describe('TestRecoveryLatency', () => {
  test.each([10, 50])(
    'test_recovery_after_reset_peer[%i]',
    async (threads) => {
      await measureRecovery(
        'recovery_after_reset_peer',
        'reset_peer',
        threads,
        // Armed before the threads connect: real Toxiproxy then closes their links with a true RST.
        { fault: { arm: (proxy) => armResetPeer(proxy, 0) } },
        { toxic: 'reset_peer', toxic_timeout_ms: 0 },
      );
    },
    TEST_TIMEOUT_MS,
  );

  test.each([10, 50])(
    'test_recovery_after_network_partition[%i]',
    async (threads) => {
      // The client's own deadline (100 ms of silence) is how a busy connection notices a partition.
      await measureRecovery(
        'recovery_after_network_partition',
        'network_partition',
        threads,
        { fault: { inject: (proxy) => toxicTimeout(proxy, 100) }, drainTimeoutMs: 100 },
        { toxic: 'timeout', toxic_timeout_ms: 100, drain_timeout_ms: 100 },
      );
    },
    TEST_TIMEOUT_MS,
  );

  test(
    'test_recovery_with_latency_before_failure',
    async () => {
      await measureRecovery(
        'recovery_with_latency_before_failure',
        'latency_before_failure',
        10,
        // Both armed before the threads connect, latency first so the reset acts behind it in each link.
        {
          preFault: { arm: (proxy) => armLatency(proxy, 200, 100) },
          preFaultMs: 2000,
          fault: { arm: (proxy) => armResetPeer(proxy, 0) },
        },
        { toxic: 'latency+reset_peer', latency_ms: 200, jitter_ms: 100, latency_phase_ms: 2000 },
      );
    },
    TEST_TIMEOUT_MS,
  );
});
