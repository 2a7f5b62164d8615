import type { RecoveryMetrics } from '../../src/recovery/metrics';
import type { RecoveryOverheadPair, RecoverySide } from '../../src/recovery/overhead';
import { recoveryOverheadProgress, recoveryOverheadResult, timeRatioPercent } from '../../src/recovery/overheadResult';

const FLOOR = 'scripts/bare-recovery.js, plain amqplib consumers in worker threads of their own process, nothing else in their path';

/** A side whose connections took `detectionMs` from their own RST and `recoveryMs` from hearing of the removal. */
function side(
  detectionMs: (number | null)[],
  recoveryMs: (number | null)[],
  scenario: { propagation: number; spread: number },
  removalSignalMs: (number | null)[] = detectionMs.map(() => 2),
): RecoverySide {
  const figures = {
    error_propagation_latency_ms: scenario.propagation,
    recovery_after_removal_ms: 50,
    fault_spread_ms: scenario.spread,
  };
  const metrics = Object.fromEntries(Object.entries(figures).map(([name, value]) => [name, { value, unit: 'ms', direction: 'lower' }]));
  return {
    computed: { metrics, fault: { received: { reset: detectionMs.length } } } as unknown as RecoveryMetrics,
    connections: { detectionMs, recoveryMs, removalSignalMs },
    failures: [],
  };
}

describe('timeRatioPercent', () => {
  it('is harness / bare x 100, null unless both are there and the bare one is positive', () => {
    expect(timeRatioPercent(11, 10)).toBeCloseTo(110, 10);
    expect(timeRatioPercent(null, 10)).toBeNull();
    expect(timeRatioPercent(5, 0)).toBeNull();
  });
});

