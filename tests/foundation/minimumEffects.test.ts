import fs from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../../src/errors';
import { DEFAULT_MINIMUM_EFFECTS, familyOf, minimumEffectsFrom, resolveMinimumEffects } from '../../src/minimumEffects';
import { timesAreRecovery } from '../../src/scenarios/catalogue';
import { tempDir } from '../results/helpers';

describe('metric families', () => {
  it.each([
    ['throughput_msgs_per_sec', 'msg/s', false, 'higher', 'throughput'],
    ['throughput_mb_per_sec', 'MB/s', false, 'higher', 'throughput'],
    ['consume_throughput_msgs_per_sec', 'msg/s', true, 'higher', 'throughput'],
    ['ratio_percent', '%', false, 'higher', 'throughput'],
    ['publish_latency_p99_ms', 'ms', false, 'lower', 'latency'],
    ['e2e_latency_p50_ms', 'ms', false, 'lower', 'latency'],
    ['proxied_p99_ms', 'ms', false, 'lower', 'latency'],
    ['thread_recovery_p50_ms', 'ms', true, 'lower', 'recovery'],
    ['rst_error_detection_latency_ms', 'ms', true, 'lower', 'recovery'],
    ['errors', 'count', true, 'lower', 'counts'],
    ['duplicates', 'count', false, 'lower', 'counts'],
    ['message_loss_percent', '%', false, 'lower', 'counts'],
  ] as const)('%s (%s, recovery times: %s, %s) is %s', (metric, unit, recovery, direction, family) => {
    expect(familyOf(metric, unit, recovery, direction)).toBe(family);
  });

  it('takes recovery times from the scenario descriptors, older categories included', () => {
    expect(timesAreRecovery({ name: 'recovery_after_reset_peer', category: 'recovery' })).toBe(true);
    expect(timesAreRecovery({ name: 'cluster_failover_node_killed', category: 'resilience' })).toBe(true);
    expect(timesAreRecovery({ name: 'realistic_periodic_resets', category: 'resilience' })).toBe(true);
    expect(timesAreRecovery({ name: 'realistic_burst_traffic', category: 'scalability' })).toBe(false);
    expect(timesAreRecovery({ name: 'fault_matrix_alarm', category: 'faults' })).toBe(false);
    // A family the catalogue does not know: by the suite its category names.
    expect(timesAreRecovery({ name: 'my_own_recovery', category: 'recovery' })).toBe(true);
    expect(timesAreRecovery({ name: 'my_own_workload', category: 'throughput' })).toBe(false);
  });
});

describe('BENCH_MIN_EFFECTS', () => {
  it('defaults per family, documented in one place', () => {
    expect(resolveMinimumEffects(undefined)).toBe(DEFAULT_MINIMUM_EFFECTS);
    expect(resolveMinimumEffects('  ')).toBe(DEFAULT_MINIMUM_EFFECTS);
    expect(DEFAULT_MINIMUM_EFFECTS).toEqual({
      families: {
        throughput: { relativePercent: 20, absolute: 0 },
        latency: { relativePercent: 30, absolute: 0.01 },
        recovery: { relativePercent: 30, absolute: 1 },
        counts: { relativePercent: 50, absolute: 1 },
      },
      paired: {
        throughput: { relativePercent: 5, absolute: 0 },
        latency: { relativePercent: 10, absolute: 0.01 },
        recovery: { relativePercent: 10, absolute: 1 },
        counts: { relativePercent: 50, absolute: 1 },
      },
      learnFromRuns: 3,
      historyRuns: 10,
    });
  });

  it('takes inline JSON or a file; what it does not say keeps its default', () => {
    const inline = resolveMinimumEffects('{"throughput": {"relative_percent": 12}, "learn_from_runs": 0}');
    expect(inline.families.throughput).toEqual({ relativePercent: 12, absolute: 0 });
    expect(inline.families.latency).toEqual(DEFAULT_MINIMUM_EFFECTS.families.latency);
    expect(inline.learnFromRuns).toBe(0);
    expect(inline.historyRuns).toBe(10);
    expect(inline.paired).toEqual(DEFAULT_MINIMUM_EFFECTS.paired);

    // Paired runs (bench ab) have minimums of their own, set the same way under "paired".
    const paired = resolveMinimumEffects('{"paired": {"throughput": {"relative_percent": 3}}}');
    expect(paired.paired.throughput).toEqual({ relativePercent: 3, absolute: 0 });
    expect(paired.paired.recovery).toEqual(DEFAULT_MINIMUM_EFFECTS.paired.recovery);
    expect(paired.families).toEqual(DEFAULT_MINIMUM_EFFECTS.families);

    const dir = tempDir('min-effects');
    try {
      fs.writeFileSync(path.join(dir, 'effects.json'), JSON.stringify({ recovery: { absolute: 5 }, history_runs: 20 }));
      const fromFile = resolveMinimumEffects('effects.json', dir);
      expect(fromFile.families.recovery).toEqual({ relativePercent: 30, absolute: 5 });
      expect(fromFile.historyRuns).toBe(20);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it.each([
    [
      '/nope/effects.json',
      'BENCH_MIN_EFFECTS must be inline JSON (starting with "{") or the path of a readable JSON file; got "/nope/effects.json"',
    ],
    ['{"throughput": 20', 'BENCH_MIN_EFFECTS must be valid JSON'],
    [
      '{"latncy": {}}',
      'BENCH_MIN_EFFECTS key "latncy" must be one of throughput, latency, recovery, counts, paired, learn_from_runs, history_runs; got "latncy"',
    ],
    [
      '{"latency": {"relative_percent": -5}}',
      'BENCH_MIN_EFFECTS latency.relative_percent must be a percentage of 0 or more (e.g. 20); got "-5"',
    ],
    [
      '{"latency": {"relative_percent": "30"}}',
      'BENCH_MIN_EFFECTS latency.relative_percent must be a percentage of 0 or more (e.g. 20); got "\\"30\\""',
    ],
    ['{"counts": {"absolut": 1}}', 'BENCH_MIN_EFFECTS counts key "absolut" must be one of relative_percent, absolute; got "absolut"'],
    [
      '{"paired": {"latncy": {}}}',
      'BENCH_MIN_EFFECTS paired key "latncy" must be one of throughput, latency, recovery, counts; got "latncy"',
    ],
    [
      '{"paired": {"throughput": {"relative_percent": -1}}}',
      'BENCH_MIN_EFFECTS paired throughput.relative_percent must be a percentage of 0 or more (e.g. 20); got "-1"',
    ],
    ['{"counts": 3}', 'BENCH_MIN_EFFECTS counts must be an object with relative_percent and/or absolute; got "3"'],
    ['{"learn_from_runs": 1}', 'BENCH_MIN_EFFECTS learn_from_runs must be a whole number of runs: 0 (never learn) or 2 and more; got "1"'],
    [
      '{"learn_from_runs": 2.5}',
      'BENCH_MIN_EFFECTS learn_from_runs must be a whole number of runs: 0 (never learn) or 2 and more; got "2.5"',
    ],
    ['{"history_runs": 1}', 'BENCH_MIN_EFFECTS history_runs must be a whole number of runs, 2 or more; got "1"'],
  ])('%s is refused, saying what is expected', (raw, message) => {
    let caught: unknown;
    try {
      resolveMinimumEffects(raw, '/');
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    expect((caught as Error).message.startsWith(message)).toBe(true);
  });

  it('refuses a document that is not an object', () => {
    expect(() => minimumEffectsFrom([1, 2])).toThrow('BENCH_MIN_EFFECTS must be a JSON object with any of throughput, latency');
  });
});
