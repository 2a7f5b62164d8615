import { partitionRange, planConsumers, splitEvenly } from '../../src/suite-kit/distribution';

describe('splitEvenly / partitionRange', () => {
  it('splits into sizes that differ by at most one, larger first', () => {
    expect(splitEvenly(10, 4)).toEqual([3, 3, 2, 2]);
    expect(splitEvenly(3, 5)).toEqual([1, 1, 1, 0, 0]);
    expect(splitEvenly(0, 2)).toEqual([0, 0]);
  });

  it('covers a range with consecutive, disjoint parts', () => {
    expect(partitionRange(100, 5, 2)).toEqual([
      { start: 100, count: 3 },
      { start: 103, count: 2 },
    ]);
  });

  it('says what is wrong with its input', () => {
    expect(() => splitEvenly(-1, 2)).toThrow('total must be a non-negative integer; got -1');
    expect(() => splitEvenly(4, 0)).toThrow('parts must be a positive integer; got 0');
  });
});

describe('planConsumers: consumers over a bounded worker pool', () => {
  it('puts 900 consumers on 4 threads, each with 2 connections, never more threads', () => {
    const plan = planConsumers(900, { maxThreads: 4, maxChannelsPerConnection: 128 });
    expect(plan).toHaveLength(4);
    expect(plan.map((thread) => thread.connections)).toEqual([
      [113, 112],
      [113, 112],
      [113, 112],
      [113, 112],
    ]);
    expect(plan.map((thread) => thread.firstConsumer)).toEqual([0, 225, 450, 675]);
    expect(plan.reduce((sum, thread) => sum + thread.consumers, 0)).toBe(900);
  });

  it('uses one thread per consumer when there are fewer consumers than threads', () => {
    const plan = planConsumers(3, { maxThreads: 4, maxChannelsPerConnection: 128 });
    expect(plan.map((thread) => thread.connections)).toEqual([[1], [1], [1]]);
  });

  it('spreads an uneven count evenly, one connection per thread when channels allow', () => {
    const plan = planConsumers(10, { maxThreads: 4, maxChannelsPerConnection: 128 });
    expect(plan.map((thread) => thread.connections)).toEqual([[3], [3], [2], [2]]);
  });

  it('never exceeds the channel bound per connection', () => {
    const plan = planConsumers(1000, { maxThreads: 2, maxChannelsPerConnection: 100 });
    const connections = plan.flatMap((thread) => thread.connections);
    expect(Math.max(...connections)).toBeLessThanOrEqual(100);
    expect(connections).toHaveLength(10);
  });

  it('says which bound is wrong', () => {
    expect(() => planConsumers(0, { maxThreads: 4, maxChannelsPerConnection: 1 })).toThrow('consumers must be a positive integer; got 0');
    expect(() => planConsumers(1, { maxThreads: 0, maxChannelsPerConnection: 1 })).toThrow('maxThreads must be a positive integer; got 0');
    expect(() => planConsumers(1, { maxThreads: 1, maxChannelsPerConnection: 0.5 })).toThrow(
      'maxChannelsPerConnection must be a positive integer; got 0.5',
    );
  });
});
