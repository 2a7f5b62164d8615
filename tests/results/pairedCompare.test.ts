import { comparePaired } from '../../src/results/pairedCompare';
import { DEFAULT_MINIMUM_EFFECTS } from '../../src/minimumEffects';
import type { ComparableRun } from '../../src/results/compare';
import { countVerdicts, regressionsBeyond } from '../../src/results/gate';
import { describeBaseline, describeCurrent, describeSignificance, methodNotes } from '../../src/report/comparisonView';
import { environment, rawResult, spread } from './helpers';
import type { RawResult } from '../../src/results/rawResult';

/** One publish configuration with its replicates in order (the first is the warm-up pair's). */
function publish(threads: number, rates: number[], client = 'amqplib'): RawResult {
  return rawResult({
    name: 'publish_throughput',
    parameters: { threads, client },
    metrics: {
      throughput_msgs_per_sec: { value: rates[1]!, unit: 'msg/s', direction: 'higher' },
      errors: { value: 0, unit: 'count', direction: 'lower' },
    },
    replicates: { throughput_msgs_per_sec: rates, errors: rates.map(() => 0) },
  });
}

const side = (runId: string, results: RawResult[], fingerprint = 'abcd1234'): ComparableRun => ({
  run_id: runId,
  started_at: '2025-01-31T12:00:00.000Z',
  environment: environment({ fingerprint }),
  results,
});

const rateOf = (comparison: ReturnType<typeof comparePaired>, threads: number) =>
  comparison.matched.find((result) => result.parameters.threads === threads)!.metrics.find((m) => m.metric === 'throughput_msgs_per_sec')!;

