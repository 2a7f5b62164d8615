import { MAX_SEQUENCES, resolveWorkloadOptions, type WorkloadInput } from '../../src/realistic/options';

const base: WorkloadInput = {
  directUrl: 'amqp://guest:guest@127.0.0.1:5672',
  consumers: 4,
  rounds: [
    { messages: 10, measured: false },
    { messages: 20, ratePerSecond: 100, gapAfterMs: 5, label: 'paced' },
  ],
};

describe('resolveWorkloadOptions', () => {
  it('fills every default and numbers the rounds’ sequence ranges', () => {
    const options = resolveWorkloadOptions(base);
    expect(options).toMatchObject({
      consumerUrl: base.directUrl,
      producerUrl: base.directUrl,
      sequences: 30,
      producerThreads: 1,
      maxConsumerThreads: 4,
      maxChannelsPerConnection: 128,
      prefetch: 100,
      messageBytes: 256,
      confirms: false,
      persistent: false,
      durableQueue: false,
      recover: false,
      maxInFlight: 500,
      client: { name: 'amqplib', profile: 'defaults' },
      startupBoundMs: 30_200,
      roundBoundMs: 60_000,
      connectBoundMs: 15_000,
      graceMs: 250,
    });
    expect(options.rounds).toEqual([
      { index: 0, label: 'round 0', messages: 10, measured: false, ratePerSecond: null, gapAfterMs: 0, firstSeq: 0 },
      { index: 1, label: 'paced', messages: 20, measured: true, ratePerSecond: 100, gapAfterMs: 5, firstSeq: 10 },
    ]);
    expect(Object.isFrozen(options)).toBe(true);
  });

  it('does not change its input', () => {
    const input = { ...base, client: { name: 'rabbitmq-client', profile: 'normalised' } as const };
    resolveWorkloadOptions(input);
    expect(input).toEqual({ ...base, client: { name: 'rabbitmq-client', profile: 'normalised' } });
  });

  it.each<[string, Partial<WorkloadInput>, string]>([
    ['no rounds', { rounds: [] }, 'workload rounds must list at least one round (e.g. [{ messages: 1000 }])'],
    ['zero messages', { rounds: [{ messages: 0 }] }, 'workload rounds[0].messages must be a positive integer; got 0'],
    [
      'a bad rate',
      { rounds: [{ messages: 1, ratePerSecond: 0 }] },
      'workload rounds[0].ratePerSecond must be > 0 (or left out for no pacing); got 0',
    ],
    ['a negative gap', { rounds: [{ messages: 1, gapAfterMs: -1 }] }, 'workload rounds[0].gapAfterMs must be a number >= 0; got -1'],
    [
      'too many messages',
      { rounds: [{ messages: MAX_SEQUENCES }, { messages: 1 }] },
      `workload rounds publish ${MAX_SEQUENCES + 1} messages in all; at most ${MAX_SEQUENCES} are supported`,
    ],
    [
      'recovery without confirms',
      { recover: true },
      'workload recover needs confirms: true (a producer knows what to publish again only from the confirms it did not get)',
    ],
    ['no consumers', { consumers: 0 }, 'workload consumers must be a positive integer; got 0'],
    ['fractional threads', { producerThreads: 1.5 }, 'workload producerThreads must be a positive integer; got 1.5'],
    ['zero prefetch', { prefetch: 0 }, 'workload prefetch must be a positive integer; got 0'],
    ['negative grace', { graceMs: -5 }, 'workload graceMs must be a number >= 0; got -5'],
  ])('refuses %s, saying what to change', (_, change, message) => {
    expect(() => resolveWorkloadOptions({ ...base, ...change })).toThrow(message);
  });
});
