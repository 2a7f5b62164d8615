/**
 * A client too slow for its round bound, against the real broker: the round is cut at the bound
 * and what was published and confirmed within it is the figure and the finding, not a failure
 * of the harness; a worker that fails still fails the round.
 */
import path from 'node:path';
import { clientInfo } from '../../src/client/registry';
import { getConfig } from '../../src/config';
import { WorkerError } from '../../src/errors';
import { incompleteRoundFinding } from '../../src/throughput/incompleteRound';
import { measurePublishThroughput } from '../../src/throughput/measure';
import { resolvePublishWorkload } from '../../src/throughput/plan';
import { publishThroughputResult } from '../../src/throughput/result';

const url = getConfig().amqpUrl;

const slowConfirms = {
  name: 'fixture-slow-confirms',
  profile: 'normalised' as const,
  module: path.join(__dirname, '../fixtures/adapters/slow-confirms.js'),
};

/** One publisher, 200 confirms a round at 20 ms or more each (about 4 s), bound 1 s. */
const workload = resolvePublishWorkload({
  threads: 1,
  messagesPerThread: 200,
  mode: 'confirm',
  rounds: 2,
  warmupRounds: 1,
  roundBoundMs: 1000,
  publishBoundMs: 500,
});

describe('a client slower than the round bound (real broker)', () => {
  it('has its first round cut at the bound: what it confirmed within it is in the queue, a figure and a finding, and the measurement stops there', async () => {
    const outcome = await measurePublishThroughput({ url, client: slowConfirms, firstUseWarmupPublishesPerThread: 0 }, workload);
    expect(outcome.rounds).toHaveLength(1);
    const [cut] = outcome.rounds;
    expect({ round: cut!.round, warmup: cut!.warmup, cut: cut!.cut, errors: cut!.errors, unsettled: cut!.unsettled }).toEqual({
      round: 1,
      warmup: true,
      cut: true,
      errors: 0,
      unsettled: 0,
    });
    // At 20 ms a publish, 1 s holds at most 50; the round was cut well before its 200.
    expect(cut!.published).toBeGreaterThan(0);
    expect(cut!.published).toBeLessThanOrEqual(50);
    expect(cut!.received).toBe(cut!.published);
    expect(cut!.durationMs).toBeGreaterThan(900);
    expect(outcome.report.workers.map((worker) => worker.fatal)).toEqual([undefined]);

    const result = publishThroughputResult(outcome);
    expect(result.metrics.throughput_msgs_per_sec?.value).toBeNull();
    expect(result.metrics.incomplete_round_msgs_per_sec?.value).toBeGreaterThan(0);
    expect(result.metrics.incomplete_round_msgs_per_sec?.value).toBeLessThanOrEqual(55);
    const finding = incompleteRoundFinding([outcome], clientInfo(slowConfirms));
    expect(finding).toMatchObject({ kind: 'round_incomplete', count: 1 });
    expect(finding?.evidence[0]).toMatch(new RegExp(`^replicate 1, round 1 \\(warm-up\\): ${cut!.published} of 200 in \\d+ ms`));
  }, 60_000);

  it('finishes every round within a bound it can meet: no cut, no finding', async () => {
    const roomy = resolvePublishWorkload({ ...workload, messagesPerThread: 10, rounds: 1, roundBoundMs: 10_000, publishBoundMs: 5000 });
    const outcome = await measurePublishThroughput({ url, client: slowConfirms, firstUseWarmupPublishesPerThread: 0 }, roomy);
    expect(outcome.rounds.map((round) => [round.cut, round.published, round.received])).toEqual([
      [false, 10, 10],
      [false, 10, 10],
    ]);
    expect(incompleteRoundFinding([outcome], clientInfo(slowConfirms))).toBeUndefined();
  }, 60_000);

  it('still fails when its workers cannot connect: a harness failure, never a cut round', async () => {
    const neverConnects = {
      name: 'fixture-never-connects',
      profile: 'normalised' as const,
      module: path.join(__dirname, '../fixtures/adapters/never-connects.js'),
    };
    const failure = await measurePublishThroughput({ url, client: neverConnects, firstUseWarmupPublishesPerThread: 0 }, workload).catch(
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(WorkerError);
    expect((failure as WorkerError).message).toMatch(/^publish workers failed to start; worker 0: could not connect .*never connects/);
  }, 60_000);
});