describe('comparePaired: two builds taking turns in one run', () => {
  it('judges a metric on its pairs after the warm-up pair (exact values on a tiny input)', () => {
    // The warm-up pair (first) is wildly apart and must not count; the rest is scipy's
    // ttest_rel(log([110, 210, 330]), log([100, 200, 300])): ratio 1.0830742312633421, p = 0.035744521139839495.
    const comparison = comparePaired(side('run_a', [publish(10, [5, 100, 200, 300])]), side('run_b', [publish(10, [500, 110, 210, 330])]));
    const rate = rateOf(comparison, 10);
    expect(comparison.design).toBe('paired');
    expect(rate).toMatchObject({
      // Each side's median over its pairs, the warm-up left out.
      previous: 200,
      current: 210,
      baseline: { kind: 'pairs', run_id: 'run_a', n: 3, center: 200 },
      n_current: 3,
      test: 'paired-t',
      minimum_effect: { percent: 5, absolute: 0, source: 'paired' },
    });
    expect(rate.p_value).toBeCloseTo(0.035744521139839495, 12);
    // The only judged metric (errors are equal on every pair: left out of the correction): q = p.
    expect(comparison.correction.judged).toBe(1);
    expect(rate.q_value).toBeCloseTo(0.035744521139839495, 12);
    expect(rate.change!.estimate_percent).toBeCloseTo(8.30742312633421, 10);
    expect(rate.change!.estimate).toBeCloseTo(200 * 0.0830742312633421, 10);
    expect(rate.verdict).toBe('better');
    expect(describeBaseline(rate)).toBe('200 msg/s (3 pairs)');
    expect(describeCurrent(rate)).toBe('210 msg/s (3 pairs)');
    expect(describeSignificance(rate)).toBe('paired t 3 pairs p=0.036, q=0.036');
  });

  it('keeps identical code green and catches one side 10% slower, naming the metrics', () => {
    const configurations = [10, 50, 100, 200];
    const baseline = side(
      'run_a',
      configurations.map((threads) => publish(threads, spread(10_000 + threads * 10, 7, threads))),
    );
    // The same machine drift reaches both members of a pair; the candidate adds its own 1% noise.
    const same = side(
      'run_b',
      configurations.map((threads) =>
        publish(
          threads,
          spread(10_000 + threads * 10, 7, threads).map((rate, i) => rate * (1 + 0.01 * Math.cos(i * 3 + threads))),
        ),
      ),
    );
    const aa = comparePaired(baseline, same);
    expect(countVerdicts(aa)).toMatchObject({ worse: 0, better: 0 });
    expect(regressionsBeyond(aa, 0)).toEqual([]);

    const slower = side(
      'run_b',
      configurations.map((threads) =>
        publish(
          threads,
          spread(10_000 + threads * 10, 7, threads).map((rate, i) => rate * 0.9 * (1 + 0.01 * Math.cos(i * 3 + threads))),
        ),
      ),
    );
    const ab = comparePaired(baseline, slower);
    expect(configurations.map((threads) => rateOf(ab, threads).verdict)).toEqual(['worse', 'worse', 'worse', 'worse']);
    const regressions = regressionsBeyond(ab, 5);
    expect(regressions.map((regression) => regression.result)).toEqual(
      configurations.map((threads) => `publish_throughput{client=amqplib, threads=${threads}}`),
    );
    for (const regression of regressions) expect(regression.metric.change!.estimate_percent).toBeCloseTo(-10, 0);
  });

  it('corrects the p-values of every judged metric together (Benjamini–Hochberg) and needs a change beyond the paired minimum effect', () => {
    // Warm-up pair first (not judged), then 5 pairs. Expected values from scipy 1.17:
    // ttest_rel(log(candidate), log(baseline)).pvalue, and false_discovery_control over the three.
    const baseline = [1, 1000, 1100, 900, 1050, 950];
    const candidates: Record<number, number[]> = {
      1: [1, 970, 1064.8, 874.8, 1017.45, 922.45], // 3.0% slower in every pair: certain, but within the 5% minimum
      2: [1, 900, 1023, 792, 955.5, 874], // 9.2% slower: significant and beyond the minimum
      3: [1, 1050, 1034, 918, 1018.5, 978.5], // noise
    };
    const threads = [1, 2, 3];
    const comparison = comparePaired(
      side(
        'run_a',
        threads.map((each) => publish(each, baseline)),
      ),
      side(
        'run_b',
        threads.map((each) => publish(each, candidates[each]!)),
      ),
    );
    // Three judged metrics (the errors, 0 in every pair, are left out of the correction).
    expect(comparison.correction).toEqual({ method: 'benjamini-hochberg', judged: 3 });
    const expected = [
      { p: 1.9607186564053917e-6, q: 5.8821559692161755e-6, percent: -3.0001030929149852, verdict: 'same' },
      { p: 0.0005274650107427569, q: 0.0007911975161141354, percent: -9.21638549717968, verdict: 'worse' },
      { p: 0.9574422557031397, q: 0.9574422557031397, percent: 0.11640735090987508, verdict: 'same' },
    ];
    for (const [index, each] of threads.entries()) {
      const rate = rateOf(comparison, each);
      expect(rate.p_value! / expected[index]!.p).toBeCloseTo(1, 9);
      expect(rate.q_value! / expected[index]!.q).toBeCloseTo(1, 9);
      expect(rate.change!.estimate_percent).toBeCloseTo(expected[index]!.percent, 9);
      expect({ threads: each, verdict: rate.verdict }).toEqual({ threads: each, verdict: expected[index]!.verdict });
    }
    // The minimum effect is what keeps a certain 3% change from a red gate at --threshold 0; a wider one keeps 9% too.
    expect(regressionsBeyond(comparison, 0).map((regression) => regression.result)).toEqual([
      'publish_throughput{client=amqplib, threads=2}',
    ]);
    const wide = comparePaired(
      side(
        'run_a',
        threads.map((each) => publish(each, baseline)),
      ),
      side(
        'run_b',
        threads.map((each) => publish(each, candidates[each]!)),
      ),
      {
        minimumEffects: {
          ...DEFAULT_MINIMUM_EFFECTS,
          paired: { ...DEFAULT_MINIMUM_EFFECTS.paired, throughput: { relativePercent: 10, absolute: 0 } },
        },
      },
    );
    expect(rateOf(wide, 2)).toMatchObject({ verdict: 'same', minimum_effect: { percent: 10, source: 'paired' } });
  });

  it('says why a metric is not judged: no replicates, replicates that cannot be paired, too few pairs', () => {
    const once = (threads: number) =>
      rawResult({
        name: 'realistic_burst_traffic',
        parameters: { threads },
        metrics: { burst_drain_p50_ms: { value: 180, unit: 'ms', direction: 'lower' } },
      });
    const comparison = comparePaired(
      side('run_a', [once(1), publish(2, [1, 2, 3, 4, 5]), publish(3, [1, 2])]),
      side('run_b', [once(1), publish(2, [1, 2, 3, 4]), publish(3, [1, 2])]),
    );
    const reasons = comparison.matched.map((result) => result.metrics[0]!.reason);
    expect(reasons).toEqual([
      'not judged: measured once on each side: no pairs (the benchmark has no replicates)',
      'not judged: the sides have 5 and 4 values (a replicate without one): which replicates were measured together is unknown',
      'not judged: 1 pair(s) after the warm-up pair: at least 2 needed',
    ]);
    expect(comparison.matched.map((result) => result.metrics[0]!.verdict)).toEqual(['unknown', 'unknown', 'unknown']);
  });

  it('pairs two adapter modules’ results by what was measured, not by the client’s name', () => {
    const a = side('run_a', [publish(10, [9, 100, 200, 300], 'my-client')]);
    const b = side('run_b', [publish(10, [9, 100, 200, 300], 'my-client-patched')]);
    expect(comparePaired(a, b).matched).toEqual([]);
    const paired = comparePaired(a, b, { ignoreParameters: ['client'] });
    expect(paired.matched.map((result) => result.key)).toEqual(['publish_throughput{threads=10}']);
    expect(rateOf(paired, 10).verdict).toBe('same');
  });

  it('explains itself in the paired words', () => {
    const notes = methodNotes(comparePaired(side('run_a', [publish(10, [1, 2, 3])]), side('run_b', [publish(10, [1, 2, 3])])));
    expect(notes[0]).toMatch(/^Pairs: both builds ran in one run, taking turns replicate by replicate \(A B B A …\)/);
    expect(notes[3]).toBe(
      'Minimum effect: a significant change counts only beyond its family\'s paired minimum: throughput ±5%, latency ±10%, recovery ±10%, counts ±50% (BENCH_MIN_EFFECTS "paired").',
    );
  });
});
