/**
 * What bounds the recovery figures, on tiny inputs: the per-scenario timeline (rows in the order
 * the fault reached each thread, the median replicate of several), the floor table beside the
 * harness's figures, and the sentence each timeline carries; and the timeline, rendered, narrow
 * enough for the docs site.
 */
import { buildChartSpecs, renderSvg } from '../../src/report/charts';
import { boundNote, isRecoveryScenario, recoveryFloorTable } from '../../src/report/recoveryFloor';
import { recoveryTimeline, recoveryTimelineChart, timelineChartId } from '../../src/report/recoveryTimeline';
import type { RawResult } from '../../src/results/rawResult';
import { rawResult } from '../results/helpers';
import { figuresOf } from './support/reading';

const ms = (value: number | null) => ({ value, unit: 'ms', direction: 'lower' as const });

/** A thread's detail as computeRecoveryMetrics writes it. */
const thread = (index: number, fault: number | null, detected: number, recovered: number) => ({
  thread: index,
  fault_after_reference_ms: fault,
  detected_after_reference_ms: detected,
  recovered_after_reference_ms: recovered,
});

function resetPeer(threads: number, details: Record<string, unknown>, spread: number | null = 6): RawResult {
  return rawResult({
    name: 'recovery_after_reset_peer',
    category: 'recovery',
    parameters: { threads, client: 'amqplib' },
    metrics: { error_propagation_latency_ms: ms(12), fault_spread_ms: { value: spread, unit: 'ms', direction: 'none' } },
    details,
  });
}

function overhead(threads: number, ratios: [number, number]): RawResult {
  // Outside 80–125% the two sides differ (never met); else met below 110%.
  const target = (metric: string, ratio: number) =>
    ratio < 80 || ratio > 125
      ? {
          metric,
          comparator: '<' as const,
          threshold: 110,
          unit: '%',
          met: null,
          verdict: 'differ' as const,
          reason: 'the two sides differ: ...',
        }
      : { metric, comparator: '<' as const, threshold: 110, unit: '%', met: ratio < 110 };
  return rawResult({
    name: 'recovery_harness_overhead',
    category: 'recovery',
    parameters: { threads, client: 'amqplib' },
    metrics: {
      harness_fault_spread_ms: { value: 55, unit: 'ms', direction: 'none' },
      bare_fault_spread_ms: { value: 61, unit: 'ms', direction: 'none' },
      harness_propagation_ms: ms(72),
      bare_propagation_ms: ms(66),
      harness_connection_detection_p50_ms: ms(4.1),
      bare_connection_detection_p50_ms: ms(4.3),
      connection_detection_p50_ratio_percent: { value: ratios[0], unit: '%', direction: 'lower' },
      harness_connection_recovery_p50_ms: ms(30),
      bare_connection_recovery_p50_ms: ms(29),
      connection_recovery_p50_ratio_percent: { value: ratios[1], unit: '%', direction: 'lower' },
      harness_recovery_after_removal_ms: ms(280),
      bare_recovery_after_removal_ms: ms(250),
    },
    targets: [target('connection_detection_p50_ratio_percent', ratios[0]), target('connection_recovery_p50_ratio_percent', ratios[1])],
  });
}

