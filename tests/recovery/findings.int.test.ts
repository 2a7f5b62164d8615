/**
 * A recovery scenario's finding path on a tiny real run (the real broker, the embedded fault proxy
 * in-process on free ports): a client that leaves a rejection unhandled in every connection is
 * measured to the end, every thread noticing and recovering, and its result carries the finding
 * with the library's words; the harness, which did its part, has no problem. A client that cannot
 * connect at all is the harness's failure (a thread that could not start), never a verdict.
 */
import { getConfig } from '../../src/config';
import { removeActiveToxics } from '../../src/faults';
import { measureRecoveryScenario } from '../../src/recovery/measureScenario';
import { measureResilienceSummary } from '../../src/recovery/resilienceSummary';
import { startEmbeddedProxyEntry, type EmbeddedProxyEntry } from '../support/embeddedProxy';
import { draftRecorder, fixtureClient } from '../support/fixtureClients';

const THREADS = 2;

describe('the recovery suite’s findings against the real broker and proxy', () => {
  let entry: EmbeddedProxyEntry;
  beforeAll(async () => {
    entry = await startEmbeddedProxyEntry('recovery-findings');
  });
  afterEach(async () => {
    await removeActiveToxics();
  });
  afterAll(async () => {
    await entry?.close();
  });

  const measurementOf = (file: string, recorder: ReturnType<typeof draftRecorder>) => {
    const client = fixtureClient(file);
    return {
      client,
      clientFields: { parameters: { client: client.name, client_profile: client.profile }, client: undefined },
      threads: THREADS,
      replicates: 1,
      proxy: entry.proxy,
      proxiedUrl: entry.proxiedUrl,
      directUrl: getConfig().amqpUrl,
      record: recorder.record,
    };
  };

  it('records an unhandled rejection as a finding, with the error, and the run as measured', async () => {
    const recorder = draftRecorder();
    const measured = await measureRecoveryScenario(
      { scenario: 'recovery_after_reset_peer', fault: { kind: 'reset_peer' }, parameters: { toxic: 'reset_peer' } },
      measurementOf('leaves-rejection-unhandled.js', recorder),
    );
    expect(measured.verdict.harnessProblems).toEqual([]);
    expect(measured.verdict.findings).toEqual([
      expect.objectContaining({
        kind: 'unhandled_error',
        evidence: expect.arrayContaining([expect.stringMatching(/fixture: a rejection nobody handles/)]),
      }),
    ]);
    const draft = recorder.last()!;
    expect(draft.findings).toEqual(measured.verdict.findings);
    expect(draft.harness_problems).toEqual([]);
    expect([draft.metrics.threads_detected?.value, draft.metrics.threads_recovered?.value]).toEqual([THREADS, THREADS]);
  }, 90_000);

  it('the resilience summary records the same finding per fault, saying which', async () => {
    const recorder = draftRecorder();
    const { record: _record, replicates: _replicates, ...measurement } = measurementOf('leaves-rejection-unhandled.js', recorder);
    const measured = await measureResilienceSummary([{ key: 'rst', title: 'TCP reset', options: { fault: { kind: 'reset_peer' } } }], {
      ...measurement,
      record: recorder.record,
      progress: () => undefined,
    });
    expect(measured.verdict.harnessProblems).toEqual([]);
    expect(measured.verdict.findings.map((finding) => [finding.kind, finding.where])).toEqual([
      ['unhandled_error', 'TCP reset, thread(s) 0, 1'],
    ]);
    expect(recorder.last()!.findings).toHaveLength(1);
  }, 90_000);

  it('a client whose threads cannot start is the harness’s failure: nothing recorded, the call throws', async () => {
    const recorder = draftRecorder();
    await expect(
      measureRecoveryScenario(
        { scenario: 'recovery_after_reset_peer', fault: { kind: 'reset_peer' }, parameters: {} },
        measurementOf('never-connects.js', recorder),
      ),
    ).rejects.toThrow(/threads failed to connect through the proxy: thread \d+: .*fixture: this adapter never connects/);
    expect(recorder.last()).toBeUndefined();
  }, 90_000);
});
