/**
 * The realistic suite's finding path on tiny real runs (the real broker; the embedded fault proxy
 * in-process on free ports for the faults): deliberately broken clients (tests/fixtures/adapters/)
 * are measured to the end and their results carry what they did wrong, with the evidence, while the
 * harness, which did its part, has no problem. A client that cannot start is the harness's failure.
 */
import { getConfig } from '../../src/config';
import { removeActiveToxics } from '../../src/faults';
import { measureRealisticScenario, type RealisticRow } from '../../src/realistic/measureScenario';
import { accountMetrics } from '../../src/realistic/resultMetrics';
import { startEmbeddedProxyEntry, type EmbeddedProxyEntry } from '../support/embeddedProxy';
import { draftRecorder, fixtureClient } from '../support/fixtureClients';

/** A small row of the suite's shape: one consumer thread, one producer, a round of `messages`. */
function row(messages: number, extra: Partial<RealisticRow> = {}): RealisticRow {
  return {
    test: 'test',
    scenario: 'realistic_concurrent_produce_consume',
    workload: {
      consumers: 2,
      producerThreads: 1,
      maxConsumerThreads: 1,
      roundBoundMs: 5000,
      recoveryGraceMs: 2000,
      rounds: [{ messages }],
    },
    layout: ['consumers'],
    parameters: { messages },
    result: ({ figures }) => ({ metrics: accountMetrics(figures.account), notes: [] }),
    progress: () => '',
    ...extra,
  };
}

describe('the realistic suite’s findings against the real broker and proxy', () => {
  let entry: EmbeddedProxyEntry;
  beforeAll(async () => {
    entry = await startEmbeddedProxyEntry('realistic-findings');
  });
  afterEach(async () => {
    await removeActiveToxics();
  });
  afterAll(async () => {
    await entry?.close();
  });

  const measure = async (file: string, measured: RealisticRow) => {
    const recorder = draftRecorder();
    const client = fixtureClient(file);
    const verdict = await measureRealisticScenario(measured, {
      client,
      clientFields: { parameters: { client: client.name, client_profile: client.profile }, client: undefined },
      directUrl: getConfig().amqpUrl,
      proxiedUrl: entry.proxiedUrl,
      proxy: entry.proxy,
      record: recorder.record,
    });
    return { verdict, draft: recorder.last()! };
  };

  it('an unhandled rejection under reset cycles is a finding with the error; the run is measured to the end', async () => {
    const { verdict, draft } = await measure(
      'leaves-rejection-unhandled.js',
      row(1500, {
        workload: {
          consumers: 2,
          producerThreads: 1,
          maxConsumerThreads: 1,
          confirms: true,
          recover: true,
          rounds: [{ messages: 1500, ratePerSecond: 1000 }],
        },
        throughProxy: { consumers: true, producers: true },
        fault: { kind: 'reset_cycles', round: 0, schedule: { cycles: 2, firstAfterMs: 300, intervalMs: 500, holdMs: 200 } },
      }),
    );
    expect(verdict.harnessProblems).toEqual([]);
    expect(verdict.findings.map((finding) => finding.kind)).toEqual(['unhandled_error', 'unhandled_error']);
    expect(verdict.findings[0]!.evidence).toEqual([expect.stringMatching(/^unhandled rejection: .*fixture: a rejection nobody handles/)]);
    expect(draft.findings).toEqual(verdict.findings);
    expect(draft.metrics.messages_lost?.value).toBe(0);
  }, 60_000);

  it('a duplicate at-least-once does not explain is a finding; the explained ones are said beside it', async () => {
    const { verdict, draft } = await measure('duplicates-deliveries.js', row(400));
    expect(verdict.harnessProblems).toEqual([]);
    expect(verdict.findings).toEqual([
      expect.objectContaining({
        kind: 'unexplained_duplicate',
        count: 1,
        evidence: [
          expect.stringMatching(/^e\.g\. seq \d+$/),
          '0 other duplicate(s) explained: 0 delivered flagged redelivered, 0 republished copies',
        ],
      }),
    ]);
    expect(draft.metrics.unexplained_duplicates?.value).toBe(1);
  }, 60_000);

  it('messages the client acks but never hands over are lost: findings (lost, the round did not drain), not a harness failure', async () => {
    const { verdict } = await measure('loses-deliveries.js', row(400));
    expect(verdict.harnessProblems).toEqual([]);
    expect(verdict.findings.map((finding) => [finding.kind, finding.count])).toEqual([
      ['message_lost', 5],
      ['stalled', undefined],
    ]);
  }, 60_000);

  it('a row a client cannot run as named (one subscription per queue per connection, consumers sharing one) is recorded as such: no figures, no finding, no harness problem', async () => {
    const { verdict, draft } = await measure('one-subscription-per-queue.js', row(10));
    expect(verdict).toEqual({ findings: [], harnessProblems: [] });
    expect(draft.cannot_run).toMatch(
      /^amqplib keeps one subscription per queue per connection \(its adapter's consumersPerQueue: 'one'\), and this row puts 2 consumers of one queue on 1 connection\(s\) over 1 worker thread\(s\) \(up to 2 on a connection\)/,
    );
    expect(draft).toMatchObject({ metrics: {}, findings: [], harness_problems: [], parameters: { consumers: 2, messages: 10 } });
    // A row that does not bound its threads runs it one consumer a connection instead, and measures it.
    const unbounded = row(10);
    const { maxConsumerThreads: _bounded, ...workload } = unbounded.workload;
    const ran = await measure('one-subscription-per-queue.js', { ...unbounded, workload, layout: ['consumers', 'consumer_threads'] });
    expect(ran.verdict).toEqual({ findings: [], harnessProblems: [] });
    expect(ran.draft.cannot_run).toBeUndefined();
    expect(ran.draft.parameters).toMatchObject({ consumers: 2, consumer_threads: 2 });
    expect(ran.draft.metrics.messages_lost?.value).toBe(0);
  }, 60_000);

  it('a client whose threads cannot start is the harness’s failure: the call throws, nothing is recorded', async () => {
    const recorder = draftRecorder();
    const client = fixtureClient('never-connects.js');
    await expect(
      measureRealisticScenario(
        row(10, { workload: { consumers: 1, connectBoundMs: 300, startupBoundMs: 5000, rounds: [{ messages: 10 }] } }),
        {
          client,
          clientFields: { parameters: {}, client: undefined },
          directUrl: getConfig().amqpUrl,
          proxiedUrl: entry.proxiedUrl,
          proxy: entry.proxy,
          record: recorder.record,
        },
      ),
    ).rejects.toThrow(/consumers started within 5000 ms: consumer thread 0: .*fixture: this adapter never connects/);
    expect(recorder.last()).toBeUndefined();
  }, 60_000);
});