describe('the recovery timeline of a scenario', () => {
  it('orders the threads by when the fault reached them, a thread without its own fault moment last', () => {
    const timeline = recoveryTimeline(
      resetPeer(3, { removal_after_reference_ms: 20, threads: [thread(0, 4, 9, 60), thread(1, null, 7, 55), thread(2, 0, 2, 50)] }),
    );
    expect(timeline).toEqual({
      rows: [
        { rank: 1, thread: 2, fault_ms: 0, detected_ms: 2, recovered_ms: 50 },
        { rank: 2, thread: 0, fault_ms: 4, detected_ms: 9, recovered_ms: 60 },
        { rank: 3, thread: 1, fault_ms: null, detected_ms: 7, recovered_ms: 55 },
      ],
      removalMs: 20,
      replicate: null,
      replicates: 1,
    });
  });

  it('shows the replicate with the median propagation when the result combines several', () => {
    const replicate = (detected: number) => ({ removal_after_reference_ms: detected + 1, threads: [thread(0, 0, detected, 90)] });
    const timeline = recoveryTimeline(resetPeer(1, { replicates: [replicate(30), replicate(10), replicate(20)] }));
    expect(timeline).toMatchObject({ replicate: 2, replicates: 3, removalMs: 21 });
  });

  it('is not drawn from a result without per-thread moments (recorded before they existed)', () => {
    expect(recoveryTimeline(resetPeer(1, { threads: [{ thread: 0, detection_ms: 3 }] }))).toBeNull();
    expect(recoveryTimelineChart(resetPeer(1, {}), [], 'bound')).toBeUndefined();
  });

  it('has an id per configuration, and renders within 640 px', async () => {
    expect(timelineChartId('TCP reset · 50 threads')).toBe('recovery-timeline-tcp-reset-50-threads');
    const threads = Array.from({ length: 50 }, (_, index) => thread(index, index * 1.2, index * 1.2 + 5, 300 + index));
    const results = [
      resetPeer(50, { removal_after_reference_ms: 80, threads, machine: { threads: 50, cpu_count: 2 } }),
      overhead(50, [109, 112]),
    ];
    const charts = buildChartSpecs(results, []).filter((chart) => chart.id.startsWith('recovery-timeline-'));
    expect(charts.map((chart) => chart.id)).toEqual(['recovery-timeline-tcp-reset-50-threads']);
    // The caption carries the scenario's bound: 50 threads on 2 cores, the bare floor at 50 threads.
    expect(charts[0]!.caption).toContain(boundNote(results[0]!, results, 2));
    expect(figuresOf(charts[0]!.caption)).toEqual(expect.arrayContaining(['50 threads', '2 cores', '66 ms']));
    const svg = await renderSvg(charts[0]!.spec);
    const width = Number(/^<svg[^>]*\swidth="([\d.]+)"/.exec(svg)?.[1]);
    expect(width > 300 && width <= 640).toBe(true);
    expect(svg).not.toMatch(/NaN|undefined/);
  }, 60_000);
});

describe('what bounds the recovery figures', () => {
  it('puts the bare floor beside the harness’s figures, one row per thread count, with the targets marked', () => {
    const floor = recoveryFloorTable([overhead(50, [109, 61.5]), overhead(10, [98.5, 112]), resetPeer(10, {})], 2);
    expect(
      floor.rows.map((row) => [
        row.threads,
        row.fault_spread,
        row.propagation,
        row.propagation_floor,
        row.connection_detection,
        row.connection_detection_ratio,
        row.connection_recovery_ratio,
      ]),
    ).toEqual([
      ['10', '55 / 61', '72', '66', '4.1 / 4.3', '98.5% ✅', '112% ❌'],
      // 61.5%: the two sides did different work, never a ✅ (nor a ❌).
      ['50', '55 / 61', '72', '66', '4.1 / 4.3', '109% ✅', '61.5% ≠'],
    ]);
    expect(floor.table.split('\n')[0]).toMatch(
      /^\| Threads \| Cores \| Fault spread \(ms\), harness \/ bare \| Propagation \(ms\) \| Bare floor \(ms\) \| Per connection: own RST to detection/,
    );
    expect(floor.note).toMatch(/outside 80–125% the two sides did different work \(≠\)/);
    expect(floor.note).toMatch(/With more threads than cores \(2 here/);
    expect(recoveryFloorTable([resetPeer(10, {})], 2)).toEqual({ rows: [], table: '', note: '' });
  });

  it('says per scenario whether the machine bounds it, its fault spread and the floor at its thread count', () => {
    const results = [overhead(10, [100, 100])];
    // More threads than cores: bound; then the fault spread, and the floor's propagation and recovery at 10 threads.
    const bound = boundNote(resetPeer(10, {}), results, 2);
    expect(bound).toMatch(/^Bound by the machine/);
    expect(figuresOf(bound)).toEqual(['10 threads', '2 cores', '6 ms', '10 threads', '66 ms', '250 ms']);
    // Fewer threads than cores, no proxy timeline, no floor at 2 threads: the two counts, no figure in ms.
    const unbound = boundNote(resetPeer(2, {}, null), results, 4);
    expect(unbound).not.toMatch(/Bound by the machine/);
    expect(unbound).toMatch(/fault spread unknown/);
    expect(figuresOf(unbound)).toEqual(['2 threads', '4 cores']);
    expect(boundNote(resetPeer(2, {}), results, null)).toMatch(/^2 threads on an unrecorded number of cores/);
  });

  it('keeps the overhead check out of the scenarios', () => {
    expect(isRecoveryScenario(overhead(10, [100, 100]))).toBe(false);
    expect(isRecoveryScenario(resetPeer(10, {}))).toBe(true);
  });
});
