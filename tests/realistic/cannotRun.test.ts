import { cannotRunDraft, cannotRunReason } from '../../src/realistic/cannotRun';

const one = { library: 'one-sub-lib', consumersPerQueue: 'one' } as const;
const many = { library: 'many-sub-lib', consumersPerQueue: 'many' } as const;
// The quick massive-consumers row: 20 consumers on at most 4 worker threads, up to 128 channels a connection.
const massive = { consumers: 20, maxConsumerThreads: 4, maxChannelsPerConnection: 128 };

describe('cannotRunReason', () => {
  it('a library with one subscription per queue per connection cannot run consumers sharing a connection, and says why', () => {
    expect(cannotRunReason(one, massive)).toBe(
      "one-sub-lib keeps one subscription per queue per connection (its adapter's consumersPerQueue: 'one'), " +
        'and this row puts 20 consumers of one queue on 4 connection(s) over 4 worker thread(s) (up to 5 on a connection): ' +
        'it cannot run as named, and one connection per consumer would be another row',
    );
  });

  it('the same library can run a layout of one consumer a connection', () => {
    expect(cannotRunReason(one, { consumers: 4, maxConsumerThreads: 4, maxChannelsPerConnection: 128 })).toBeUndefined();
    expect(cannotRunReason(one, { consumers: 20, maxConsumerThreads: 4, maxChannelsPerConnection: 1 })).toBeUndefined();
  });

  it('a library with many consumers of a queue on a connection (or that does not say) runs any layout', () => {
    expect(cannotRunReason(many, massive)).toBeUndefined();
    expect(cannotRunReason({ library: 'lib' }, massive)).toBeUndefined();
  });
});

describe('cannotRunDraft', () => {
  it('has the parameters and the reason, no figures, no finding, no harness problem', () => {
    const draft = cannotRunDraft({ scenario: 'massive_consumers', client: undefined, parameters: { consumers: 20 }, reason: 'why' });
    expect(draft).toMatchObject({
      name: 'massive_consumers',
      parameters: { consumers: 20 },
      metrics: {},
      findings: [],
      harness_problems: [],
      cannot_run: 'why',
      notes: ['cannot run: why'],
      measured_ms: 0,
    });
  });
});
