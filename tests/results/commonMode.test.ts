/**
 * Common-mode shifts on constructed runs: every publish configuration of a run about 22% slower
 * than the run before (as a shared machine does when a neighbour starts), with or without the
 * run's bare floor (the harness/bare witness) moving with them.
 */
import { compareRuns, type ComparableRun } from '../../src/results/compare';
import { regressionsBeyond } from '../../src/results/gate';
import { machineShiftNotes } from '../../src/report/comparisonView';
import { environment, rawResult, spread } from './helpers';
import type { RawResult } from '../../src/results/rawResult';

const CONFIGS = [10, 50, 100].flatMap((threads) => (['plain', 'confirm'] as const).map((mode) => ({ threads, mode })));

/** One publish configuration, 6 replicates around `rate` (±2%, different for each configuration and run). */
function publish(threads: number, mode: string, rate: number, seed: number): RawResult {
  const rates = spread(rate, 6, seed);
  const median = [...rates]
    .sort((a, b) => a - b)
    .slice(2, 4)
    .reduce((sum, each) => sum + each / 2, 0);
  return rawResult({
    name: 'publish_throughput',
    parameters: { threads, publish_mode: mode },
    metrics: {
      throughput_msgs_per_sec: { value: median, unit: 'msg/s', direction: 'higher' },
      throughput_mb_per_sec: { value: (median * 256) / 1e6, unit: 'MB/s', direction: 'higher' },
    },
    replicates: { throughput_msgs_per_sec: rates, throughput_mb_per_sec: rates.map((each) => (each * 256) / 1e6) },
  });
}

/** The harness/bare witness: the library's bare script beside the harness, in the same run. */
function floor(bareRate: number, seed: number): RawResult {
  const bare = spread(bareRate, 6, seed);
  return rawResult({
    name: 'harness_overhead',
    parameters: { threads: 1 },
    metrics: {
      harness_msgs_per_sec: { value: bareRate, unit: 'msg/s', direction: 'higher' },
      bare_msgs_per_sec: { value: bareRate, unit: 'msg/s', direction: 'none' },
    },
    replicates: { harness_msgs_per_sec: bare, bare_msgs_per_sec: bare },
  });
}

function run(runId: string, speed: number, floorSpeed: number | null, seed: number): ComparableRun {
  const results = CONFIGS.map(({ threads, mode }, index) => publish(threads, mode, (10_000 + 1000 * index) * speed, seed + index));
  return {
    run_id: runId,
    started_at: '2025-01-31T12:00:00.000Z',
    environment: environment(),
    results: floorSpeed === null ? results : [...results, floor(30_000 * floorSpeed, seed + 20)],
  };
}

const throughputVerdicts = (comparison: ReturnType<typeof compareRuns>) =>
  comparison.matched.filter((result) => result.name === 'publish_throughput').flatMap((result) => result.metrics.map((m) => m.verdict));

describe('a machine that shifted as a whole', () => {
  it('is named, and the client metrics are judged relative to the floor, when the bare floor moved with them', () => {
    const comparison = compareRuns(run('run_a', 1, 1, 1), run('run_b', 0.78, 0.8, 3));
    expect(comparison.machine_shifts).toEqual([
      expect.objectContaining({
        family: 'throughput',
        metrics: 12,
        same_way: 12,
        relative_to_floor: true,
        floor: ['harness_overhead{threads=1} bare_msgs_per_sec'],
      }),
    ]);
    const [shift] = comparison.machine_shifts;
    expect(shift!.floor_speed_change_percent).toBeCloseTo(-20, 0);
    expect(shift!.family_speed_change_percent).toBeCloseTo(-22, 0);
    expect(shift!.applied_speed_ratio).toBeCloseTo(0.8, 2);
    // 22% slower on a machine 20% slower: about 2.5% relative to the floor, within the 20% minimum effect.
    expect(throughputVerdicts(comparison).every((verdict) => verdict === 'same')).toBe(true);
    const rate = comparison.matched[0]!.metrics[0]!;
    expect(rate.change!.estimate_percent).toBeGreaterThan(-6);
    expect(rate.change!.estimate_percent).toBeLessThan(0);
    expect(rate.reason).toContain('judged relative to the bare floor (the machine at 80.');
    // The values shown are still what was measured.
    expect(rate.current! / rate.previous!).toBeCloseTo(0.78, 1);
    expect(regressionsBeyond(comparison, 10)).toEqual([]);
    expect(machineShiftNotes(comparison)).toEqual([
      expect.stringMatching(
        /^The machine shifted by −20\.\d% during this run: 12 of 12 throughput metrics moved the same way together \(median −22\.\d% in speed\), and the bare floor \(the library alone, harness\/bare\) moved with them: throughput metrics are judged relative to the floor\.$/,
      ),
    ]);
  });

  it('still catches a slower client: the floor stayed where it was, so it was not the machine', () => {
    const comparison = compareRuns(run('run_a', 1, 1, 1), run('run_b', 0.78, 1, 3));
    expect(comparison.machine_shifts).toEqual([
      expect.objectContaining({ family: 'throughput', relative_to_floor: false, applied_speed_ratio: 1 }),
    ]);
    expect(throughputVerdicts(comparison).every((verdict) => verdict === 'worse')).toBe(true);
    expect(regressionsBeyond(comparison, 10)).toHaveLength(12);
    expect(machineShiftNotes(comparison)[0]).toMatch(
      /, but the bare floor moved [+−±]\d+\.\d%: not the machine as a whole; judged as they are\.$/,
    );
  });

  it('is named but judged as it is when the run has no floor to tell the machine from the code', () => {
    const comparison = compareRuns(run('run_a', 1, null, 1), run('run_b', 0.78, null, 3));
    expect(comparison.machine_shifts).toEqual([
      expect.objectContaining({ family: 'throughput', floor_speed_change_percent: null, relative_to_floor: false }),
    ]);
    expect(throughputVerdicts(comparison).every((verdict) => verdict === 'worse')).toBe(true);
    expect(machineShiftNotes(comparison)[0]).toContain('this run has no bare floor');
  });

  it('is not seen where the metrics did not move together, or moved too little', () => {
    const mixed = run('run_b', 1, 0.8, 3);
    const slower = run('run_b', 0.75, 0.8, 3);
    // Half the configurations 25% slower, half as before: not the machine.
    const half = { ...mixed, results: mixed.results.map((result, index) => (index % 2 === 0 ? slower.results[index]! : result)) };
    expect(compareRuns(run('run_a', 1, 1, 1), half).machine_shifts).toEqual([]);
    // Everything 4% slower together: within half the family's 20% minimum effect, nothing to explain.
    expect(compareRuns(run('run_a', 1, 1, 1), run('run_b', 0.96, 0.96, 3)).machine_shifts).toEqual([]);
  });
});