describe('recoveryOverheadResult', () => {
  // Per-connection medians: detection 4.4/4 (110%), 3/3.75... see each pair below.
  const pairs: RecoveryOverheadPair[] = [
    // detection p50 4 vs 4 -> 100%; recovery p50 30 vs 25 -> 120%
    {
      first: 'harness',
      harness: side([2, 4, 9], [20, 30, 40], { propagation: 12, spread: 5 }),
      bare: side([3, 4, 5], [25, 25, 25], { propagation: 20, spread: 14 }),
    },
    // 4.5 vs 5 -> 90%; 30 vs 30 -> 100%; a connection the timeline did not name (null) is left out
    {
      first: 'bare',
      harness: side([4, 5, null], [30, 30, 30], { propagation: 9, spread: 4 }),
      bare: side([5, 5, 5], [30, 30, 30], { propagation: 30, spread: 25 }),
    },
    // 6 vs 5 -> 120%; 33 vs 30 -> 110%
    {
      first: 'harness',
      harness: side([6, 6, 6], [33, 33, 33], { propagation: 21, spread: 9 }, [1, null, 3]),
      bare: side([5, 5, 5], [30, 30, 30], { propagation: 20, spread: 8 }),
    },
  ];
  const result = recoveryOverheadResult({ threads: 3, bareFloor: FLOOR, pairs });

  it("compares each connection's own delays: per side the median over the pairs of each run's quantile, the ratio of the medians", () => {
    expect(result.name).toBe('recovery_harness_overhead');
    expect(result.notes).toContain(
      `bare floor: ${FLOOR}; same proxy, same fault, same traffic, same removal (the scenario that drives the harness drives it)`,
    );
    expect(result.parameters).toEqual({ threads: 3, toxic: 'reset_peer', toxic_timeout_ms: 0 });
    expect(result.metrics.harness_connection_detection_p50_ms).toEqual({ value: 4.5, unit: 'ms', direction: 'lower' });
    expect(result.metrics.bare_connection_detection_p50_ms!.value).toBe(5);
    expect(result.metrics.harness_connection_detection_max_ms!.value).toBe(6);
    expect(result.samples?.connection_detection_p50_ratio_percent).toEqual([100, 90, 120]);
    expect(result.metrics.connection_detection_p50_ratio_percent).toEqual({ value: 100, unit: '%', direction: 'lower' });
    expect(result.samples?.connection_recovery_p50_ratio_percent).toEqual([120, 100, 110]);
    expect(result.metrics.connection_recovery_p50_ratio_percent!.value).toBe(110);
    // The scenario's own figures are shown for both sides, never divided: propagation carries the proxy's spread.
    expect(result.metrics.harness_propagation_ms!.value).toBe(12);
    expect(result.metrics.bare_propagation_ms!.value).toBe(20);
    expect(result.metrics.propagation_ratio_percent).toBeUndefined();
    expect(result.metrics.harness_fault_spread_ms).toEqual({ value: 5, unit: 'ms', direction: 'none' });
    expect(result.metrics.bare_fault_spread_ms!.value).toBe(14);
    // How each side heard of the removal: shown, left out of the per-connection recovery.
    expect(result.metrics.harness_removal_signal_max_ms).toEqual({ value: 2, unit: 'ms', direction: 'none' });
    expect(result.metrics.pairs!.value).toBe(3);
    expect(
      (result.details?.pairs as { harness: { connections_timed_from_own_fault: number } }[])[1]!.harness.connections_timed_from_own_fault,
    ).toBe(2);
  });

  it('judges the two per-connection ratios against < 110% on the pairs’ interval', () => {
    // [90%, 120%] and [100%, 120%] both straddle 110%.
    expect(result.targets).toEqual([
      expect.objectContaining({
        metric: 'connection_detection_p50_ratio_percent',
        comparator: '<',
        threshold: 110,
        verdict: 'inconclusive',
      }),
      expect.objectContaining({
        metric: 'connection_recovery_p50_ratio_percent',
        comparator: '<',
        threshold: 110,
        verdict: 'inconclusive',
      }),
    ]);
  });

  it('says the two sides differ, with the figures and fault spread of each, when a ratio is outside 80–125% (never met)', () => {
    const fasterHarness = recoveryOverheadResult({
      threads: 3,
      bareFloor: FLOOR,
      pairs: [0, 1, 2].map((index) => ({
        first: index % 2 === 0 ? ('harness' as const) : ('bare' as const),
        harness: side([2, 2, 3], [30, 30, 30], { propagation: 10, spread: 6.5 }),
        bare: side([4, 5, 6], [30, 31, 29], { propagation: 20, spread: 10 }),
      })),
    });
    const [detection, recovery] = fasterHarness.targets!;
    expect(detection).toMatchObject({ met: null, verdict: 'differ', interval: { low: 40, high: 40, n: 3 } });
    expect(detection!.reason).toBe(
      'the two sides differ: ratio 40% is outside 80–125%, so they did different work; per-connection detection (own RST to detection): ' +
        'harness p50 2 ms, p95 2.9 ms, max 3 ms, fault spread 6.5 ms; bare p50 5 ms, p95 5.9 ms, max 6 ms, fault spread 10 ms',
    );
    expect(recovery).toMatchObject({ met: true, verdict: 'met' });
    // Above the band too: a harness at 130% of the floor is a difference of work, not a measured overhead.
    const slower = recoveryOverheadResult({
      threads: 3,
      bareFloor: FLOOR,
      pairs: [
        {
          first: 'harness',
          harness: side([13, 13, 13], [30, 30, 30], { propagation: 1, spread: 1 }),
          bare: side([10, 10, 10], [30, 30, 30], { propagation: 1, spread: 1 }),
        },
      ],
    });
    expect(slower.targets![0]).toMatchObject({ verdict: 'differ', met: null });
    // Recovery: the spread that matters is when each side's threads heard of the removal.
    const laterRecovery = recoveryOverheadResult({
      threads: 3,
      bareFloor: FLOOR,
      pairs: [
        {
          first: 'harness',
          harness: side([5, 5, 5], [60, 60, 60], { propagation: 1, spread: 1 }, [1, 2, 40]),
          bare: side([5, 5, 5], [30, 30, 30], { propagation: 1, spread: 1 }, [1, 2, 3]),
        },
      ],
    });
    expect(laterRecovery.targets![1]!.reason).toBe(
      'the two sides differ: ratio 200% is outside 80–125%, so they did different work; per-connection recovery (hearing of the removal to recovered): ' +
        'harness p50 60 ms, p95 60 ms, max 60 ms, removal heard after p50 2 ms, max 40 ms; bare p50 30 ms, p95 30 ms, max 30 ms, removal heard after p50 2 ms, max 3 ms',
    );
  });

  it('puts the verdict words of the targets in its progress line', () => {
    const line = recoveryOverheadProgress(result);
    expect(line).toMatch(/^per connection, harness vs bare: detection p50 4\.5 ms vs 5 ms \(ratio 100%; target < 110%: inconclusive\)/);
    expect(line).toMatch(/fault spread harness 5 ms, bare 14 ms; propagation 12 ms vs 20 ms \(not compared: it carries the spread\)/);
    expect(line).toMatch(/medians of 3 pairs, ratios 100%, 90%, 120% \/ 120%, 100%, 110%$/);
  });
});
