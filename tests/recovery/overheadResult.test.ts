import type { RecoveryMetrics } from '../../src/recovery/metrics';
import type { RecoveryOverheadPair, RecoverySide } from '../../src/recovery/overhead';
import { recoveryOverheadResult, timeRatioPercent } from '../../src/recovery/overheadResult';

/** A side with just the figures the result reads. */
function side(figures: Record<string, number | null>, removalSignalMaxMs: number | null = 2): RecoverySide {
  const metrics = Object.fromEntries(Object.entries(figures).map(([name, value]) => [name, { value, unit: 'ms', direction: 'lower' }]));
  return {
    computed: { metrics, fault: { received: { reset: 10 } } } as unknown as RecoveryMetrics,
    removalSignalMaxMs,
    failures: [],
  };
}

const figures = (propagation: number, recovery: number, spread: number) => ({
  error_propagation_latency_ms: propagation,
  recovery_after_removal_ms: recovery,
  error_detection_latency_ms: 1,
  full_recovery_latency_ms: propagation + recovery,
  thread_detection_p50_ms: 4,
  thread_detection_max_ms: 8,
  fault_spread_ms: spread,
});

describe('timeRatioPercent', () => {
  it('is harness / bare x 100, null unless both are there and the bare one is positive', () => {
    expect(timeRatioPercent(11, 10)).toBeCloseTo(110, 10);
    expect(timeRatioPercent(null, 10)).toBeNull();
    expect(timeRatioPercent(5, 0)).toBeNull();
  });
});

describe('recoveryOverheadResult', () => {
  const pairs: RecoveryOverheadPair[] = [
    { first: 'harness', harness: side(figures(12, 50, 5)), bare: side(figures(10, 50, 6)) },
    { first: 'bare', harness: side(figures(9, 40, 4)), bare: side(figures(10, 50, 7)) },
    { first: 'harness', harness: side(figures(21, 66, 9), null), bare: side(figures(20, 60, 8), 4) },
  ];
  const result = recoveryOverheadResult({ threads: 10, pairs });

  it('takes the median of each side and of the pairs’ ratios', () => {
    expect(result.name).toBe('recovery_harness_overhead');
    expect(result.parameters).toEqual({ threads: 10, toxic: 'reset_peer', toxic_timeout_ms: 0 });
    expect(result.metrics.harness_propagation_ms).toEqual({ value: 12, unit: 'ms', direction: 'lower' });
    expect(result.metrics.bare_propagation_ms).toEqual({ value: 10, unit: 'ms', direction: 'lower' });
    // Pairs: 120%, 90%, 105% -> 105%; 100%, 80%, 110% -> 100%.
    expect(result.samples?.propagation_ratio_percent).toEqual([120, 90, 105]);
    expect(result.metrics.propagation_ratio_percent).toEqual({ value: 105, unit: '%', direction: 'lower' });
    expect(result.metrics.recovery_after_removal_ratio_percent!.value).toBe(100);
    // The proxy's spread is shown for both sides, never judged or divided.
    expect(result.metrics.harness_fault_spread_ms).toEqual({ value: 5, unit: 'ms', direction: 'none' });
    expect(result.metrics.bare_fault_spread_ms!.value).toBe(7);
    expect(result.metrics.fault_spread_ratio_percent).toBeUndefined();
    // A side whose threads did not all start recovering has no signal figure: the median of the others.
    expect(result.metrics.harness_removal_signal_max_ms!.value).toBe(2);
    expect(result.metrics.bare_removal_signal_max_ms!.value).toBe(2);
    expect(result.metrics.pairs!.value).toBe(3);
  });

  it('holds the two judged ratios to < 110%', () => {
    // Judged on the three pairs' interval: [90%, 120%] and [80%, 110%] both straddle 110%.
    expect(result.targets).toEqual([
      expect.objectContaining({ metric: 'propagation_ratio_percent', comparator: '<', threshold: 110, verdict: 'inconclusive' }),
      expect.objectContaining({ metric: 'recovery_after_removal_ratio_percent', comparator: '<', threshold: 110, verdict: 'inconclusive' }),
    ]);
    // One pair: met where within, never missed on one value.
    const slow = recoveryOverheadResult({
      threads: 50,
      pairs: [{ first: 'harness', harness: side(figures(90, 300, 50)), bare: side(figures(60, 280, 50)) }],
    });
    expect(slow.targets?.map((target) => target.verdict)).toEqual(['inconclusive', 'met']);
  });

  it('says when the harness came out faster than the floor, and keeps each pair', () => {
    const faster = recoveryOverheadResult({
      threads: 10,
      pairs: [{ first: 'bare', harness: side(figures(8, 40, 5)), bare: side(figures(10, 50, 5)) }],
    });
    expect(faster.notes?.at(-1)).toMatch(/^the harness came out faster than the bare floor on propagation_ms, recovery_after_removal_ms/);
    expect(result.notes?.some((note) => note.startsWith('the harness came out faster'))).toBe(false);
    expect((result.details?.pairs as unknown[])[1]).toMatchObject({
      first: 'bare',
      harness: { propagation_ms: 9, recovery_after_removal_ms: 40, fault_spread_ms: 4, received: { reset: 10 } },
      bare: { propagation_ms: 10, fault_spread_ms: 7 },
    });
  });
});
