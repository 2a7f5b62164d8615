import { createLatencyHistogram } from '../../src/measure/histogram';
import type { PublishThroughputOutcome } from '../../src/throughput/measure';
import { incompleteRoundFinding } from '../../src/throughput/incompleteRound';
import { resolvePublishWorkload } from '../../src/throughput/plan';
import { publishThroughputResult } from '../../src/throughput/result';
import type { RoundOutcome } from '../../src/throughput/session';

const workload = resolvePublishWorkload({ threads: 100, messagesPerThread: 100, mode: 'confirm', rounds: 2, roundBoundMs: 20_000 });

function round(n: number, warmup: boolean, published: number, durationMs: number, cut: boolean): RoundOutcome {
  const msgsPerSec = (published * 1000) / durationMs;
  return {
    round: n,
    warmup,
    cut,
    startedNs: 0n,
    completedNs: BigInt(Math.round(durationMs * 1e6)),
    durationMs,
    published,
    errors: 0,
    unsettled: 0,
    expected: 10_000,
    received: published,
    msgsPerSec,
    mbPerSec: (msgsPerSec * 256) / 1e6,
  };
}

const outcomeOf = (rounds: RoundOutcome[]): PublishThroughputOutcome => ({
  workload,
  rounds,
  report: { workers: [], histogram: createLatencyHistogram(), errorSamples: [] },
});

const rascal = { library: 'rascal', version: '21.0.1', settings: { 'connection.socketOptions.noDelay': 'default (false: Nagle on)' } };

describe('a round cut at the round bound', () => {
  const cutFirst = outcomeOf([round(1, true, 4000, 20_000, true)]);

  it('is no complete round: throughput has no value, the cut round is its own undirected figure with what was published within the bound', () => {
    const result = publishThroughputResult(cutFirst);
    expect(result.metrics.throughput_msgs_per_sec?.value).toBeNull();
    expect(result.samples?.throughput_msgs_per_sec).toEqual([]);
    expect(result.metrics.incomplete_round_msgs_per_sec).toEqual({ value: 200, unit: 'msg/s', direction: 'none' });
    expect(result.details?.cut_round).toEqual({
      round: 1,
      warmup: true,
      published: 4000,
      expected: 10_000,
      received: 4000,
      duration_ms: 20_000,
      msgs_per_sec: 200,
    });
    expect(result.details?.round_bound_ms).toBe(20_000);
    // The 6000 never published are not missing: only what was published was expected in the queue.
    expect(result.details?.messages_missing).toBe(0);
    expect(publishThroughputResult(outcomeOf([{ ...round(1, true, 4000, 20_000, true), received: 3990 }])).details?.messages_missing).toBe(
      10,
    );
    expect(result.notes).toContain(
      "incomplete_round_msgs_per_sec: round 1 (warm-up) did not finish within the round bound of 20000 ms and was cut there: 4000 of 10000 messages published and confirmed in 20000 ms, 200 msg/s over the part of the round run. An incomplete round: the whole round would have taken longer than the bound, so this is no complete round's rate and is never judged as one; the measurement stopped there (no complete measured round, so throughput has no value)",
    );
  });

  it('keeps the complete measured rounds before it as the throughput, and never mixes the cut one in', () => {
    const result = publishThroughputResult(
      outcomeOf([round(1, true, 10_000, 10_000, false), round(2, false, 10_000, 5000, false), round(3, false, 5000, 20_000, true)]),
    );
    expect(result.metrics.throughput_msgs_per_sec?.value).toBe(2000);
    expect(result.samples?.throughput_msgs_per_sec).toEqual([2000]);
    expect(result.metrics.incomplete_round_msgs_per_sec?.value).toBe(250);
  });

  it('has no incomplete figure when every round finished', () => {
    const result = publishThroughputResult(outcomeOf([round(1, true, 10_000, 5000, false), round(2, false, 10_000, 5000, false)]));
    expect(result.metrics.incomplete_round_msgs_per_sec).toBeUndefined();
    expect(result.details?.cut_round).toBeNull();
    expect(incompleteRoundFinding([outcomeOf([round(1, false, 10_000, 5000, false)])], rascal)).toBeUndefined();
  });

  it('is a finding naming each cut round, the client and its Nagle setting', () => {
    expect(
      incompleteRoundFinding([cutFirst, outcomeOf([round(1, true, 10_000, 19_000, false), round(2, false, 3000, 20_010, true)])], rascal),
    ).toEqual({
      kind: 'round_incomplete',
      text: "2 round(s) of 10000 messages not finished within the round bound of 20000 ms: each was cut there, its figure is what the client published and confirmed within it (an incomplete round, not a complete round's rate), and the measurement stopped after it",
      count: 2,
      evidence: [
        'replicate 1, round 1 (warm-up): 4000 of 10000 in 20000 ms (200 msg/s)',
        'replicate 2, round 2: 3000 of 10000 in 20010 ms (149.9 msg/s)',
        'rascal 21.0.1',
        'connection.socketOptions.noDelay: default (false: Nagle on)',
      ],
    });
  });
});
