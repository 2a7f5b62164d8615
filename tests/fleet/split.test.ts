/**
 * The split of one workload over N agents: each agent's producers, consumers and queues by index,
 * its share of the rate, the messages it sends (together exactly the one schedule's), whether it
 * accounts for its messages alone, and the refusal of an agent with nothing to do.
 */
import { agentPlan, splitWorkload, spreadCount } from '../../src/fleet/split';
import { messagesOfShare, wholeShare } from '../../src/load/share';
import { messagesOfProducer } from '../../src/load/traffic';
import { workloadOf } from './agentFiles';

describe('splitting a workload over agents', () => {
  test('4 agents of 4 producers, 4 consumers and 4 queues: one of each, a quarter of the rate, queues of their own', () => {
    const workload = workloadOf({ producers: 4, consumers: 4, queues: 4, rate: 5000 });
    const plans = splitWorkload(workload, 4);
    expect(plans.map((plan) => [plan.share.producers, plan.share.consumers, plan.queues])).toEqual([
      [[0], [0], [0]],
      [[1], [1], [1]],
      [[2], [2], [2]],
      [[3], [3], [3]],
    ]);
    expect(plans.map((plan) => plan.ratePerSecond)).toEqual([1250, 1250, 1250, 1250]);
    expect(plans.every((plan) => plan.accountsAlone)).toBe(true);
  });

  test('uneven: 5 producers and 2 consumers of 1 queue over 2 agents', () => {
    const workload = workloadOf({ producers: 5, consumers: 2, queues: 1, rate: 1000 });
    const plans = splitWorkload(workload, 2);
    expect(plans[0]!.share).toEqual({ producers: [0, 2, 4], consumers: [0] });
    expect(plans[1]!.share).toEqual({ producers: [1, 3], consumers: [1] });
    expect(plans.map((plan) => plan.ratePerSecond)).toEqual([600, 400]);
    // The one queue is consumed by both agents: neither accounts for its messages alone.
    expect(plans.map((plan) => plan.accountsAlone)).toEqual([false, false]);
  });

  test('the agents together send exactly the messages of the one schedule, each once', () => {
    const workload = workloadOf({ producers: 7, consumers: 1, rate: 1000 });
    const total = 10_007;
    const shares = splitWorkload(workload, 3).map((plan) => messagesOfShare(total, plan.share, workload.producers));
    expect(shares.reduce((sum, each) => sum + each, 0)).toBe(total);
    expect(messagesOfShare(total, wholeShare(workload), workload.producers)).toBe(total);
    expect(messagesOfProducer(10, 1, 4)).toBe(3); // messages 1, 5, 9
    expect(messagesOfProducer(1, 3, 4)).toBe(0);
  });

  test('agents that share queues across their share do not account alone; 2 agents over 4 queues do', () => {
    const workload = workloadOf({ producers: 4, consumers: 4, queues: 4, rate: 1000 });
    expect(agentPlan(workload, 2, 0)).toMatchObject({ queues: [0, 2], accountsAlone: true });
    const shared = workloadOf({ producers: 4, consumers: 4, queues: 3, rate: 1000 });
    expect(agentPlan(shared, 2, 0).accountsAlone).toBe(false);
  });

  test('an agent with nothing to run is refused, saying how many agents the workload takes', () => {
    const workload = workloadOf({ producers: 2, consumers: 1 });
    expect(() => splitWorkload(workload, 3)).toThrow(
      /--agents must be at most 2 for 2 producer\(s\) and 1 consumer\(s\): agent 2 would run nothing \(give more with -x\/-y\); got "3"/,
    );
    expect(() => splitWorkload(workload, 0)).toThrow(/--agents must be a whole number ≥ 1/);
  });

  test('the herd spreads connections the same way', () => {
    expect([0, 1, 2].map((index) => spreadCount(10, 3, index))).toEqual([4, 3, 3]);
    expect([0, 1, 2].map((index) => spreadCount(1000, 10, index)).every((count) => count === 100)).toBe(true);
    expect(spreadCount(2, 3, 2)).toBe(0);
  });
});
